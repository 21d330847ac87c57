"""Hostile and broken input: a located message, exit 1, no traceback, nothing written, quickly."""

import os
import time

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sizing.cli import main
from sizing.errors import OutputError
from sizing.evaluate import evaluate
from sizing.output import build_datetime, write_atomic
from sizing.scenario import load_scenario_bytes

GOOD = """\
sizing: 1
name: good
devices:
  gpu:
    kind: gpu
    compute: {bf16: 200 TFLOP/s}
    memory: 80 GB
    memory_bandwidth: 2 TB/s
    price: 2 USD/hour
models:
  m: {parameters: 7e9, layers: 32, kv_heads: 8, head_dim: 128}
workloads:
  chat: {kind: generate, model: m, batch: 8, input_tokens: 100, output_tokens: 50}
"""

# (case id, scenario text or bytes, expected "line:col: error: path: message" fragment)
CASES = [
    ("alias-bomb", "a: &a [1, 2]\nb: [*a, *a]\n", "1:4: error: a: anchors and aliases are not allowed"),
    ("recursion", "a: " + "[" * 200 + "]" * 200 + "\n", "nesting deeper than 32 levels"),
    ("duplicate", GOOD.replace("    memory: 80 GB", "    memory: 80 GB\n    memory: 40 GB"),
     "8:5: error: devices.gpu.memory: duplicate key 'memory' (first given at line 7); keep one"),
    ("tag", "sizing: !!python/object/apply:os.system [echo]\n", "tags are not allowed"),
    ("custom-tag", GOOD.replace("memory: 80 GB", "memory: !gb 80"), "tags are not allowed ('!gb')"),
    ("merge-key", GOOD.replace("    kind: gpu", "    <<: {kind: gpu}"), "merge keys ('<<') are not allowed"),
    ("huge", b"a: " + b"x" * 200_001, "the limit is 200,000"),
    ("bad-utf8", GOOD.encode().replace(b"name: good", b"name: g\xffod"), "2:8: error: invalid UTF-8"),
    ("nul", GOOD.replace("name: good", "name: g\x00od"), "control character U+0000 is not allowed"),
    ("two-documents", GOOD + "---\nsizing: 1\n", "more than one YAML document"),
    ("empty", "", "the file is empty"),
    ("not-a-mapping", "- 1\n- 2\n", "a scenario is a mapping that starts with 'sizing: 1'"),
    ("yaml11-no-key", GOOD.replace("  gpu:", "  no:"), "key 'no' is read as a boolean by YAML 1.1 tools"),
    ("yaml11-sexagesimal", GOOD.replace("batch: 8", "batch: 1:20"), "read by YAML 1.1 as a base-60 number"),
    ("yaml11-octal", GOOD.replace("batch: 8", "batch: 017"), "'017' has a leading zero"),
    ("yaml11-bool", GOOD.replace("batch: 8", "batch: yes"), "'yes' is a boolean in YAML, not a number"),
    ("wrong-dimension", GOOD.replace("2 TB/s", "2 TB"), "expected a bandwidth like '2 TB/s', got '2 TB'"),
    ("unknown-unit", GOOD.replace("2 TB/s", "2 TBps"), "unknown unit 'TBps'"),
    ("gigabit", GOOD.replace("2 TB/s", "200 Gb/s"), "'Gb' is ambiguous"),
    ("dollar-only", GOOD.replace("2 USD/hour", "$"), "devices.gpu.price"),
    ("power-tower", GOOD.replace("80 GB", "10**10**10 B"), "devices.gpu.memory"),
    ("nan", GOOD.replace("80 GB", "nan GB"), "is not a finite number"),
    ("inf", GOOD.replace("80 GB", "inf GB"), "is not a finite number"),
    ("overflow", GOOD.replace("80 GB", "1e999 GB"), "is not a finite number"),
    ("zero-bandwidth", GOOD.replace("2 TB/s", "0 TB/s"), "must be greater than zero, got '0 TB/s'"),
    ("negative-memory", GOOD.replace("80 GB", "-80 GB"), "must be greater than zero, got '-80 GB'"),
    ("zero-batch", GOOD.replace("batch: 8", "batch: 0"), "must be greater than zero, got '0'"),
    ("unknown-key", GOOD.replace("    memory: 80 GB", "    memroy: 80 GB"), "did you mean 'memory'?"),
    ("missing-model", GOOD.replace("model: m,", "model: n,"), "unknown model 'n'"),
    ("out-of-range", GOOD.replace("    kind: gpu", "    kind: gpu\n    efficiency: 120 %"),
     "must be at most 100 %, got '120 %'"),
    ("too-many-digits", GOOD.replace("7e9", "1234567890123456789"), "has more than 15 significant digits"),
    ("control-char", GOOD.replace("name: good", "name: good\ntitle: \"bell\\a\""),
     "contains a control character"),
    ("lone-surrogate", GOOD.replace("name: good", "name: good\ntitle: \"x\\ud800\""),
     "contains an unpaired surrogate (U+D800)"),
    ("over-long-text", GOOD.replace("name: good", "name: good\ndescription: " + "y" * 4001),
     "is 4,001 characters long; the limit is 4,000"),
    ("formula-like-name", GOOD.replace("  gpu:", "  =cmd|calc:"),
     "an id uses lower-case letters, digits, '.', '_' and '-' only"),
    ("html-like-id", GOOD.replace("  gpu:", "  \"<b>x</b>\":"), "an id uses lower-case letters"),
    ("syntax", "sizing: 1\nname: [\n", "expected"),
    ("tab-indent", "sizing: 1\n\tname: x\n", "1"),
]


