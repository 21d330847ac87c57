"""Read quantities, counts and fractions from input text into SI magnitudes, with exact messages."""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from .currency import CODE, CODES, INTERNAL, SIGN

if TYPE_CHECKING:
    import pint

DEFINITIONS = Path(__file__).with_name("units.txt")


@dataclass(frozen=True)
class Kind:
    """A kind of quantity an input field holds, and how to talk about it in messages."""

    name: str
    dimensionality: str
    example: str
    si_unit: str
    noun: str

    @property
    def like(self) -> str:
        return f"{self.noun} like '{self.example}'"


KINDS: dict[str, Kind] = {k.name: k for k in (
    # When several kinds share a dimensionality, messages name the first one listed.
    Kind("compute_rate", "[flop]/[time]", "200 TFLOP/s", "FLOP/s", "a compute rate"),
    Kind("compute", "[flop]", "2 PFLOP", "FLOP", "an amount of compute"),
    Kind("compute_per_token", "[flop]/[token]", "14 GFLOP/token", "FLOP/token",
         "an amount of compute per token"),
    Kind("memory", "[information]", "80 GB", "byte", "a memory size"),
    Kind("memory_per_token", "[information]/[token]", "128 kB/token", "byte/token",
         "a memory size per token"),
    Kind("bandwidth", "[information]/[time]", "2 TB/s", "byte/s", "a bandwidth"),
    Kind("duration", "[time]", "10 us", "s", "a duration"),
    Kind("frequency", "1/[time]", "3 GHz", "1/s", "a clock frequency"),
    Kind("width", "[information]", "256 bit", "byte", "a vector width"),
    Kind("hourly_price", "[currency]/[time]", "2.00 USD/hour", "USD/s", "a price per time"),
    Kind("money", "[currency]", "30000 USD", "USD", "an amount of money"),
    Kind("power", "[mass]*[length]**2/[time]**3", "450 W", "W", "a power"),
    Kind("energy", "[mass]*[length]**2/[time]**2", "10 kWh", "J", "an amount of energy"),
    Kind("energy_price", "[currency]/([mass]*[length]**2/[time]**2)", "0.12 USD/kWh", "USD/J",
         "an energy price"),
    Kind("token_price", "[currency]/[token]", "0.50 USD/Mtoken", "USD/token", "a price per token"),
    Kind("tokens", "[token]", "4096 token", "token", "a number of tokens"),
    Kind("request_rate", "[request]/[time]", "20 request/s", "request/s", "a request rate"),
    Kind("token_rate", "[token]/[time]", "1500 token/s", "token/s", "a token rate"),
)}

FRACTION_LIKE = "a fraction like 40 % or 0.4"


class UnitError(ValueError):
    """A value that cannot be read; str() is the whole message, the caller adds the location and `code`."""

    def __init__(self, message: str, code: str):
        super().__init__(message)
        self.code = code


@functools.cache
def registry() -> pint.UnitRegistry:
    """The one registry, built on first use: importing pint costs ~0.15 s."""
    import pint

    # Fraction magnitudes make conversion factors exact, so '10 us' is exactly 1e-05.
    return pint.UnitRegistry(str(DEFINITIONS), cache_folder=None, non_int_type=Fraction,
                             on_redefinition="raise")


def __getattr__(name: str):
    # `ureg` is the registry, built lazily (PEP 562) so that importing this module stays cheap.
    if name == "ureg":
        return registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---- numbers -----------------------------------------------------------------------------

_DIGITS = r"[0-9]+(?:_[0-9]+)*"
_NUMBER = rf"[+-]?(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?[0-9]+)?"
_NONFINITE = r"[+-]?\.?(?:inf(?:inity)?|nan)"
_BOOLEAN = re.compile(r"y|n|yes|no|true|false|on|off", re.IGNORECASE)
_NOT_DECIMAL = re.compile(r"[+-]?0[xob][0-9a-f_]+", re.IGNORECASE)
_BASE_60 = re.compile(r"[+-]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")
_LEADING_ZERO = re.compile(r"([+-]?)(0[0-9_]+)")
_MAX_SIGNIFICANT = 15


def _finite(number: str, quoted: str) -> float:
    value = float(number.replace("_", ""))
    if not math.isfinite(value):
        raise UnitError(f"{quoted} is not a finite number", "not-finite")
    return value


def _significant_digits(number: str) -> int:
    mantissa = re.split("[eE]", number)[0]
    return len(re.sub(r"\D", "", mantissa).strip("0"))


