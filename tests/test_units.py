"""Tests for sizing.units: quantities, counts and fractions, with exact messages."""

import math
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sizing.units import (KINDS, UnitError, kind_of, parse_fraction, parse_number,
                          parse_quantity, registry, to_unit)

# ---- parse_quantity ----------------------------------------------------------------------


@pytest.mark.parametrize("text, kind, expected", [
    ("2 TB/s", "bandwidth", 2e12),
    ("25 GB/s", "bandwidth", 25e9),
    ("10 Gbit/s", "bandwidth", 1.25e9),
    ("10 us", "duration", 1e-05),
    ("10us", "duration", 1e-05),
    ("10 µs", "duration", 1e-05),  # U+00B5 micro sign
    ("10 μs", "duration", 1e-05),  # U+03BC Greek mu
    ("7 ms", "duration", 0.007),
    ("3 year", "duration", 3 * 365.25 * 86400),
    ("2 hours", "duration", 7200.0),
    ("1 month", "duration", 365.25 * 86400 / 12),
    ("$2.00/hour", "hourly_price", 2 / 3600),
    ("2.00 USD/hour", "hourly_price", 2 / 3600),
    ("$ 2 per hour", "hourly_price", 2 / 3600),
    ("$30000", "money", 30000.0),
    ("30_000 USD", "money", 30000.0),
    ("256 bit", "memory", 32.0),
    ("256 bit", "width", 32.0),
    ("3 GHz", "frequency", 3e9),
    ("200 TFLOPS", "compute_rate", 2e14),
    ("200 TFLOP/s", "compute_rate", 2e14),
    ("312 GFLOP/s", "compute_rate", 3.12e11),
    ("1.5 PFLOPS", "compute_rate", 1.5e15),
    ("624 TOPS", "compute_rate", 6.24e14),
    ("624 TOP/s", "compute_rate", 6.24e14),
    ("2 PFLOP", "compute", 2e15),
    ("14 GFLOP/token", "compute_per_token", 1.4e10),
    ("80 GB", "memory", 80e9),
    ("80 GiB", "memory", 85899345920.0),
    ("128 kB/token", "memory_per_token", 128e3),
    ("0.50 USD/Mtoken", "token_price", 5e-7),
    ("450 W", "power", 450.0),
    ("10 kWh", "energy", 3.6e7),
    ("0.12 USD/kWh", "energy_price", 0.12 / 3.6e6),
    ("4096 tok", "tokens", 4096.0),
    ("20 request/s", "request_rate", 20.0),
    ("20 queries/s", "request_rate", 20.0),
    ("1200 req/min", "request_rate", 20.0),
    ("20/s", "request_rate", 20.0),             # requests per second, as `init --peak 20/s` takes it
    ("20 /s", "request_rate", 20.0),
    ("1200 /min", "request_rate", 20.0),
    ("20 rps", "request_rate", 20.0),
    ("20 qps", "request_rate", 20.0),
    ("1500 token/s", "token_rate", 1500.0),
    ("1.5e3 tokens/s", "token_rate", 1500.0),
    ("-2 GB", "memory", -2e9),  # signs are the schema's business
])
def test_parse_quantity_accepts(text, kind, expected):
    assert parse_quantity(text, kind) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("text, kind, expected", [
    ("10 us", "duration", 1e-05),
    ("$2.00/hour", "hourly_price", 2 / 3600),
    ("80 GiB", "memory", 85899345920),
    ("0.50 USD/Mtoken", "token_price", 5e-7),
])
def test_parse_quantity_is_correctly_rounded(text, kind, expected):
    # Conversion factors are exact fractions, so there is one rounding, at the end.
    assert parse_quantity(text, kind) == expected


def test_decimal_and_binary_prefixes_differ():
    assert parse_quantity("80 GB", "memory") == 80e9
    assert parse_quantity("80 GiB", "memory") == 80 * 2**30
    assert parse_quantity("1 KiB", "memory") == 1024
    assert parse_quantity("1 kB", "memory") == 1000


