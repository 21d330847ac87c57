"""Hostile input, round two (issue 19): no file contents leak, no hang on a pipe, no spoofed lines, no formula in
a CSV cell, ASCII digits only, a validated SOURCE_DATE_EPOCH, and no two outputs of one build with the same name."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from sizing.cli import main
from sizing.errors import CODES
from sizing.loader import FORBIDDEN
from sizing.scenario import load_scenario, load_scenario_bytes
from test_hardening import GOOD

SECRET = "root:x:0:0:do-not-print-me"
MODEL = "models:\n  m: {parameters: 7e9, layers: 32, kv_heads: 8, head_dim: 128}\n"


def scenario_in(folder: Path, models: str = MODEL, extra: str = "") -> Path:
    path = folder / "s.yaml"
    path.write_text(GOOD.replace(MODEL, models) + extra)
    return path


def validate(path: Path, *more: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sizing.cli", "validate", str(path), *more], capture_output=True,
                          text=True, timeout=60, env={**os.environ, **(env or {})})


@pytest.mark.parametrize("config", ["../secret.txt", "/etc/passwd", "link.json"])
def test_a_config_outside_the_scenarios_folder_is_never_read(tmp_path, config):
    (tmp_path / "secret.txt").write_text(SECRET)
    inner = tmp_path / "project"
    inner.mkdir()
    (inner / "link.json").symlink_to(tmp_path / "secret.txt")          # a link out of the folder counts as outside
    path = scenario_in(inner, f"models:\n  m: {{config: \"{config}\"}}\n")
    done = validate(path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "do-not-print-me" not in done.stdout + done.stderr and "root:" not in done.stdout + done.stderr
    assert f"s.yaml:11:15: error: models.m.config: '{config}' is outside the scenario's folder" in done.stderr
    _, problems = load_scenario(path)
    assert [p.code for p in problems] == ["outside-folder"]


def test_a_config_beside_the_scenario_that_is_not_json_is_not_printed(tmp_path):
    (tmp_path / "key.pem").write_text("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n")
    done = validate(scenario_in(tmp_path, "models:\n  m: {config: key.pem}\n"))
    assert done.returncode == 1 and "MIIEvQ" not in done.stdout + done.stderr and "PRIVATE" not in done.stdout
    assert "got text (not shown: the file may hold anything)" in done.stderr


def test_record_and_device_files_outside_the_folder_are_refused(tmp_path):
    inner = tmp_path / "p"
    inner.mkdir()
    record = "benchmarks:\n  - file: ../r.json\n"
    device = GOOD.replace("  gpu:\n    kind: gpu\n", "  gpu:\n    from: ../lab.yaml\n    kind: gpu\n")
    (inner / "a.yaml").write_text(GOOD + record)
    (inner / "b.yaml").write_text(device)
    for name, path in (("a.yaml", "benchmarks[0].file"), ("b.yaml", "devices.gpu.from")):
        _, problems = load_scenario(inner / name)
        assert [(p.path, p.code) for p in problems if p.level == "error"] == [(path, "outside-folder")], name


def test_a_pipe_as_a_record_file_is_refused_at_once(tmp_path):
    os.mkfifo(tmp_path / "r.json")
    start = time.monotonic()
    done = validate(scenario_in(tmp_path, extra="benchmarks:\n  - file: r.json\n"))
    assert time.monotonic() - start < 30 and done.returncode == 1 
    assert "r.json" in done.stderr and "pipe" in done.stderr, done.stderr


@pytest.mark.parametrize("old,new,code", [
    ("name: good", 'name: "good\\n"', "line-break"),                    # $ matched before a final newline
    ("  gpu:\n", '  "gpu\\n":\n', "bad-id"),
    ("kind: gpu", 'kind: "gpu\\nfake.yaml:1:1: error: spoofed"', "line-break"),
    ("memory: 80 GB", 'memory: "80 \\e[31mGB"', "control-character"),       # ANSI escape in a unit
    ("name: good", 'name: good\ntitle: "a\\rb"', "control-character"),     # carriage return
    ("name: good", 'name: good\ntitle: "a\\x85b"', "control-character"),   # C1 next line
    ("name: good", 'name: good\ntitle: "a\\uFFFEb"', "control-character"),   # noncharacter: no workbook holds it
    ("name: good", 'name: good\ntitle: "a\\u202Eb"', "control-character"),   # direction override
    ("name: good", "name: good\ntitle: |\n  two\n  lines\n", "line-break"),
    ("batch: 8", "batch: ٨", "not-a-number"),                              # Arabic-Indic digit
    ("memory: 80 GB", "memory: ８０ GB", "not-a-number"),                   # full-width digits
])
def test_text_that_could_spoof_a_line_or_a_number_is_a_located_one_line_error(old, new, code):
    scn, problems = load_scenario_bytes(GOOD.replace(old, new, 1).encode(), "p.yaml")
    errors = [p for p in problems if p.level == "error"]
    assert scn is None and errors and all(p.file == "p.yaml" and p.line > 1 for p in errors)
    assert code in {p.code for p in errors}, [str(p) for p in errors]
    for p in errors:
        line = str(p)
        assert "\n" not in line and "\r" not in line and FORBIDDEN.search(line) is None and p.code in CODES


def test_a_notes_field_keeps_its_lines_and_drops_the_break_a_block_scalar_ends_with():
    scn, problems = load_scenario_bytes(GOOD.replace("name: good", "name: good\ndescription: |\n  one\n  two\n")
                                        .encode(), "p.yaml")
    assert scn is not None and scn.meta["description"].value == "one\ntwo", problems


def test_a_formula_in_a_record_never_reaches_a_csv_cell_as_a_formula(tmp_path):
    record = ("benchmarks:\n  - {model: m, precision: bf16, device: \"=cmd|' /C calc'!A0\", batch_size: 8, "
              "input_tokens: 100, output_tokens: 50, throughput_output_tokens_per_s: 1000, hourly_cost_usd: 2}\n")
    path = scenario_in(tmp_path, extra=record)
    out = CliRunner().invoke(main, ["evaluate", str(path), "--format", "csv"])
    assert out.exit_code == 0, out.output
    cells = [c for line in out.output.splitlines()[1:] for c in line.split(",")]
    assert any(c.startswith("\"'=cmd") or c.startswith("'=cmd") for c in cells), out.output[:400]
    assert not any(c.startswith(("=", "+", "@")) for c in cells)


@pytest.mark.parametrize("value,says", [
    ("abc", "'abc': expected whole seconds"), ("²", "'²': expected whole seconds"),
    ("1e9", "'1e9': expected whole seconds"), ("99999999999999", "beyond 9999-12-31"), ("-5", "'-5'"),
])
def test_a_malformed_source_date_epoch_is_a_usage_error(tmp_path, value, says):
    done = validate(scenario_in(tmp_path), env={"SOURCE_DATE_EPOCH": value})
    assert done.returncode == 2 and "Traceback" not in done.stderr and done.stdout == ""
    assert done.stderr.startswith("sizing: error: SOURCE_DATE_EPOCH is") and says in done.stderr


def test_a_good_source_date_epoch_stamps_the_build(tmp_path):
    from sizing.output import build_datetime

    scn, _ = load_scenario(scenario_in(tmp_path))
    os.environ["SOURCE_DATE_EPOCH"] = "1700000000"
    try:
        assert str(build_datetime(scn)) == "2023-11-14 22:13:20"
    finally:
        del os.environ["SOURCE_DATE_EPOCH"]


def test_two_scenarios_that_would_write_the_same_outputs_are_refused_before_anything_is_written(tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        scenario_in(tmp_path / folder)
    out = CliRunner().invoke(main, ["build", str(tmp_path / "a" / "s.yaml"), str(tmp_path / "b" / "s.yaml"),
                                    "--out", str(tmp_path / "out")])
    assert out.exit_code == 2 and "would both write s.xlsx and s.pdf" in out.output
    assert not (tmp_path / "out").exists()


def test_a_config_file_is_an_input_no_output_may_replace(tmp_path):
    config = ('{"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, '
              '"intermediate_size": 14336, "vocab_size": 128256, "model_type": "llama"}')
    (tmp_path / "cfg.xlsx").write_text(config)                     # any name: it is read as JSON
    path = scenario_in(tmp_path, "models:\n  m: {config: cfg.xlsx}\n")
    out = CliRunner().invoke(main, ["workbook", str(path), "-o", str(tmp_path / "cfg.xlsx")])
    assert out.exit_code == 3 and "refusing to overwrite an input file" in out.output
    assert (tmp_path / "cfg.xlsx").read_text() == config


def test_limits_at_which_build_still_finishes_in_a_minute_are_located_errors(tmp_path):
    """More points than 1,000,000, more points x devices than 5,000,000, or more than 64 devices compared: each
    a located out-of-range error, found at once."""
    many = "".join(f"  d{i}: {{kind: gpu}}\n" for i in range(65))
    text = f"sizing: 1\nname: big\ndevices:\n{many}" + MODEL + "workloads:\n  w: {kind: generate, model: m}\n"
    start = time.monotonic()
    _, problems = load_scenario_bytes(text.encode(), "p.yaml")
    assert [(p.line, p.path, p.code) for p in problems] == [(4, "devices", "out-of-range")]
    assert "65 devices and no `compare`" in problems[0].message
    _, problems = load_scenario_bytes((text + "compare: [" + ", ".join(f"d{i}" for i in range(65)) + "]\n")
                                      .encode(), "p.yaml")
    assert [(p.path, p.code) for p in problems] == [("compare", "out-of-range")]
    for points, devices, says in ((1_000_001, 1, "at most 1,000,000 points"), (500_000, 11, "5,500,000 evaluations")):
        sweep = f"sweep: {{batch: {{from: 1, to: 1000000, points: {points}}}}}\n"
        compare = "compare: [" + ", ".join(f"d{i}" for i in range(devices)) + "]\n"
        _, problems = load_scenario_bytes((text + compare + sweep).encode(), "p.yaml")
        assert [p.code for p in problems] == ["out-of-range"] and says in problems[0].message, problems
    assert time.monotonic() - start < 10


def test_a_long_sweep_draws_at_most_400_points_per_chart():
    from sizing.render.report.figures import PLOTTED, plotted

    assert list(plotted(5)) == [0, 1, 2, 3, 4]
    at = plotted(1_000_000)
    assert len(at) == PLOTTED == 400 and at[0] == 0 and at[-1] == 999_999 and (sorted(at) == list(at))


def test_a_pipe_in_a_folder_given_to_validate_is_refused_without_waiting(tmp_path):
    scenario_in(tmp_path)
    os.mkfifo(tmp_path / "waiting.yaml")
    start = time.monotonic()
    done = validate(tmp_path)
    assert time.monotonic() - start < 30 and done.returncode == 1 and "Traceback" not in done.stderr
    assert "waiting.yaml:1:1: error:" in done.stderr and "pipe" in done.stderr


def _write_many(args):
    from sizing.output import write_atomic

    path, tag = args
    for i in range(25):
        write_atomic(path, f"{tag}-{i}".encode() * 1000)
    return tag


def test_concurrent_writers_of_one_output_all_succeed_and_leave_no_temporary_file(tmp_path):
    """Each process's temporary file carries its process id: the sweep for files a killed render left never
    deletes another live writer's (eight writers used to fail at random)."""
    from multiprocessing import get_context

    out = tmp_path / "r.pdf"
    with get_context("spawn").Pool(8) as pool:
        tags = pool.map(_write_many, [(out, f"w{k}") for k in range(8)])
    assert sorted(tags) == [f"w{k}" for k in range(8)]
    assert out.read_bytes().decode().split("-")[0] in {f"w{k}" for k in range(8)}      # one writer's, whole
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_build_whose_second_output_cannot_be_written_leaves_the_first_as_it_was(tmp_path, monkeypatch):
    """All or none: every output is staged before any is renamed into place."""
    from sizing import output

    path = scenario_in(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "s.xlsx").write_bytes(b"previous workbook")
    real = output.stage

    def failing(p, data):
        if p.suffix == ".pdf":
            raise output.OutputError(f"{p}: cannot write: No space left on device")
        return real(p, data)

    monkeypatch.setattr(output, "stage", failing)
    done = CliRunner().invoke(main, ["build", str(path), "--out", str(tmp_path / "out"), "--jobs", "1"])
    assert done.exit_code == 3 and "No space left on device" in done.output
    assert (tmp_path / "out" / "s.xlsx").read_bytes() == b"previous workbook"
    assert not (tmp_path / "out" / "s.pdf").exists() and not list((tmp_path / "out").glob(".*.tmp"))