def _yaml_trap(text: str) -> UnitError | None:
    """Why YAML 1.1 would not read `text` as the decimal number it looks like, if it would not."""
    if _BOOLEAN.fullmatch(text):
        return UnitError(f"'{text}' is a boolean in YAML, not a number", "yaml-boolean")
    if re.fullmatch(_NONFINITE, text, re.IGNORECASE):
        return UnitError(f"'{text}' is not a finite number", "not-finite")
    if _NOT_DECIMAL.fullmatch(text):
        return UnitError(f"'{text}' is not a decimal number; write it in decimal", "not-decimal")
    if _BASE_60.fullmatch(text):
        return UnitError(f"'{text}' is read by YAML 1.1 as a base-60 number; "
                         "write the number you mean, or quote it if it is text", "yaml-base60")
    if zero := _LEADING_ZERO.fullmatch(text):
        digits = zero[2].replace("_", "")
        reading = "text" if set(digits) & {"8", "9"} else "octal"
        meant = zero[1] + (digits.lstrip("0") or "0")
        return UnitError(f"'{text}' has a leading zero, which YAML 1.1 reads as {reading}; write {meant}",
                         "yaml-octal")
    return None


def parse_number(text: str, *, integer: bool = False) -> float | int:
    """A count from a raw YAML scalar: `7e9`, `7_000_000_000`, `0.5`; an int if `integer`."""
    bare = text.strip()
    if trap := _yaml_trap(bare):
        raise trap
    if not re.fullmatch(_NUMBER, bare):
        raise UnitError(f"expected a number like 7e9 or 7_000_000_000, got '{text}'", "not-a-number")
    value = _finite(bare, f"'{text}'")
    if value.is_integer() and _significant_digits(bare) > _MAX_SIGNIFICANT:
        raise UnitError(f"'{text}' has more than {_MAX_SIGNIFICANT} significant digits; "
                        "a spreadsheet cannot hold it exactly", "too-many-digits")
    if not integer:
        return value
    if not value.is_integer():
        raise UnitError(f"expected a whole number, got '{text}'", "not-an-integer")
    return int(value)


# ---- units -------------------------------------------------------------------------------

# A leading `$` means USD (pint would read '$2.00/hour' as 2/hour).
_QUANTITY = re.compile(rf"\s*(?P<symbol>{SIGN})?\s*(?P<number>{_NUMBER})(?P<unit>.*)", re.DOTALL)
_NONFINITE_START = re.compile(rf"\s*\$?\s*(?P<number>{_NONFINITE})(?![A-Za-z])", re.IGNORECASE)

# Unit text is checked against a small grammar before pint sees it: names, one level of
# parentheses, single-digit powers. Pint evaluates numbers in unit text, and
# '10**10**10' would never finish.
_MAX_UNIT_LENGTH = 40
_NAME = rf"(?:[A-Za-z_µμ%]|{SIGN})+"
_POWER = r"(?:\^-?[1-9])?"
_TERM = rf"{_NAME}{_POWER}"
_GROUP = rf"\({_TERM}(?:[*/· ]{_TERM})*\){_POWER}"
_UNIT = re.compile(rf"(?:{_TERM}|{_GROUP})(?:[*/· ](?:{_TERM}|{_GROUP}))*")
_AMBIGUOUS_BIT = re.compile(r"[kKMGTPE]b")
_PREFIX_WORDS = {"k": "kilo", "M": "mega", "G": "giga", "T": "tera", "P": "peta", "E": "exa"}


def split_quantity(text: str, like: str = "a number with a unit") -> tuple[float, str]:
    """The finite number and the unit text (with `$` turned into USD) of `<number> <unit>`."""
    match = _QUANTITY.fullmatch(text)
    if not match:
        if nonfinite := _NONFINITE_START.match(text):
            raise UnitError(f"'{nonfinite['number']}' in '{text}' is not a finite number", "not-finite")
        _check_ambiguous_bit(text)  # 'Gb' alone still deserves the hint
        raise UnitError(f"expected {like}, got '{text}'", "not-a-number")
    value = _finite(match["number"], f"'{match['number']}' in '{text}'")
    unit = match["unit"].strip()
    return value, f"{match['symbol']} {unit}".strip() if match["symbol"] else unit


def _normalized(unit: str) -> str:
    unit = re.sub(SIGN, INTERNAL, unit.replace("**", "^"))
    unit = CODE.sub(lambda m: INTERNAL if m[1] in CODES else m[1], unit)     # money is one unit: EUR/hour ...
    unit = re.sub(r"\s*([*/·^()])\s*", r"\1", unit)
    return re.sub(r"\s+", " ", unit)


def _check_ambiguous_bit(unit: str) -> None:
    for name in re.findall(_NAME, unit):
        if _AMBIGUOUS_BIT.fullmatch(name):
            prefix = name[0].lower() if name[0] == "K" else name[0]
            word = _PREFIX_WORDS[prefix]
            raise UnitError(f"'{name}' is ambiguous: write '{prefix}bit' for {word}bits "
                            f"or '{prefix}B' for {word}bytes", "unit-ambiguous")


def _parse_unit(unit: str, text: str, hint: str) -> pint.Unit:
    """The pint unit for `unit` (from `text`), or a UnitError; never hands pint anything odd."""
    import pint

    unreadable = UnitError(f"cannot read the unit '{unit}' in '{text}'{hint}", "unit-syntax")
    normal = _normalized(unit)
    if len(normal) > _MAX_UNIT_LENGTH or not _UNIT.fullmatch(normal):
        raise unreadable
    _check_ambiguous_bit(normal)
    try:
        return _units(normal)
    except pint.UndefinedUnitError as error:
        raise UnitError(f"unknown unit '{error.unit_names[0]}' in '{text}'{hint}", "unit-unknown") from None
    except Exception:  # pint's parser also raises AssertionError, ZeroDivisionError, ...
        raise unreadable from None