@pytest.mark.parametrize("text, kind, message", [
    ("Gb", "memory", "'Gb' is ambiguous: write 'Gbit' for gigabits or 'GB' for gigabytes"),
    ("10 Gb", "memory", "'Gb' is ambiguous: write 'Gbit' for gigabits or 'GB' for gigabytes"),
    ("10 Gb/s", "bandwidth", "'Gb' is ambiguous: write 'Gbit' for gigabits or 'GB' for gigabytes"),
    ("1 Mb", "memory", "'Mb' is ambiguous: write 'Mbit' for megabits or 'MB' for megabytes"),
    ("Tb", "memory", "'Tb' is ambiguous: write 'Tbit' for terabits or 'TB' for terabytes"),
    ("4 Pb", "memory", "'Pb' is ambiguous: write 'Pbit' for petabits or 'PB' for petabytes"),
    ("4 kb", "memory", "'kb' is ambiguous: write 'kbit' for kilobits or 'kB' for kilobytes"),
    ("4 Kb", "memory", "'Kb' is ambiguous: write 'kbit' for kilobits or 'kB' for kilobytes"),
    ("2 TB", "bandwidth", "expected a bandwidth like '2 TB/s', got '2 TB' (a memory size)"),
    ("2", "bandwidth", "expected a bandwidth like '2 TB/s', got '2' (a number without a unit)"),
    ("2 %", "bandwidth", "expected a bandwidth like '2 TB/s', got '2 %' (a plain number)"),
    ("2 GB/s^2", "bandwidth",
     "expected a bandwidth like '2 TB/s', got '2 GB/s^2' (unit [information] / [time] ** 2)"),
    ("200 TFLOPs", "compute_rate",
     "expected a compute rate like '200 TFLOP/s', got '200 TFLOPs' (an amount of compute)"),
    ("450 W", "energy", "expected an amount of energy like '10 kWh', got '450 W' (a power)"),
    ("2 TBps", "bandwidth", "unknown unit 'TBps' in '2 TBps'; write e.g. '2 TB/s'"),
    ("2 TB/sec2", "bandwidth",
     "cannot read the unit 'TB/sec2' in '2 TB/sec2'; write e.g. '2 TB/s'"),
    ("3 pi", "memory", "unknown unit 'pi' in '3 pi'; write e.g. '80 GB'"),
    ("20 /GB", "request_rate", "cannot read the unit '/GB' in '20 /GB'; write e.g. '20 request/s'"),
    ("20/s", "token_rate", "cannot read the unit '/s' in '20/s'; write e.g. '1500 token/s'"),
    ("TB/s", "bandwidth", "expected a bandwidth like '2 TB/s', got 'TB/s'"),
    ("nan GB", "memory", "'nan' in 'nan GB' is not a finite number"),
    ("inf GB", "memory", "'inf' in 'inf GB' is not a finite number"),
    ("-.inf GB", "memory", "'-.inf' in '-.inf GB' is not a finite number"),
    ("1e999 GB", "memory", "'1e999' in '1e999 GB' is not a finite number"),
    ("1e300 EB", "memory", "'1e300 EB' is too large"),
    ("$", "money", "expected an amount of money like '30000 USD', got '$'"),
    ("$USD", "money", "expected an amount of money like '30000 USD', got '$USD'"),
    ("$2.00/hour", "money",
     "expected an amount of money like '30000 USD', got '$2.00/hour' (a price per time)"),
    ("10**10**10 B", "memory",
     "cannot read the unit '**10**10 B' in '10**10**10 B'; write e.g. '80 GB'"),
    ("1 B**9**9**9", "memory",
     "cannot read the unit 'B**9**9**9' in '1 B**9**9**9'; write e.g. '80 GB'"),
    ("1 ((B))", "memory", "cannot read the unit '((B))' in '1 ((B))'; write e.g. '80 GB'"),
    ("1 " + "B*" * 20 + "B", "memory",
     f"cannot read the unit '{'B*' * 20}B' in '1 {'B*' * 20}B'; write e.g. '80 GB'"),
])
def test_parse_quantity_rejects(text, kind, message):
    with pytest.raises(UnitError) as error:
        parse_quantity(text, kind)
    assert str(error.value) == message


