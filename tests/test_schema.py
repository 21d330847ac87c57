"""Scenario checking: every problem located and worded exactly, all reported at once."""

import json

import pytest

from helpers import SCENARIOS, problems_of
from sizing.scenario import load_scenario
from sizing.schema import json_schema

BASE = """\
sizing: 1
name: t
devices:
  gpu:
    kind: gpu
    compute: {bf16: 200 TFLOP/s}
    memory: 80 GB
    memory_bandwidth: 2 TB/s
models:
  m7: {parameters: 7e9}
workloads:
  chat: {kind: generate, model: m7}
"""


def with_line(old: str, new: str) -> str:
    assert old in BASE
    return BASE.replace(old, new)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_every_shipped_scenario_validates(path):
    scn, problems = load_scenario(path)
    assert scn is not None
    assert [p for p in problems if p.level == "error"] == []


def test_base_is_clean_but_for_warnings():
    assert problems_of(BASE) == [
        "s.yaml:4:3: warning: devices.gpu: no price (hourly price or purchase): cost not computed (workload chat on gpu)",
        "s.yaml:10:3: warning: models.m7: the model has no architecture (layers, kv_heads, head_dim): "
        "KV cache not counted (workload chat on gpu)"]


@pytest.mark.parametrize("old,new,expected", [
    ("    memory: 80 GB", "    memroy: 80 GB",
     "s.yaml:7:5: error: devices.gpu.memroy: unknown key 'memroy'; did you mean 'memory'?"),
    ("memory_bandwidth: 2 TB/s", "memory_bandwidth: 2 TB",
     "s.yaml:8:23: error: devices.gpu.memory_bandwidth: expected a bandwidth like '2 TB/s', got '2 TB' "
     "(a memory size)"),
    ("memory_bandwidth: 2 TB/s", "memory_bandwidth: 10 Gb/s",
     "s.yaml:8:23: error: devices.gpu.memory_bandwidth: 'Gb' is ambiguous: write 'Gbit' for gigabits "
     "or 'GB' for gigabytes"),
    ("memory: 80 GB", "memory: -80 GB",
     "s.yaml:7:13: error: devices.gpu.memory: must be greater than zero, got '-80 GB'"),
    ("model: m7}", "model: m8}",
     "s.yaml:12:33: error: workloads.chat.model: unknown model 'm8'; did you mean 'm7'?"),
    ("{parameters: 7e9}", "{parameters: no}",
     "s.yaml:10:20: error: models.m7.parameters: 'no' is a boolean in YAML, not a number"),
    ("{parameters: 7e9}", "{parameters: 7e9, layers: 1:20}",
     "s.yaml:10:33: error: models.m7.layers: '1:20' is read by YAML 1.1 as a base-60 number; "
     "write the number you mean, or quote it if it is text"),
    ("{parameters: 7e9}", "{parameters: 7e9, layers: 017}",
     "s.yaml:10:33: error: models.m7.layers: '017' has a leading zero, which YAML 1.1 reads as octal; write 17"),
    ("    kind: gpu", "    kind: gpx",
     "s.yaml:5:11: error: devices.gpu.kind: did you mean 'gpu'? expected one of: cpu, gpu, tpu, npu, "
     "accelerator; got 'gpx'"),
    ("model: m7}", "model: m7, m: 3}",
     "s.yaml:12:37: error: workloads.chat.m: 'm' does not apply to a generate workload (it is a field of matmul)"),
    ("model: m7}", "model: m7, batch: 2.5}",
     "s.yaml:12:44: error: workloads.chat.batch: expected a whole number, got '2.5'"),
    ("    kind: gpu", "    kind: gpu\n    efficiency: 140 %",
     "s.yaml:6:17: error: devices.gpu.efficiency: must be at most 100 %, got '140 %'"),
    ("    kind: gpu", "    kind: gpu\n    price: 2.00 USD",
     "s.yaml:6:12: error: devices.gpu.price: expected a price per time like '2.00 USD/hour', got '2.00 USD' "
     "(an amount of money)"),
    ("    kind: gpu", "    kind: gpu\n    from: h100",
     "s.yaml:6:11: error: devices.gpu.from: unknown catalog entry 'h100'; `sizing catalog` lists them"),
    ("    kind: gpu", "    kind: gpu\n    cpu: {cores: 8, fma_units: 2, vector_width: 256 bit}",
     "s.yaml:6:10: error: devices.gpu.cpu: missing required field 'clock': sustained clock, e.g. '3 GHz'"),
    ("{kind: generate, model: m7}", "{kind: magic}",
     "s.yaml:12:16: error: workloads.chat.kind: expected one of: matmul, generate, forward, train; got 'magic'"),
    ("{kind: generate, model: m7}", "{kind: forward, tokens: 16}",
     "s.yaml:12:9: error: workloads.chat: a forward workload needs 'model' or 'parameters'"),
    ("name: t", "name: T t",
     "s.yaml:2:7: error: name: expected an id of lower-case letters, digits, '.', '_' and '-', got 'T t'"),
    ("sizing: 1", "sizing: 2", "s.yaml:1:9: error: sizing: expected one of 1, got '2'"),
    ("name: t", "name: t\ncompare: [gpu, tpu]",
     "s.yaml:3:16: error: compare: unknown device 'tpu' (the scenario's devices: gpu; a catalog device enters with "
     "`from:`; `sizing catalog` lists them, and none is named 'tpu')"),
    ("name: t", "name: t\ncompare: [gpu, nvidia-l4]",
     "s.yaml:3:16: error: compare: unknown device 'nvidia-l4' (the scenario's devices: gpu; the catalog entry "
     "'nvidia-l4' enters with `from: nvidia-l4`)"),
    ("name: t", "name: t\ncompare: [gpus]",
     "s.yaml:3:11: error: compare: unknown device 'gpus'; did you mean 'gpu'? (the scenario's devices: gpu; a catalog "
     "device enters with `from:`; `sizing catalog` lists them, and none is named 'gpus')"),
    ("name: t", "name: t\nsweep: {batch: [1, 0]}",
     "s.yaml:3:20: error: sweep.batch[1]: must be greater than zero, got '0'"),
    ("name: t", "name: t\ndecision: {objective: wibble}",
     "s.yaml:3:23: error: decision.objective: unknown quantity 'wibble'; e.g. latency, cost or monthly_cost "
     "(`sizing evaluate` lists the quantities of each workload)"),
    ("name: t", "name: t\ndecision: {require: [fits_memroy]}",
     "s.yaml:3:22: error: decision.require[0]: unknown requirement 'fits_memroy'; expected one of: "
     "fits_memory, fits, meets_targets, cloud, on-prem, edge"),
    ("name: t", "name: t\ntitle: \"a\\u0007b\"",
     "s.yaml:3:8: error: title: contains a control character (U+0007); remove it (an escape in quotes, such as "
     "\\e or \\x85, counts)"),
    ("name: t", "name: t\ndate: 2026-13",
     "s.yaml:3:7: error: date: expected a date 'YYYY-MM-DD', got '2026-13'"),
])
def test_one_mistake_one_precise_line(old, new, expected):
    errors = [p for p in problems_of(with_line(old, new)) if ": warning: " not in p]
    assert errors == [expected]