@pytest.mark.parametrize("case,text,expected", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_located_and_writes_nothing(tmp_path, case, text, expected):
    path = tmp_path / "s.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    out = tmp_path / "out"
    start = time.perf_counter()
    for args in (["validate", str(path)], ["evaluate", str(path)], ["build", str(path), "--out", str(out)]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 1, (args, res.output)
        assert "Traceback" not in res.output and res.exception is None or isinstance(res.exception, SystemExit)
        lines = res.stderr.splitlines()
        assert lines and all(ln.startswith(f"{path}:") for ln in lines), lines
        assert any(expected in ln for ln in lines), lines
    assert time.perf_counter() - start < 3          # three commands, each well under a second
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.yaml"]


def test_at_least_thirty_distinct_cases():
    assert len({c[0] for c in CASES}) >= 30


def test_write_atomic_replaces_and_leaves_no_temp_files(tmp_path):
    target = tmp_path / "r.pdf"
    write_atomic(target, b"one")
    write_atomic(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in tmp_path.iterdir()] == ["r.pdf"]


def test_a_failed_write_keeps_the_previous_output(tmp_path, monkeypatch):
    target = tmp_path / "r.pdf"
    target.write_bytes(b"previous")

    def boom(*a):
        raise KeyboardInterrupt          # killed mid-write

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, b"new")
    assert target.read_bytes() == b"previous"
    assert [p.name for p in tmp_path.iterdir()] == ["r.pdf"]


def test_refuses_to_overwrite_an_input_even_through_a_symlink(tmp_path):
    src = tmp_path / "s.yaml"
    src.write_text(GOOD)
    link = tmp_path / "link.xlsx"
    link.symlink_to(src)
    for target in (src, link):
        with pytest.raises(OutputError, match="refusing to overwrite an input file"):
            write_atomic(target, b"x", inputs=(src,))
    assert src.read_text() == GOOD


def test_unwritable_directory_is_exit_3(tmp_path):
    src = tmp_path / "s.yaml"
    src.write_text(GOOD)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    res = CliRunner().invoke(main, ["workbook", str(src), "-o", str(blocker / "x.xlsx")])
    assert res.exit_code == 3 and "cannot write in" in res.stderr and "Not a directory" in res.stderr   # before rendering


def test_output_equal_to_input_is_refused_with_exit_3(tmp_path):
    src = tmp_path / "s.yaml"
    src.write_text(GOOD)
    link = tmp_path / "s.xlsx"
    link.symlink_to(src)
    res = CliRunner().invoke(main, ["workbook", str(src), "-o", str(link)])
    assert res.exit_code == 3 and "refusing to overwrite an input file" in res.stderr
    assert src.read_text() == GOOD


def test_source_date_epoch_is_honoured(monkeypatch):
    scn, _ = load_scenario_bytes(GOOD.encode(), "s.yaml")
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    assert build_datetime(scn).year == 2000
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    assert build_datetime(scn).isoformat() == "2026-01-01T00:00:00"


# -- properties -------------------------------------------------------------------------------
quantity = st.tuples(st.floats(0.001, 1e4), st.sampled_from(["GB", "GiB", "MB", "TB"]))
rate = st.tuples(st.floats(0.1, 5000), st.sampled_from(["TFLOP/s", "GFLOP/s"]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mem=quantity, bw=st.floats(0.01, 20), peak=rate, params=st.floats(1e6, 1e12),
       batch=st.integers(1, 4096), tokens=st.integers(1, 200_000), eff=st.floats(0.01, 1),
       price=st.floats(0.01, 100), peak_traffic=st.floats(0.01, 1000), kind=st.sampled_from(["generate", "forward"]))
def test_any_valid_scenario_evaluates_to_finite_numbers(mem, bw, peak, params, batch, tokens, eff, price,
                                                         peak_traffic, kind):
    text = f"""\
sizing: 1
name: prop
devices:
  d:
    compute: {{bf16: {peak[0]!r} {peak[1]}}}
    efficiency: {eff!r}
    memory: {mem[0]!r} {mem[1]}
    memory_bandwidth: {bw!r} TB/s
    price: {price!r} USD/hour
models:
  m: {{parameters: {params!r}, layers: 32, kv_heads: 8, head_dim: 128}}
workloads:
  w:
    kind: {kind}
    model: m
    precision: bf16
    {"batch: " + str(batch) if kind == "generate" else "tokens: " + str(tokens)}
    traffic: {{peak: {peak_traffic!r} request/s, max_utilisation: 80 %}}
    targets: {{{"ttft_p95" if kind == "generate" else "latency_p95"}: 2 s}}
"""
    scn, problems = load_scenario_bytes(text.encode(), "p.yaml")
    assert scn is not None, problems
    r = evaluate(scn)
    for p in r.pairs:
        for qid, v in p.values.items():
            if isinstance(v, float):
                assert v == v and abs(v) != float("inf"), (qid, v)
            else:
                assert isinstance(v, bool) or v in ("memory", "compute", "own", "reserved", "rent", None), (qid, v)


# Any Unicode at all (control characters, surrogates, noncharacters, line separators, direction overrides, and
# the characters a spreadsheet or a terminal treats specially), written as a YAML double-quoted scalar.
text_st = (st.text(st.characters(categories=("L", "M", "N", "P", "S", "Zs")), min_size=1, max_size=60)
           | st.text(st.characters() | st.sampled_from("\t\n\r\x1b\x85\u2028\u202e\ufffe\U0001fffe=+-@"),
                     min_size=1, max_size=120)).filter(lambda s: s.strip() == s and s.strip())


def with_texts(title: str, name: str, source: str) -> bytes:
    import json

    q = lambda s: json.dumps(s, ensure_ascii=False)  # noqa: E731  (a YAML double-quoted scalar)
    text = GOOD.replace("name: good", f"name: good\ntitle: {q(title)}").replace(
        "    kind: gpu", f"    kind: gpu\n    name: {q(name)}\n    source: {q(source)}")
    return text.encode("utf-8", "surrogatepass")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(title=text_st, name=text_st, source=text_st)
def test_any_text_validates_and_renders_in_every_output_or_is_a_located_error(title, name, source):
    """A text field with arbitrary Unicode either validates, and then renders unchanged in the terminal table (one
    line each, nothing a terminal acts on), CSV (never a formula), JSON and the workbook (a text cell openpyxl
    reads back exactly), or is refused with located problems and nothing loaded."""
    import csv
    import io
    import json

    import openpyxl

    from sizing.errors import CODES
    from sizing.loader import FORBIDDEN
    from sizing.render.data import to_csv, to_json
    from sizing.render.table import render
    from sizing.render.workbook import workbook_bytes

    scn, problems = load_scenario_bytes(with_texts(title, name, source), "p.yaml")
    if scn is None:
        assert problems and all(p.file == "p.yaml" and p.line >= 2 and p.col >= 1 and p.code in CODES
                                for p in problems)
        assert not any(FORBIDDEN.search(str(p)) or "\n" in str(p) for p in problems)   # quoted text is escaped
        return
    assert scn.title == title and scn.devices["gpu"].get("name") == name
    r = evaluate(scn)
    table = render(r)
    assert FORBIDDEN.search(table) is None and title in table.split("\n")[0]       # the title, on one line
    rows = list(csv.reader(io.StringIO(to_csv(r))))
    assert all(not (isinstance(c, str) and c[:1] in "=+-@") for row in rows[1:] for c in row[:4])
    assert json.loads(to_json(r))["scenario"]["title"] == title
    wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(r)))
    cells = [c for ws in wb.worksheets for row in ws.iter_rows() for c in row if c.value is not None]
    texts = [c.value for c in cells if c.data_type == "s"]
    assert title in texts                                          # exactly, in a cell of its own
    assert any(t.endswith(f": {name}") for t in texts)             # the device's section heading
    assert any(t.startswith(source) for t in texts)                # the source column
    assert not any(c.data_type == "f" and c.value in (title, name, source) for c in cells)   # never a formula