@pytest.mark.parametrize("text", [
    "10**10**10 B", "1 B**9**9**9", "1 B^9^9^9",
    pytest.param("9" * 5000 + "e-99999999999 B", id="long-number"),
    pytest.param("1 " + "(" * 5000 + "B" + ")" * 5000, id="deep-parentheses"),
])
def test_hostile_text_is_refused_fast(text):
    start = time.perf_counter()
    with pytest.raises(UnitError):
        parse_quantity(text, "bandwidth")
    assert time.perf_counter() - start < 1


# ---- kinds and the registry ----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(KINDS))
def test_every_kind_reads_its_example(name):
    assert math.isfinite(parse_quantity(KINDS[name].example, name))


@pytest.mark.parametrize("name", sorted(KINDS))
def test_si_unit_is_the_coherent_unit_of_its_kind(name):
    kind = KINDS[name]
    factor, _ = registry().get_base_units(kind.si_unit)
    assert factor == 1
    assert registry().parse_units(kind.si_unit).dimensionality == \
        registry().get_dimensionality(kind.dimensionality)


@pytest.mark.parametrize("unit, kind", [
    ("GB/s", "bandwidth"), ("GiB", "memory"), ("W", "power"), ("USD/MWh", "energy_price"),
    ("Mtoken/s", "token_rate"), ("GB^2", None),
])
def test_kind_of(unit, kind):
    assert kind_of(unit) == kind


def test_kind_of_rejects_unknown_units():
    with pytest.raises(UnitError, match="^unknown unit 'parsec' in 'parsec'$"):
        kind_of("parsec")


@pytest.mark.parametrize("value, si_unit, unit, expected", [
    (0.007, "s", "ms", 7.0),
    (1.4e10, "byte", "GB", 14.0),
    (2 ** 30, "byte", "GiB", 1.0),
    (2e14, "FLOP/s", "TFLOPS", 200.0),
    (2 / 3600, "USD/s", "USD/hour", 2.0),
    (5e-7, "USD/token", "USD/Mtoken", 0.5),
    (math.inf, "s", "ms", math.inf),
])
def test_to_unit(value, si_unit, unit, expected):
    assert to_unit(value, si_unit, unit) == expected


def test_to_unit_refuses_another_dimension():
    with pytest.raises(UnitError, match="^cannot express byte in s$"):
        to_unit(1.0, "byte", "s")


def test_import_is_cheap():
    code = ("import sys, sizing.units; "
            "print(sorted({'pint', 'matplotlib', 'weasyprint'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).parents[1])
    assert out.stdout.strip() == "[]"


def test_ureg_is_the_registry():
    from sizing.units import ureg

    assert ureg is registry()
    assert ureg.parse_units("kWh") == ureg.parse_units("kilowatt_hour")


# ---- parse_number ------------------------------------------------------------------------


@pytest.mark.parametrize("text, integer, expected", [
    ("7e9", False, 7e9),
    ("7E9", True, 7_000_000_000),
    ("7_000_000_000", True, 7_000_000_000),
    ("7000000000", True, 7_000_000_000),
    ("0.5", False, 0.5),
    ("1.5e-3", False, 0.0015),
    ("-3", True, -3),
    ("+3", False, 3.0),
    ("0", True, 0),
    ("1e21", True, 10 ** 21),
    ("123456789012345", True, 123456789012345),
    ("3.14159265358979323846", False, math.pi),
])
def test_parse_number_accepts(text, integer, expected):
    value = parse_number(text, integer=integer)
    assert value == expected
    assert type(value) is (int if integer else float)


@pytest.mark.parametrize("text, message", [
    ("017", "'017' has a leading zero, which YAML 1.1 reads as octal; write 17"),
    ("-0_17", "'-0_17' has a leading zero, which YAML 1.1 reads as octal; write -17"),
    ("09", "'09' has a leading zero, which YAML 1.1 reads as text; write 9"),
    ("1:20", "'1:20' is read by YAML 1.1 as a base-60 number; "
             "write the number you mean, or quote it if it is text"),
    *[(word, f"'{word}' is a boolean in YAML, not a number")
      for word in ["no", "yes", "on", "off", "true", "false", "y", "n", "No", "TRUE", "Off", "Y"]],
    ("0x1F", "'0x1F' is not a decimal number; write it in decimal"),
    ("0o17", "'0o17' is not a decimal number; write it in decimal"),
    ("0b101", "'0b101' is not a decimal number; write it in decimal"),
    (".inf", "'.inf' is not a finite number"),
    ("-.Inf", "'-.Inf' is not a finite number"),
    ("nan", "'nan' is not a finite number"),
    (".NaN", "'.NaN' is not a finite number"),
    ("inf", "'inf' is not a finite number"),
    ("1e999", "'1e999' is not a finite number"),
    ("1234567890123456789",
     "'1234567890123456789' has more than 15 significant digits; "
     "a spreadsheet cannot hold it exactly"),
    ("abc", "expected a number like 7e9 or 7_000_000_000, got 'abc'"),
    ("7e9 tokens", "expected a number like 7e9 or 7_000_000_000, got '7e9 tokens'"),
    ("1__000", "expected a number like 7e9 or 7_000_000_000, got '1__000'"),
    ("", "expected a number like 7e9 or 7_000_000_000, got ''"),
])
def test_parse_number_rejects(text, message):
    with pytest.raises(UnitError) as error:
        parse_number(text)
    assert str(error.value) == message


@pytest.mark.parametrize("text", ["2.5", "1.5e-3", "0.5"])
def test_parse_number_integer_rejects_fractions(text):
    with pytest.raises(UnitError) as error:
        parse_number(text, integer=True)
    assert str(error.value) == f"expected a whole number, got '{text}'"


# ---- parse_fraction ----------------------------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ("40 %", 0.4), ("40%", 0.4), ("40 percent", 0.4), ("0.4", 0.4), ("1", 1.0), ("0", 0.0),
    ("150 %", 1.5),
])
def test_parse_fraction_accepts(text, expected):
    assert parse_fraction(text) == expected