def test_all_problems_are_reported_together():
    text = with_line("    memory: 80 GB", "    memroy: 80 GB\n    price: 2 USD")
    text = text.replace("model: m7}", "model: m8}")
    lines = [p for p in problems_of(text) if ": warning: " not in p]
    assert len(lines) == 3
    assert [ln.split(": ")[0] for ln in lines] == ["s.yaml:7:5", "s.yaml:8:12", "s.yaml:13:33"]


def test_a_duplicate_key_does_not_hide_the_other_problems():
    """A new user saw one 'duplicate key' line, fixed it and met nine more: the document read (the first of the two
    keys kept) is checked too, so all come at once."""
    text = with_line("    memory: 80 GB", "    memory: 80 GB\n    memory: 90 GB\n    memroy: 80 GB")
    text = text.replace("model: m7}", "model: m8}")
    lines = [p for p in problems_of(text) if ": warning: " not in p]
    assert [ln.split(": ")[0] for ln in lines] == ["s.yaml:8:5", "s.yaml:9:5", "s.yaml:14:33"]
    assert "duplicate key 'memory' (first given at line 7)" in lines[0] and "memroy" in lines[1] and "m8" in lines[2]


def test_missing_required_fields():
    assert problems_of("name: x\n") == [
        "s.yaml:1:1: error: missing required field 'devices': devices by id",
        "s.yaml:1:1: error: missing required field 'sizing': format version: 1",
        "s.yaml:1:1: error: missing required field 'workloads': workloads by id",
    ]


def test_over_long_text_is_rejected_not_truncated():
    lines = problems_of(with_line("name: t", "name: t\ndescription: " + "x" * 5000))[:1]
    assert lines == ["s.yaml:3:14: error: description: is 5,000 characters long; the limit is 4,000"]


def test_defaults_are_recorded_with_their_source():
    from sizing.scenario import load_scenario_bytes
    scn, _ = load_scenario_bytes(BASE.encode(), "s.yaml")
    chat = scn.workloads["chat"]
    assert chat.get("precision") == "bf16" and chat.values["precision"].source == "default"
    assert chat.get("batch") == 1
    assert "efficiency" not in scn.devices["gpu"].values        # the family default is bound at evaluation


