"""Every problem carries a stable code: pinned per kind of bad input, documented in the README."""

import json
import re

import pytest
from click.testing import CliRunner

import test_hardening as H
import test_schema as T
from helpers import ROOT
from sizing.cli import main
from sizing.errors import CODES, Problem
from sizing.evaluate import evaluate
from sizing.hfconfig import read_config
from sizing.scenario import load_scenario_bytes


def problems(text: str | bytes) -> list[Problem]:
    """Every problem of an inline scenario: loading, then evaluating."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    scn, found = load_scenario_bytes(data, "s.yaml")
    return found + (evaluate(scn).problems if scn is not None else [])


def codes_where(text: str | bytes, fragment: str) -> set[str]:
    """The codes of the problems whose printed line contains `fragment`."""
    found = {p.code for p in problems(text) if fragment in str(p)}
    assert found, [str(p) for p in problems(text)]
    return found


# The code of each of test_hardening's hostile inputs, by case id.
HARDENING = {
    "alias-bomb": "yaml-anchor", "recursion": "too-deep", "duplicate": "yaml-duplicate-key", "tag": "yaml-tag",
    "custom-tag": "yaml-tag", "merge-key": "yaml-merge", "huge": "file-too-large", "bad-utf8": "bad-encoding",
    "nul": "control-character", "two-documents": "yaml-documents", "empty": "empty-file",
    "not-a-mapping": "wrong-shape", "yaml11-no-key": "yaml-ambiguous-key", "yaml11-sexagesimal": "yaml-base60",
    "yaml11-octal": "yaml-octal", "yaml11-bool": "yaml-boolean", "wrong-dimension": "unit-dimension",
    "unknown-unit": "unit-unknown", "gigabit": "unit-ambiguous", "dollar-only": "not-a-number",
    "power-tower": "unit-syntax", "nan": "not-finite", "inf": "not-finite", "overflow": "not-finite",
    "zero-bandwidth": "out-of-range", "negative-memory": "out-of-range", "zero-batch": "out-of-range",
    "unknown-key": "unknown-key", "missing-model": "unknown-reference", "out-of-range": "out-of-range",
    "too-many-digits": "too-many-digits", "control-char": "control-character",
    "lone-surrogate": "control-character", "over-long-text": "text-too-long", "formula-like-name": "bad-id",
    "html-like-id": "bad-id", "syntax": "yaml-syntax", "tab-indent": "yaml-syntax",
}


def test_every_hardening_case_has_a_pinned_code():
    assert set(HARDENING) == {case for case, _, _ in H.CASES}


@pytest.mark.parametrize("case,text,expected", H.CASES, ids=[c[0] for c in H.CASES])
def test_hostile_input_codes(case, text, expected):
    fragment = expected if case != "tab-indent" else "tabs"
    assert codes_where(text, fragment) == {HARDENING[case]}


# The code of each of test_schema's one-mistake inputs, in the order test_schema lists them.
ONE_MISTAKE = [
    "unknown-key", "unit-dimension", "unit-ambiguous", "out-of-range", "unknown-reference", "yaml-boolean",
    "yaml-base60", "yaml-octal", "bad-enum", "unknown-key", "not-an-integer", "out-of-range", "unit-dimension",
    "unknown-catalog-entry", "missing-field", "bad-enum", "missing-field", "bad-id", "bad-enum",
    "unknown-reference", "unknown-reference", "unknown-reference", "out-of-range", "unknown-quantity", "bad-enum",
    "control-character", "bad-date",
]
MISTAKES = next(m.args[1] for m in T.test_one_mistake_one_precise_line.pytestmark if m.name == "parametrize")


@pytest.mark.parametrize("old,new,expected,code", [(*m, c) for m, c in zip(MISTAKES, ONE_MISTAKE, strict=True)],
                         ids=ONE_MISTAKE)
def test_one_mistake_codes(old, new, expected, code):
    errors = [p for p in problems(T.with_line(old, new)) if p.level == "error"]
    assert [(str(p), p.code) for p in errors] == [(expected, code)]


# Inputs of the other kinds of problem: (scenario text, fragment of the printed line, code).
BASE = T.BASE
OTHERS = [
    (BASE.replace("name: t", "name: t\ndate: 2026-02-30"), "is not a calendar date", "bad-date"),
    (b"sizing: 1\nname: e\ndevices: {}\nworkloads: {}\n", "no devices given", "empty-mapping"),
    (H.GOOD.replace("output_tokens: 50}", "output_tokens: 50, traffic: {peak: 2 request/s, average: 3 request/s}}"),
     "is above the peak", "average-above-peak"),
    (BASE + "sweep: {bacth: [1, 2]}\n", "unknown key 'bacth'", "unknown-key"),
    (BASE + "sweep: {batch: [1, 2], tokens: [1], size: [8]}\n", "sweep one field", "sweep-one-field"),
    (BASE + "sweep: {batch: {from: 1, to: 100, points: 100}, tokens: [1, 2, 3, 4, 5]}\n", "a grid of 100 x 5",
     "sweep-grid-too-large"),
    (BASE + "sweep: {batch: 8}\n", "expected a non-empty list", "wrong-shape"),
    (BASE + "sweep: {batch: {from: 1, to: 8, points: 20000000}}\n", "at most 1,000,000 points", "out-of-range"),
    (BASE + "sweep: {workload: chit, batch: [1]}\n", "unknown workload 'chit'", "unknown-reference"),
    (BASE + "compare: [gpu, gpu]\n", "'gpu' is listed twice", "duplicate-entry"),
    (BASE + "compare: gpu\n", "expected a list", "wrong-shape"),
    (BASE + "decision: {objective: batch_job_time}\n", "is not computed for", "objective-not-computed"),
    (BASE + "decision: {workload: chit}\n", "unknown workload 'chit'", "unknown-reference"),
    (BASE + "decision: {require: [{a: 1}]}\n", "got a mapping", "wrong-shape"),
    (BASE.replace("    memory: 80 GB", "    memory:"), "no value given", "missing-value"),
    (BASE.replace("    memory: 80 GB", "    memory: {a: 1}"), "got a mapping", "wrong-shape"),
    (BASE.replace("    memory: 80 GB", "    memory: 80"), "a number without a unit", "unit-missing"),
    (BASE.replace("    memory: 80 GB", "    memory: 1e300 EB"), "is too large", "too-large"),
    (BASE.replace("    memory: 80 GB", "    memory: fast"), "expected a memory size like '80 GB', got 'fast'",
     "not-a-number"),
    (BASE.replace("    memory: 80 GB", "    memory: 80 GB/("), "cannot read the unit", "unit-syntax"),
    (BASE.replace("{parameters: 7e9}", "{parameters: 0x1F}"), "is not a decimal number", "not-decimal"),
    (BASE.replace("    memory: 80 GB", "    memory: 80 GB\n    illustrative: yes"), "expected true or false",
     "not-a-boolean"),
    (BASE.replace("    compute: {bf16: 200 TFLOP/s}", "    compute: {bf17: 200 TFLOP/s}"), "unknown key 'bf17'",
     "unknown-key"),
    (BASE.replace("    compute: {bf16: 200 TFLOP/s}", "    compute: 200 TFLOP/s"), "expected a mapping, e.g.",
     "wrong-shape"),
    (BASE.replace("  gpu:\n    kind: gpu", "  gpu:\n    kind: gpu\n    link: 25 GB/s"), "expected a mapping of",
     "wrong-shape"),
    (BASE.replace("{kind: generate, model: m7}", "{kind: generate, model: m7, devices: {tpu: 2}}"),
     "unknown device 'tpu'", "unknown-reference"),
    (BASE.replace("chat: {kind: generate, model: m7}", "chat: {model: m7}"), "missing required field 'kind'",
     "missing-field"),
    (BASE.replace("devices:\n", "devices: [gpu]\nx:\n"), "expected a mapping of ids", "wrong-shape"),
    (BASE + "benchmarks: {a: 1}\n", "expected a list of records", "wrong-shape"),
    (BASE + "benchmarks:\n  - {id: b1}\n", "missing 'throughput_output_tokens_per_s'", "missing-field"),
    (BASE + "benchmarks:\n  - {id: b1, throughput_output_tokens_per_s: 1, hourly_cost_usd: 1}\n"
            "  - {id: b1, throughput_output_tokens_per_s: 1, hourly_cost_usd: 1}\n",
     "is used twice", "duplicate-entry"),
    (BASE + "benchmarks:\n  - {workload: mx, throughput_output_tokens_per_s: 1, hourly_cost_usd: 1}\n",
     "unknown workload 'mx'", "unknown-reference"),
    (b"sizing: 1\n[a]: 1\n", "keys must be plain text", "yaml-key-not-text"),
    (b"a: &x 1\nb: *x\n", "2:4: error: b: anchors and aliases", "yaml-alias"),
]


@pytest.mark.parametrize("text,fragment,code", OTHERS, ids=[c for _, _, c in OTHERS])
def test_other_problem_codes(text, fragment, code):
    assert codes_where(text, fragment) == {code}


def test_a_benchmark_tied_to_a_workload_of_another_kind():
    text = BASE.replace("  chat: {kind: generate, model: m7}\n",
                        "  chat: {kind: generate, model: m7}\n  mm: {kind: matmul, m: 8, n: 8, k: 8}\n")
    text += "benchmarks:\n  - {workload: mm, throughput_output_tokens_per_s: 1, hourly_cost_usd: 1}\n"
    assert codes_where(text, "is not a generate workload") == {"wrong-workload-kind"}


def test_files_a_scenario_names(tmp_path):
    scenario = tmp_path / "s.yaml"
    scenario.write_text(BASE.replace("{parameters: 7e9}", "{config: missing.json}")
                        + "benchmarks:\n  - file: rec.json\n")
    (tmp_path / "rec.json").write_text('{"a": 1, "a": 2}')
    from sizing.scenario import load_scenario
    _, found = load_scenario(scenario)
    assert {(p.path, p.code) for p in found} == {("models.m7.config", "file-unreadable"),
                                                 ("benchmarks[0].file", "yaml-duplicate-key")}
    _, found = load_scenario(tmp_path / "nope.yaml")
    assert [p.code for p in found] == ["file-unreadable"]


CONFIGS = [
    ('[{"hidden_size": 4096}]', "got a list", "wrong-shape"),
    ("", "the file is empty", "empty-file"),
    ('{"model_type": "mamba", "hidden_size": 1}', "unsupported architecture", "unsupported-architecture"),
    ('{"model_type": "llama", "hidden_size": 4096}', "missing 'num_hidden_layers'", "missing-field"),
    ('{"model_type": "llama", "hidden_size": "4096"}', "hidden_size: expected", "not-an-integer"),
    ('{"model_type": "llama", "hidden_size": 0}', "hidden_size: expected", "out-of-range"),
    ('{"model_type": "llama", "hidden_size": 4000000000}', "beyond any real model", "out-of-range"),
    ('{"model_type": "llama", "hidden_size": {"a": 1}}', "hidden_size: expected", "wrong-shape"),
    ('{"model_type": "falcon", "hidden_size": 64, "num_attention_heads": 8, "num_hidden_layers": 2, '
     '"intermediate_size": 256, "vocab_size": 100}', "no parameter formula", "unknown-model-type"),
    ('{"model_type": "llava", "text_config": {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 8, '
     '"num_hidden_layers": 2, "intermediate_size": 256, "vocab_size": 100}}', "text_config only", "text-config-only"),
    ('{"model_type": "llama",', "expected", "yaml-syntax"),
]


@pytest.mark.parametrize("text,fragment,code", CONFIGS, ids=[c for _, _, c in CONFIGS])
def test_config_problem_codes(tmp_path, text, fragment, code):
    path = tmp_path / "config.json"
    path.write_text(text)
    found = {p.code for p in read_config(path, "config.json")[1] if fragment in str(p)}
    assert found == {code}


def test_every_loading_problem_has_a_documented_code():
    inputs = [t for _, t, _ in H.CASES] + [T.with_line(o, n) for o, n, _ in MISTAKES] + [t for t, _, _ in OTHERS]
    scn_problems = [p for text in inputs
                    for p in load_scenario_bytes(text if isinstance(text, bytes) else
                                                 text.encode("utf-8", "surrogatepass"), "s.yaml")[1]]
    assert scn_problems and all(p.code in CODES for p in scn_problems), [p for p in scn_problems if not p.code]


def test_an_undocumented_code_is_refused():
    with pytest.raises(ValueError, match="undocumented problem code 'no-such-code'"):
        Problem("s.yaml", 1, 1, "", "m", code="no-such-code")


def test_the_printed_line_does_not_change_and_json_carries_the_code(tmp_path):
    p = Problem("s.yaml", 3, 5, "devices.gpu.memroy", "unknown key 'memroy'", code="unknown-key")
    assert str(p) == "s.yaml:3:5: error: devices.gpu.memroy: unknown key 'memroy'"
    assert p.as_dict()["code"] == "unknown-key"
    bad = tmp_path / "bad.yaml"
    bad.write_text(BASE.replace("    memory: 80 GB", "    memroy: 80 GB"))
    doc = json.loads(CliRunner().invoke(main, ["validate", "--format", "json", str(bad)]).stdout)
    assert [(p["line"], p["column"], p["code"]) for p in doc["problems"] if p["level"] == "error"] == [
        (7, 5, "unknown-key")]


def test_codes_are_kebab_case_and_the_readme_lists_each_with_its_meaning():
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", c) for c in CODES)
    section = (ROOT / "README.md").read_text().split("### Problem codes", 1)[1].split("\n## ", 1)[0]
    assert dict(re.findall(r"^\| `([a-z0-9-]+)` \| (.+) \|$", section, re.MULTILINE)) == CODES


def test_every_quantity_is_listed_in_the_readme():
    from sizing import formulas as F
    readme = (ROOT / "README.md").read_text()
    assert [d.id for d in F.QUANTITIES if f"`{d.id}`" not in readme] == []