@pytest.mark.parametrize("text, message", [
    ("1.5", "expected a fraction like 40 % or 0.4, got '1.5'"),
    ("-0.1", "expected a fraction like 40 % or 0.4, got '-0.1'"),
    ("abc", "expected a fraction like 40 % or 0.4, got 'abc'"),
    ("40 GB", "expected a fraction like 40 % or 0.4, got '40 GB' (a memory size)"),
    ("nan %", "'nan' in 'nan %' is not a finite number"),
    ("40 pct", "unknown unit 'pct' in '40 pct'; write e.g. '40 %'"),
])
def test_parse_fraction_rejects(text, message):
    with pytest.raises(UnitError) as error:
        parse_fraction(text)
    assert str(error.value) == message


# ---- properties --------------------------------------------------------------------------

UNITISH = st.text(alphabet="0123456789.eE+-_ $%/*^()·kMGTPEmunµμKiBbitsFLOPSUSDWhoury",
                  max_size=30)
TEXTS = st.one_of(st.text(max_size=60), UNITISH)


def returns_finite_or_unit_error(parse, text):
    try:
        value = parse(text)
    except UnitError:
        return
    assert isinstance(value, (int, float)) and math.isfinite(value)


@settings(deadline=500, max_examples=300)
@given(TEXTS, st.sampled_from(sorted(KINDS)))
def test_parse_quantity_never_fails_otherwise(text, kind):
    returns_finite_or_unit_error(lambda t: parse_quantity(t, kind), text)


@settings(deadline=500, max_examples=300)
@given(TEXTS, st.booleans())
def test_parse_number_never_fails_otherwise(text, integer):
    returns_finite_or_unit_error(lambda t: parse_number(t, integer=integer), text)


@settings(deadline=500, max_examples=300)
@given(TEXTS)
def test_parse_fraction_never_fails_otherwise(text):
    returns_finite_or_unit_error(parse_fraction, text)


@settings(deadline=500)
@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e30, max_value=1e30))
def test_parse_number_reads_what_python_writes(value):
    value = float(f"{value:.15g}")  # what a spreadsheet can hold
    assert parse_number(repr(value)) == value


def test_a_base_60_time_gets_the_yaml_hint():
    with pytest.raises(UnitError) as e:
        parse_quantity("1:30", "duration")
    assert str(e.value) == "'1:30' is read by YAML 1.1 as a base-60 number; write the value with its unit, e.g. '10 us'"