def test_family_defaults_are_inputs_with_their_evidence():
    from sizing.evaluate import evaluate
    from sizing.scenario import load_scenario_bytes
    scn, _ = load_scenario_bytes(BASE.encode(), "s.yaml")
    inputs = evaluate(scn).inputs
    eff = inputs["device.gpu.efficiency"].value
    assert eff.source.startswith("default for a gpu") and 0.2 < eff.value < 0.9
    assert inputs["device.gpu.layer_overhead"].value.unit == "s"
    # a stated compute efficiency is what training runs at too, unless train_efficiency is given
    text = with_line("    kind: gpu", "    kind: gpu\n    efficiency: 42 %")
    scn, _ = load_scenario_bytes(text.encode(), "s.yaml")
    binder = __import__("sizing.evaluate", fromlist=["Binder"]).Binder(scn)
    refs = binder.pair_inputs(scn.workloads["chat"], scn.devices["gpu"], "bf16")
    assert refs["train_efficiency"].key == refs["efficiency"].key == "device.gpu.efficiency"


def test_catalog_entries_merge_under_overrides():
    text = with_line("    kind: gpu", "    from: illustrative-accelerator\n    price: 3 USD/hour")
    from sizing.scenario import load_scenario_bytes
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    gpu = scn.devices["gpu"]
    assert gpu.get("price") == pytest.approx(3 / 3600)
    assert gpu.values["price"].source == "scenario line 6"
    assert gpu.values["link.bandwidth"].source.startswith("catalog illustrative-accelerator: illustrative (")


def test_benchmark_record_file_problems_are_located(tmp_path):
    (tmp_path / "rec.json").write_text('{"throughput_output_tokens_per_s": "fast", "hourly_cost_usd": 2}')
    scn = tmp_path / "s.yaml"
    scn.write_text(BASE + "benchmarks:\n  - file: rec.json\n")
    _, problems = load_scenario(scn)
    assert [str(p) for p in problems] == [
        f"{tmp_path}/rec.json:1:36: error: throughput_output_tokens_per_s: "
        "expected a number like 7e9 or 7_000_000_000, got 'fast'"]


def test_json_schema_describes_the_language():
    schema = json_schema()
    json.dumps(schema)
    props = schema["properties"]
    assert set(props) >= {"sizing", "name", "devices", "models", "workloads", "compare", "sweep", "decision",
                          "benchmarks"}
    device = props["devices"]["additionalProperties"]
    assert device["properties"]["memory_bandwidth"]["examples"] == ["2 TB/s"]
    kinds = [v["if"]["properties"]["kind"]["const"] for v in props["workloads"]["additionalProperties"]["allOf"]]
    assert kinds == ["matmul", "generate", "forward", "train"]


SWEPT = BASE.replace("chat: {kind: generate, model: m7}",
                     "chat: {kind: generate, model: m7, batch: 16, output_tokens: 300,\n"
                     "         traffic: {peak: 10 request/s, max_utilisation: 70 %}}")


def test_any_numeric_workload_field_can_be_swept_with_its_units():
    from sizing.evaluate import evaluate
    from sizing.scenario import load_scenario_bytes
    text = SWEPT + "sweep: {traffic.peak: {from: 1 request/s, to: 100 request/s, points: 5}}\n"
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    (s,) = evaluate(scn).sweeps
    assert s.parameter == "traffic.peak" and s.values == [1.0, 25.75, 50.5, 75.25, 100.0]
    replicas = list(s.series["gpu"]["replicas"])
    assert replicas == sorted(replicas) and replicas[0] < replicas[-1]


def test_sweep_problems():
    assert problems_of(SWEPT + "sweep: {traffic.peak: [1 request/s, 2 TB]}\n")[0] == (
        "s.yaml:14:37: error: sweep.traffic.peak[1]: expected a request rate like '20 request/s', got '2 TB' "
        "(a memory size)")
    assert problems_of(SWEPT + "sweep: {bacth: [1, 2]}\n")[0] == (
        "s.yaml:14:9: error: sweep.bacth: unknown key 'bacth'; did you mean 'batch'?")
    assert "s.yaml:14:9: warning: sweep.tokens: no compared workload has 'tokens' to sweep; nothing was swept" in (
        problems_of(SWEPT + "sweep: {tokens: [1, 2]}\n"))
    assert problems_of(SWEPT + "sweep: {batch: {from: 0, to: 8, points: 3, scale: log}}\n")[0] == (
        "s.yaml:14:23: error: sweep.batch.from: must be greater than zero, got '0'")
