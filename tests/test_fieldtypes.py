"""Field types as classes: parsing, messages, limits, the checker's walk, and a JSON Schema as strict as the checker."""

import json
import re
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

import test_imports
import test_schema as T
from helpers import SCENARIOS, problems_of
from sizing import schema as S
from sizing.language.hardware import SOURCE_ENTRY
from sizing.language.types import NUMBER
from sizing.loader import Scalar, load_text
from sizing.units import KINDS, UnitError, parse_number, parse_quantity

CATALOG = Path(S.__file__).parent / "catalog"
VALIDATOR = Draft202012Validator(S.json_schema())


def as_json(text: str | Path):
    """A YAML document as an editor's JSON Schema validator sees it (dates are text)."""
    text = text.read_text() if isinstance(text, Path) else text
    return json.loads(json.dumps(yaml.safe_load(text), default=str))


def schema_errors(text: str) -> list[str]:
    return [e.message for e in VALIDATOR.iter_errors(as_json(text))]


def field(**kw) -> S.Field:
    return S.Field("x", kw.pop("type", S.Count()), "A field.", **kw)


def scalar(text: str) -> Scalar:
    return Scalar(text, False, 1, 1)


# -- the types ---------------------------------------------------------------------------------
@pytest.mark.parametrize("ftype,phrase", [
    (S.Quantity("bandwidth"), "a bandwidth like '2 TB/s'"),
    (S.Count(), "a number like 7e9"),
    (S.Integer(), "a whole number"),
    (S.Fraction(), "a fraction like 40 % or 0.4"),
    (S.Bool(), "true or false"),
    (S.Date(), "a date 'YYYY-MM-DD'"),
    (S.Slug(), "an id of a-z, 0-9 and -"),
    (S.Enum(("a", "b")), "one of: a, b"),
    (S.Text(), "text"),
    (S.Ref("model"), "text"),
    (S.CatalogRef("device"), "text"),
])
def test_each_type_describes_itself_as_the_messages_say(ftype, phrase):
    assert ftype.describe() == phrase


@pytest.mark.parametrize("ftype,text,value,unit", [
    (S.Quantity("duration"), "10 us", 1e-05, "s"),
    (S.Quantity("hourly_price"), "$2.00/hour", 2 / 3600, "USD/s"),
    (S.Count(), "7_000_000_000", 7e9, ""),
    (S.Integer(), "7e3", 7000, ""),
    (S.Integer(choices=(1,)), "1", 1, ""),
    (S.Fraction(), "40 %", 0.4, ""),
    (S.Bool(), "true", True, None),
    (S.Text(), "anything: at all", "anything: at all", None),
    (S.Enum(("cloud", "edge")), "edge", "edge", None),
    (S.Slug(), "h100-sxm", "h100-sxm", None),
    (S.Date(), "2026-12-02", "2026-12-02", None),
])
def test_parse_gives_the_value_and_its_unit(ftype, text, value, unit):
    assert ftype.parse(scalar(text)) == (value, unit)


@pytest.mark.parametrize("ftype,text,message,code", [
    (S.Quantity("bandwidth"), "2 TB", "expected a bandwidth like '2 TB/s', got '2 TB' (a memory size)",
     "unit-dimension"),
    (S.Integer(), "2.5", "expected a whole number, got '2.5'", "not-an-integer"),
    (S.Integer(choices=(1,)), "2", "expected one of 1, got '2'", "bad-enum"),
    (S.Fraction(), "1.5", "expected a fraction like 40 % or 0.4, got '1.5'", "out-of-range"),
    (S.Bool(), "yes", "expected true or false, got 'yes'", "not-a-boolean"),
    (S.Enum(("draft", "final")), "Final", "did you mean 'final'? expected one of: draft, final; got 'Final'",
     "bad-enum"),
    (S.Enum(("fits", "edge"), noun="requirement"), "fit", "unknown requirement 'fit'; expected one of: fits, edge",
     "bad-enum"),
    (S.Slug(), "A b", "expected an id of lower-case letters, digits, '.', '_' and '-', got 'A b'", "bad-id"),
    (S.Date(), "2026-02-30", "'2026-02-30' is not a calendar date", "bad-date"),
    (S.Text(), "x" * 4001, "is 4,001 characters long; the limit is 4,000", "text-too-long"),
    (S.Ref("device"), "a\x07", "contains a control character or an unpaired surrogate; remove it",
     "control-character"),
])
def test_parse_refuses_with_the_message_and_a_code(ftype, text, message, code):
    with pytest.raises(UnitError) as e:
        ftype.parse(scalar(text))
    assert (str(e.value), e.value.code) == (message, code)