@functools.lru_cache(maxsize=4096)
def _units(normal: str) -> pint.Unit:
    """pint's unit for a normalised unit text (a scenario names the same few units many times)."""
    return registry().parse_units(normal)


@functools.lru_cache(maxsize=4096)
def _base_factor(unit: pint.Unit) -> float:
    return registry().get_base_units(unit)[0]


@functools.cache
def _kind_dims(kind: str):
    return registry().get_dimensionality(KINDS[kind].dimensionality)


def _kind_named(dims) -> str | None:
    return next((name for name in KINDS if _kind_dims(name) == dims), None)


def _format_dims(dims) -> str:
    # pint cannot print dimensionalities whose exponents are Fractions, so format them here.
    def term(name, power):
        return name if power == 1 else f"{name} ** {power}"

    up = " * ".join(term(n, p) for n, p in sorted(dims.items()) if p > 0) or "1"
    return up + "".join(f" / {term(n, -p)}" for n, p in sorted(dims.items()) if p < 0)


def _described(dims) -> str:
    if not dims:
        return "a plain number"
    kind = _kind_named(dims)
    return KINDS[kind].noun if kind else f"unit {_format_dims(dims)}"


def _si_magnitude(value: float, unit: pint.Unit, text: str) -> float:
    factor = _base_factor(unit)
    try:
        return float(Fraction(value) * Fraction(factor))
    except OverflowError:
        raise UnitError(f"'{text}' is too large", "too-large") from None


def parse_quantity(text: str, kind: str) -> float:
    """The magnitude of `text` ('2 TB/s', '$2.00/hour') in the SI unit of `kind`."""
    spec = KINDS[kind]
    if _BASE_60.fullmatch(text.strip()):          # 1:30, which YAML 1.1 tools read as 90
        raise UnitError(f"'{text}' is read by YAML 1.1 as a base-60 number; write the value with its unit, "
                        f"e.g. '{spec.example}'", "yaml-base60")
    value, unit_text = split_quantity(text, spec.like)
    if not unit_text:
        raise UnitError(f"expected {spec.like}, got '{text}' (a number without a unit)", "unit-missing")
    unit = _parse_unit(unit_text, text, f"; write e.g. '{spec.example}'") if not unit_text.strip().startswith("/") \
        or kind != "request_rate" else _per_time(unit_text, text, spec.example)
    if unit.dimensionality != _kind_dims(kind):
        raise UnitError(f"expected {spec.like}, got '{text}' ({_described(unit.dimensionality)})",
                        "unit-dimension")
    return _si_magnitude(value, unit, text)


def _per_time(unit_text: str, text: str, example: str):
    """'5/s', '300 /min': requests per that time, as `init --peak` takes them; anything else read as written."""
    try:
        unit = _parse_unit("request" + unit_text.strip(), text, "")
        if unit.dimensionality == _kind_dims("request_rate"):
            return unit
    except UnitError:
        pass
    return _parse_unit(unit_text, text, f"; write e.g. '{example}'")


def parse_fraction(text: str) -> float:
    """A fraction: '40 %' is 0.4 (and '150 %' is 1.5); a plain number must lie in [0, 1]."""
    value, unit_text = split_quantity(text, FRACTION_LIKE)
    if not unit_text:
        if not 0 <= value <= 1:
            raise UnitError(f"expected {FRACTION_LIKE}, got '{text}'", "out-of-range")
        return value
    unit = _parse_unit(unit_text, text, "; write e.g. '40 %'")
    if unit.dimensionality:
        raise UnitError(f"expected {FRACTION_LIKE}, got '{text}' "
                        f"({_described(unit.dimensionality)})", "unit-dimension")
    return _si_magnitude(value, unit, text)


def kind_of(unit_text: str) -> str | None:
    """The name of the first kind whose dimensionality `unit_text` has, or None."""
    return _kind_named(_parse_unit(unit_text, unit_text, "").dimensionality)


@functools.cache
def _factor(si_unit: str, unit: str) -> Fraction:
    # Program constants, not user text: pint may parse them directly.
    factor_si, base_si = registry().get_base_units(si_unit)
    factor_unit, base_unit = registry().get_base_units(unit)
    if base_si != base_unit:
        raise UnitError(f"cannot express {si_unit} in {unit}", "unit-dimension")
    return Fraction(factor_si) / Fraction(factor_unit)


def to_unit(value_si: float, si_unit: str, unit: str) -> float:
    """`value_si` (in `si_unit`) expressed in the display `unit`: to_unit(0.007, 's', 'ms') == 7."""
    factor = _factor(si_unit, unit)
    if not math.isfinite(value_si):  # a Fraction cannot hold inf or nan
        return value_si * float(factor)
    return float(Fraction(value_si) * factor)