def test_standard_output_on_a_full_disk_is_an_output_error_not_a_traceback(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "sizing.cli", "evaluate", str(scenario_in(tmp_path))],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert "cannot write the output: No space left on device" in done.stderr


def test_standard_output_closed_is_not_a_traceback(tmp_path):
    done = subprocess.run(f"{sys.executable} -m sizing.cli evaluate {scenario_in(tmp_path)} >&-", shell=True,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "Traceback" not in done.stderr


def test_an_output_path_with_escapes_is_printed_escaped(tmp_path):
    out = tmp_path / "t\x1b[31mRED\nx.xlsx"
    done = CliRunner().invoke(main, ["workbook", str(scenario_in(tmp_path)), "-o", str(out)])
    assert done.exit_code == 0 and out.exists()
    wrote = [line for line in done.output.splitlines() if line.startswith("wrote ")]
    assert len(wrote) == 1 and wrote[0].endswith("t\\x1b[31mRED\\nx.xlsx") and "\x1b" not in done.output


def test_an_output_that_is_an_input_is_refused_before_rendering(tmp_path):
    config = ('{"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, '
              '"intermediate_size": 14336, "vocab_size": 128256, "model_type": "llama"}')
    (tmp_path / "cfg.pdf").write_text(config)
    path = scenario_in(tmp_path, "models:\n  m: {config: cfg.pdf}\n")
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "sizing.cli", "report", str(path), "-o", str(tmp_path / "cfg.pdf")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 3 and "refusing to overwrite an input file" in done.stderr
    assert time.monotonic() - start < 2.5                        # no report was rendered first
    assert (tmp_path / "cfg.pdf").read_text() == config


def test_more_workloads_times_devices_than_build_renders_in_a_minute_is_a_located_error():
    many = "".join(f"  w{i}: {{kind: generate, model: m}}\n" for i in range(65))
    text = GOOD.split("workloads:")[0] + "workloads:\n" + many + "  more: {kind: generate, model: m}\n"
    text = text.replace("  gpu:\n", "  cpu:\n    kind: cpu\n    compute: {fp32: 1 TFLOP/s}\n  gpu:\n")
    _, problems = load_scenario_bytes(text.encode(), "p.yaml")
    assert [(p.path, p.code) for p in problems] == [("workloads", "out-of-range")]
    assert "66 workloads (alternatives included) on 2 devices are 132 evaluations; at most 128" in problems[0].message


def test_a_string_in_a_config_is_never_quoted_back(tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "llama", "hidden_size": "PASSWORD=hunter2", '
                                          '"num_hidden_layers": 32, "num_attention_heads": 32, "vocab_size": 32000, '
                                          '"intermediate_size": 11008}')
    done = validate(scenario_in(tmp_path, "models:\n  m: {config: config.json}\n"))
    assert done.returncode == 1 and "hunter2" not in done.stdout + done.stderr
    assert "model.config.hidden_size: expected a positive whole number like 4096, got a string (not shown)" \
        in done.stderr


@pytest.mark.parametrize("make", ["folder", "pipe"])
def test_a_config_that_is_a_folder_or_a_pipe_is_said_so_where_the_scenario_names_it(tmp_path, make):
    target = tmp_path / "cfg.json"
    target.mkdir() if make == "folder" else os.mkfifo(target)
    _, problems = load_scenario(scenario_in(tmp_path, "models:\n  m: {config: cfg.json}\n"))
    (p,) = problems
    assert (p.file.endswith("s.yaml"), p.line, p.path, p.code) == (True, 11, "models.m.config", "not-a-file")
    assert p.message.startswith("cannot use 'cfg.json': cannot read the file: it is ")


def test_every_file_a_scenario_reads_is_an_input_whatever_its_name(tmp_path, monkeypatch):
    """A device file named like the catalog (`catalog-lab.yaml`, read relative to the working folder) is an
    input like any other: no output may replace it."""
    from sizing.cli_common import input_files

    monkeypatch.chdir(tmp_path)
    (tmp_path / "catalog-lab.yaml").write_text("kind: gpu\nmemory: 80 GB\nmemory_bandwidth: 2 TB/s\n"
                                               "compute: {bf16: 200 TFLOP/s}\n")
    (tmp_path / "s.yaml").write_text(GOOD.replace("  gpu:\n    kind: gpu\n", "  gpu:\n    from: catalog-lab.yaml\n"))
    scn, problems = load_scenario("s.yaml")
    assert scn is not None, problems
    assert input_files(scn) == ("s.yaml", "catalog-lab.yaml")