@pytest.mark.slow
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(title=text_st, name=text_st)
def test_any_text_that_validates_renders_in_the_report(title, name):
    """The PDF report renders whatever text validates, and a PDF reader opens it (a font may lack a glyph, so the
    text itself is not compared)."""
    import io

    from pypdf import PdfReader

    from sizing.render.report import report_bytes

    scn, _ = load_scenario_bytes(with_texts(title, name, "catalog"), "p.yaml")
    if scn is not None:
        pdf = report_bytes(evaluate(scn))
        assert len(PdfReader(io.BytesIO(pdf)).pages) > 3


@settings(max_examples=300, deadline=None)
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
       | st.builds(lambda n, u: f"{n} {u}", st.floats(allow_nan=True, allow_infinity=True),
                   st.sampled_from(["TB/s", "GB/s", "GiB/s", "Gbit/s", "TB", "B/s", "Gb/s", "kB/ms"])))
def test_a_positive_field_gets_a_positive_finite_value_or_a_located_problem(text):
    import json
    scenario = GOOD.replace("memory_bandwidth: 2 TB/s", f"memory_bandwidth: {json.dumps(text)}")
    scn, problems = load_scenario_bytes(scenario.encode("utf-8", "surrogatepass"), "p.yaml")
    if scn is None:
        assert problems and all(p.file == "p.yaml" and p.line >= 1 and p.col >= 1 for p in problems)
    else:
        v = scn.devices["gpu"].get("memory_bandwidth")
        assert 0 < v < float("inf")