def test_limits_for_the_workbook_come_from_the_type_and_the_field():
    assert S.Integer().validation(field(positive=True)) == S.Limits(True, 0.0, True, None)
    assert S.Count().validation(field(nonnegative=True)) == S.Limits(False, 0.0, False, None)
    assert S.Fraction().validation(field(maximum=1.0)) == S.Limits(False, 0.0, False, 1.0)
    assert S.Quantity("memory").validation(field()) == S.Limits()
    assert S.Integer(choices=(1, 2)).validation(field()) == S.Limits(True, choices=(1, 2))
    assert S.PerDevice(S.Integer()).validation(field(positive=True)) == S.Limits(True, 0.0, True, None)
    assert S.MapOf(S.Quantity("compute_rate")).validation(field(positive=True)).low == 0.0
    assert S.Enum(("a", "b")).validation(field()) == S.Limits()        # words are not numbers


def test_defaults_are_values_with_units_and_text():
    assert S.Quantity("duration").default("3 year") == (3 * 365.25 * 86400, "s", "3 year")
    assert S.Fraction().default(0.01) == (0.01, "", "1 %")
    assert S.Integer().default(1) == (1, "", "1")
    assert S.PerDevice(S.Integer()).default(1) == (1, "", "1")
    assert S.Enum(("adam",)).default("adam") == ("adam", None, "adam")


def test_types_are_values_named_as_the_docs_spell_them():
    assert S.Quantity("memory") == S.Quantity("memory") != S.Quantity("bandwidth")
    assert hash(S.MapOf(S.Count())) == hash(S.MapOf(S.Count()))
    assert [t.name for t in (S.Quantity("memory"), S.MapOf(S.Count()), S.ListOf(S.Enum(("a",))),
                             S.PerDevice(S.Integer()), S.Ref("model"), S.CatalogRef("device"), S.Fraction())] == [
        "quantity:memory", "map:count", "list:enum", "per_device:integer", "ref:model", "catalog:device", "fraction"]
    assert S.Fraction() == S.Fraction() and S.Count() != S.Fraction() and S.Fraction() != "fraction"


def declarations():
    """Every field the language declares, nested ones included."""
    todo = [*S.TOP_FIELDS, *S.ALL_WORKLOAD_FIELDS.values(), *S.SWEEP_FIELDS.values(), *S.SWEEP_RANGE,
            *S.DEVICE_FIELDS, *S.MODEL_FIELDS, *S.BENCHMARK_FIELDS]
    while todo:
        f = todo.pop()
        yield f
        inner = f.type
        while hasattr(inner, "inner"):
            inner = inner.inner
        todo += list(getattr(inner, "fields", ())) if isinstance(inner, S.Block) else []


def test_every_declared_type_is_a_type_object():
    fields = list(declarations())
    assert len(fields) > 150 and all(isinstance(f.type, S.FieldType) for f in fields)


def test_numeric_types_are_what_a_sweep_may_vary():
    assert {"batch", "traffic.peak", "traffic.utilisation", "size", "m"} <= set(S.SWEEP_KEYS)
    assert not {"kind", "model", "operands", "title", "traffic", "api"} & set(S.SWEEP_KEYS)


# -- the checker walks the types ---------------------------------------------------------------------
def walk(ftype: S.FieldType, text: str, **limits) -> tuple[dict, list[str]]:
    node, _ = load_text(f"x: {text}\n", "t.yaml")
    chk = S.Checker("t.yaml")
    out: dict = {}
    chk.field(node.get("x"), S.Field("x", ftype, "X.", **limits), "x", out, "x")
    return {k: v.value for k, v in out.items()}, [f"{p} [{p.code}]" for p in chk.problems]


def test_walks_containers_by_their_types():
    assert walk(S.PerDevice(S.Integer()), "2", positive=True) == ({"x": 2}, [])
    assert walk(S.PerDevice(S.Integer()), "{h100: 2, b200: 0}", positive=True) == ({"x.h100": 2}, [
        "t.yaml:1:20: error: x.b200: must be greater than zero, got '0' [out-of-range]"])
    assert walk(S.MapOf(S.Count(), ("a", "b")), "{a: 1, c: 2}") == ({"x.a": 1.0}, [
        "t.yaml:1:11: error: x.c: unknown key 'c'; expected one of: a, b [unknown-key]"])
    assert walk(S.ListOf(S.Block(SOURCE_ENTRY)), "[{title: a}, {url: b}]") == ({"x[0].title": "a", "x[1].url": "b"}, [
        "t.yaml:1:17: error: x[1]: missing required field 'title': what the source is [missing-field]"])
    assert walk(S.ListOf(S.Enum(("cloud", "edge"))), "cloud") == ({}, [
        "t.yaml:1:4: error: x: expected a list, e.g. [a, b] [wrong-shape]"])
    assert walk(S.Block((S.Field("a", S.Quantity("memory"), "A.", required=True),)), "{b: 1}")[1] == [
        "t.yaml:1:5: error: x.b: unknown key 'b'; expected one of: a [unknown-key]",
        "t.yaml:1:4: error: x: missing required field 'a': a [missing-field]"]
    assert walk(S.Quantity("memory"), "[1 GB]")[1] == [
        "t.yaml:1:4: error: x: expected a memory size like '80 GB', got a list [wrong-shape]"]


# -- the JSON Schema ---------------------------------------------------------------------------------
def test_the_schema_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(S.json_schema())


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_every_shipped_scenario_satisfies_the_schema(path):
    assert [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(as_json(path))] == []


@pytest.mark.parametrize("group,fields", [("devices", S.DEVICE_FIELDS), ("models", S.MODEL_FIELDS)])
def test_every_catalog_entry_satisfies_the_schema_of_its_kind(group, fields):
    entry = Draft202012Validator(S.Block(fields).json_schema(S.Field(group, S.Block(fields), "An entry.")))
    entries = as_json(CATALOG / f"{group}.yaml")[group]
    assert [f"{k}: {e.message}" for k, v in entries.items() for e in entry.iter_errors(v)] == []


@pytest.mark.parametrize("old,new,unexpected", [
    ("model: m7}", "model: m7, bacth: 8}", "bacth"),
    ("    memory: 80 GB", "    memroy: 80 GB", "memroy"),
    ("model: m7}", "model: m7, traffic: {peek: 2 request/s}}", "peek"),
    ("model: m7}", "model: m7, api: {output_prize: 1 USD/Mtoken}}", "output_prize"),
    ("    kind: gpu", "    kind: gpu\n    link: {bandwith: 25 GB/s}", "bandwith"),
    ("    kind: gpu", "    kind: gpu\n    costs: {purchse: 100 USD}", "purchse"),
    ("    kind: gpu", "    kind: gpu\n    cpu: {cores: 8, fma_units: 2, vector_width: 256 bit, clock: 3 GHz, smt: 2}",
     "smt"),
    ("    kind: gpu", "    kind: gpu\n    delivered: {bf17: 1 TFLOP/s}", "bf17"),
    ("{parameters: 7e9}", "{parameters: 7e9, layer: 32}", "layer"),
    ("name: t", "name: t\nsweep: {bacth: [1, 2]}", "bacth"),
    ("name: t", "name: t\ndecision: {objectve: latency}", "objectve"),
    ("name: t", "name: t\nnmae: x", "nmae"),
    ("{kind: generate, model: m7}", "{kind: forward, model: m7, batch_job: {items: 1, tokens: 1, item: 2}}", "item"),
])
def test_a_misspelt_key_is_rejected_by_name(old, new, unexpected):
    assert f"Additional properties are not allowed ('{unexpected}' was unexpected)" in schema_errors(
        T.with_line(old, new))


@pytest.mark.parametrize("old,new,error", [
    ("    kind: gpu", "    kind: gpx", "'gpx' is not one of ['cpu', 'gpu', 'tpu', 'npu', 'accelerator']"),
    ("{kind: generate, model: m7}", "{kind: magic}",
     "'magic' is not one of ['matmul', 'generate', 'forward', 'train']"),
    ("model: m7}", "model: m7, precision: fp7}", "'fp7' is not one of"),
    ("name: t", "name: t\nstatus: done", "'done' is not one of ['draft', 'review', 'final']"),
    ("name: t", "name: t\ndecision: {require: [fits_memroy]}", "'fits_memroy' is not one of"),
    ("    kind: gpu", "    kind: gpu\n    from: h100", "'h100' is not valid under any of the given schemas"),  # nor a file
    ("sizing: 1", "sizing: 2", "1 was expected"),
])
def test_a_wrong_enum_is_rejected(old, new, error):
    assert any(m.startswith(error) for m in schema_errors(T.with_line(old, new)))