def test_impossible_dates_and_empty_tables_are_problems_not_crashes(tmp_path):
    assert [str(p) for p in load_scenario_bytes(GOOD.replace("name: good", "name: good\ndate: 2026-02-30").encode(),
                                                 "s.yaml")[1]] == [
        "s.yaml:3:7: error: date: '2026-02-30' is not a calendar date"]
    _, problems = load_scenario_bytes(b"sizing: 1\nname: e\ndevices: {}\nworkloads: {}\n", "s.yaml")
    assert [str(p) for p in problems] == [
        "s.yaml:3:10: error: devices: no devices given; a scenario needs at least one",
        "s.yaml:4:12: error: workloads: no workloads given; a scenario needs at least one"]


def test_average_above_peak_is_an_error():
    text = GOOD.replace("output_tokens: 50}", "output_tokens: 50,\n         traffic: {peak: 2 request/s, "
                        "average: 3 request/s}}")
    assert [str(p) for p in load_scenario_bytes(text.encode(), "s.yaml")[1]] == [
        "s.yaml:14:48: error: workloads.chat.traffic.average: the average '3 request/s' is above the peak "
        "'2 request/s'"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_build_writes_all_or_nothing(tmp_path, monkeypatch, jobs):
    import sizing.cli as cli

    for name in ("a", "b"):
        (tmp_path / f"{name}.yaml").write_text(GOOD.replace("name: good", f"name: {name}"))
    calls = []

    def flaky(results):
        calls.append(results.scenario.name)
        if results.scenario.name == "b":
            raise RuntimeError("renderer failed")
        return b"xlsx"

    monkeypatch.setattr(cli, "render_workbook", flaky)
    monkeypatch.setattr(cli, "render_report", lambda results, xlsx: b"pdf")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["build", str(tmp_path), "--out", str(out), "--jobs", jobs])
    assert res.exit_code != 0 and not out.exists()
    if jobs == "1":                                  # in this process: the second rendering failed, after the first
        assert calls == ["a", "b"]
    else:                                            # in forked workers: b's failure reaches the parent
        assert "renderer failed" in str(res.exception)


def test_output_name_must_match_the_kind_of_file(tmp_path):
    src = tmp_path / "s.yaml"
    src.write_text(GOOD)
    res = CliRunner().invoke(main, ["workbook", str(src), "-o", str(tmp_path / "x.pdf")])
    assert res.exit_code == 2 and "the output of this command is a .xlsx file" in res.stderr
    assert not (tmp_path / "x.pdf").exists()


def test_a_killed_render_leaves_the_previous_output_and_the_next_run_clears_its_temp_file(tmp_path):
    import signal
    import subprocess
    import sys

    target = tmp_path / "r.pdf"
    target.write_bytes(b"previous")
    code = (f"import os, sizing.output as o\n"
            f"real = os.fsync\n"
            f"def stop(fd):\n    real(fd); os.kill(os.getpid(), {int(signal.SIGKILL)})\n"
            f"os.fsync = stop\n"
            f"o.write_atomic({str(target)!r}, b'new')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True)
    assert proc.returncode == -signal.SIGKILL
    assert target.read_bytes() == b"previous"                   # the kill came before the rename
    assert len(list(tmp_path.glob(".r.pdf.*.tmp"))) == 1        # what a killed process leaves ...
    write_atomic(target, b"next")
    assert target.read_bytes() == b"next" and [p.name for p in tmp_path.iterdir()] == ["r.pdf"]   # ... is cleared