@pytest.mark.parametrize("old,new", [
    ("memory_bandwidth: 2 TB/s", "memory_bandwidth: 2 TB"),           # a memory size for a bandwidth
    ("memory_bandwidth: 2 TB/s", "memory_bandwidth: 10 Gb/s"),        # bits or bytes?
    ("memory_bandwidth: 2 TB/s", "memory_bandwidth: 0 TB/s"),         # positive
    ("memory: 80 GB", "memory: -80 GB"),
    ("memory: 80 GB", "memory: 80"),                                  # no unit
    ("memory: 80 GB", "memory: nan GB"),
    ("    kind: gpu", "    kind: gpu\n    price: 2.00 USD"),             # money, not a price per time
    ("    kind: gpu", "    kind: gpu\n    price: $2/TB"),
    ("    kind: gpu", "    kind: gpu\n    efficiency: 140 %"),
    ("    kind: gpu", "    kind: gpu\n    efficiency: 0 %"),
    ("    kind: gpu", "    kind: gpu\n    efficiency: 1.4"),
    ("    kind: gpu", "    kind: gpu\n    cpu: {cores: 8, fma_units: 2, vector_width: 256 bit}"),   # clock missing
    ("model: m7}", "model: m7, batch: 2.5}"),
    ("model: m7}", "model: m7, batch: 0}"),
    ("{parameters: 7e9}", "{parameters: 7e9, layers: '017'}"),
    ("{kind: generate, model: m7}", "{kind: forward, tokens: 16}"),   # neither model nor parameters
    ("{kind: generate, model: m7}", "{kind: train, model: m7}"),      # tokens missing
    ("name: t", "name: T t"),
    ("name: t", "name: t\ntitle: \"a\\u0007b\""),
    ("name: t", "name: t\ndate: 2026-13"),
    ("name: t", "name: t\ncompare: [gpu, gpu]"),
    ("name: t", "name: t\nsweep: {batch: [1, 0]}"),
    ("name: t", "name: t\nsweep: {batch: [1], tokens: [2], size: [8]}"),
    ("name: t", "name: t\nsweep: {precision: {from: 1, to: 2, points: 2}}"),
    ("name: t", "name: t\nsweep: {traffic.peak: {from: 1 request/s, to: 2 TB, points: 2}}"),
    ("name: t", "name: t\ndescription: " + "x" * 4001),
    ("  gpu:", "  \"<b>x</b>\":"),
    ("workloads:\n  chat: {kind: generate, model: m7}", "workloads: {}"),     # none given
])
def test_the_schema_rejects_what_the_checker_rejects(old, new):
    text = T.with_line(old, new)
    assert [ln for ln in problems_of(text) if ": error: " in ln]
    assert schema_errors(text)


# What the checker accepts, by kind (tests/test_units.py's table): the kind's pattern accepts it too.
ACCEPTED = [
    ("2 TB/s", "bandwidth"), ("10 Gbit/s", "bandwidth"), ("10us", "duration"), ("10 µs", "duration"),
    ("10 μs", "duration"), ("3 year", "duration"), ("2 hours", "duration"), ("1 month", "duration"),
    ("$2.00/hour", "hourly_price"), ("2.00 USD/hour", "hourly_price"), ("$ 2 per hour", "hourly_price"),
    ("150 USD/month", "hourly_price"), ("$30000", "money"), ("30_000 USD", "money"), ("256 bit", "memory"),
    ("256 bit", "width"), ("3 GHz", "frequency"), ("200 TFLOPS", "compute_rate"), ("200 TFLOP/s", "compute_rate"),
    ("1.5 PFLOPS", "compute_rate"), ("624 TOPS", "compute_rate"), ("624 TOP/s", "compute_rate"),
    ("2 PFLOP", "compute"), ("14 GFLOP/token", "compute_per_token"), ("80 GiB", "memory"),
    ("128 kB/token", "memory_per_token"), ("0.50 USD/Mtoken", "token_price"), ("450 W", "power"),
    ("10 kWh", "energy"), ("0.12 USD/kWh", "energy_price"), ("4096 tok", "tokens"),
    ("20 request/s", "request_rate"), ("20 queries/s", "request_rate"), ("1200 req/min", "request_rate"),
    ("1500 token/s", "token_rate"), ("1.5e3 tokens/s", "token_rate"), ("-2 GB", "memory"),
]


@pytest.mark.parametrize("text,kind", ACCEPTED)
def test_a_kind_pattern_accepts_what_the_checker_accepts(text, kind):
    parse_quantity(text, kind)
    assert re.search(S.Quantity(kind).pattern(field()), text)


def test_each_kind_has_a_pattern_that_refuses_the_other_dimensions():
    for kind, spec in KINDS.items():
        pattern = S.Quantity(kind).pattern(field())
        assert re.search(pattern, spec.example), kind
        others = [k.example for k in KINDS.values() if k.dimensionality != spec.dimensionality]
        assert [x for x in others if re.search(pattern, x)] == [], kind


@pytest.mark.parametrize("text", ["7e9", "7_000_000_000", "0.5", ".5", "5.", "+3", "-3", "1E-3", "017", "0x1F",
                                  "1:20", "no", "nan", "1,000", "7 e9", "0_7"])
def test_the_number_pattern_agrees_with_the_checker(text):
    try:
        parse_number(text)
        accepted = True
    except UnitError:
        accepted = False
    assert bool(re.fullmatch(rf"[-+]?{NUMBER}", text)) == accepted


def test_the_language_package_keeps_the_import_direction():
    pkg = test_imports.PKG / "language"
    assert pkg.is_dir()
    for path in pkg.glob("*.py"):
        assert not test_imports.imported(path) & test_imports.FORBIDDEN["schema"], path
