"""The command line: exit codes, outputs and messages, never a traceback."""

import csv
import io
import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from helpers import ROOT, SCENARIOS
from sizing.cli import main


def run(*args, input=None):
    res = CliRunner().invoke(main, list(args), input=input)
    assert "Traceback" not in res.output
    return res


def test_validate_shipped_scenarios_clean():
    res = run("validate", *map(str, SCENARIOS))
    assert res.exit_code == 0
    assert res.stdout.strip().startswith(f"{len(SCENARIOS)} files ok")


def test_validate_reports_every_problem_and_exits_1(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("sizing: 1\nname: b\ndevices:\n  g: {memory: 2 TB/s}\nworkloads: {}\nfoo: 1\n")
    res = run("validate", str(bad))
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [
        f"{bad}:4:15: error: devices.g.memory: expected a memory size like '80 GB', got '2 TB/s' (a bandwidth)",
        f"{bad}:5:12: error: workloads: no workloads given; a scenario needs at least one",
        f"{bad}:6:1: error: foo: unknown key 'foo'; expected one of: approver, benchmarks, compare, currency, date, "
        "decision, description, devices, models, name, owner, reviewer, sizing, status, sweep, title, uncertainty, workloads",
    ]


def test_validate_of_a_folder_counts_the_files_with_problems(tmp_path):
    (tmp_path / "bad.yaml").write_text("sizing: 1\nname: b\ndevices:\n  g: {memory: 2 TB/s}\nworkloads: {}\n")
    for good in SCENARIOS[:2]:
        (tmp_path / good.name).write_text(good.read_text())
    res = run("validate", str(tmp_path))
    assert res.exit_code == 1
    lines = res.stderr.splitlines()
    assert lines[-1] == "sizing: 1 of 3 files have problems: 2 errors"
    assert all(ln.startswith(f"{tmp_path / 'bad.yaml'}:") for ln in lines[:-1]) and len(lines) == 3


def test_validate_json_format(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("sizing: 1\nname: b\ndevices: {g: {kind: gpu}}\nworkloads:\n  w: {kind: matmul, m: 1, n: 1}\n")
    res = run("validate", "--format", "json", str(bad))
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert doc["ok"] is False
    assert doc["problems"] == [{"file": str(bad), "line": 5, "column": 6, "path": "workloads.w", "level": "error",
                                "code": "missing-field", "message": "missing required field 'k': inner dimension"}]


def test_strict_turns_warnings_into_errors():
    path = str(ROOT / "scenarios" / "ref-7b-decode.yaml")
    assert run("validate", path).exit_code == 0
    res = run("validate", "--strict", path)
    assert res.exit_code == 1 and "warning: models.7b" in res.stderr


def test_missing_file_and_usage_errors(tmp_path):
    res = run("validate", str(tmp_path / "nope.yaml"))
    assert res.exit_code == 1
    assert res.stderr.strip() == f"{tmp_path / 'nope.yaml'}:1:1: error: cannot read the file: No such file or directory"
    assert run("validate").exit_code == 2
    assert run("evaluate", "x.yaml", "--format", "xml").exit_code == 2
    assert run("frobnicate").exit_code == 2


def test_evaluate_json_carries_units_and_si_values():
    res = run("evaluate", str(ROOT / "scenarios" / "ref-link-matmul.yaml"), "--format", "json")
    assert res.exit_code == 0
    doc = json.loads(res.stdout)
    assert doc["scenario"]["name"] == "ref-link-matmul" and len(doc["scenario"]["sha256"]) == 64
    acc = next(r for r in doc["results"] if r["device"] == "accelerator")
    assert acc["kind"] == "matmul"
    assert acc["quantities"]["total_time"]["unit"] == "s"
    assert acc["quantities"]["total_time"]["value"] == pytest.approx(562.79e-6, rel=1e-4)
    assert acc["quantities"]["flops"] == {"value": 2147483648.0, "unit": "FLOP",
                                          "description": "operations of C = A·B: 2 m n k"}
    assert "peak_rate" not in acc["quantities"]          # not given: left out, not zero
    assert doc["decision"]["recommendation"] == "accelerator"
    assert doc["sweeps"][0]["crossovers"][0]["from_here_faster"] == "accelerator"
    assert [p["level"] for p in doc["problems"]] == ["warning", "warning"]


def test_evaluate_table_and_csv():
    path = str(ROOT / "scenarios" / "ref-embedding-service.yaml")
    table = run("evaluate", path).stdout
    assert "latency" in table and "64 ms" in table and "23.7 days" in table and "1.422 h" in table
    assert "recommendation: cpu-server" in table
    rows = list(csv.DictReader(io.StringIO(run("evaluate", path, "--format", "csv").stdout)))
    lat = next(r for r in rows if r["device"] == "cpu-server" and r["quantity"] == "latency")
    assert float(lat["value"]) == pytest.approx(0.064) and lat["unit"] == "s"


def test_evaluate_summary_prints_the_decision_alone():
    """A new user scrolled past 95 rows a workload to reach the decision."""
    path = str(ROOT / "scenarios" / "ref-embedding-service.yaml")
    full, short = run("evaluate", path).stdout, run("evaluate", path, "--summary").stdout
    tail = full[full.index("decision: "):]
    assert short.endswith(tail) and "recommendation: cpu-server" in short
    assert "latency" in full.replace(tail, "") and "latency" not in short.replace(tail, "")
    assert len(short.splitlines()) < len(full.splitlines()) / 3
    # each option with what it takes (the new user dug the counts out of the full table)
    assert "1. cpu-server: $584.40/month (2 devices)" in short and "2. gpu: $1,461/month (1 device)" in short
    train = run("evaluate", str(ROOT / "scenarios" / "pretrain-deadline.yaml"), "--summary").stdout
    assert "1. b200, servers: $77,360 (32 devices, 26.86 days)" in train and "2. b200: $78,165 (30 devices" in train
    chat = run("evaluate", str(ROOT / "scenarios" / "chat-70b-fp8.yaml"), "--summary").stdout
    assert "1. mi300x, b21, on demand as traffic needs: $4,133/month (3.058 devices on average)" in chat and \
        "6. mi300x: $8,109/month (6 devices)" in chat


def test_evaluate_table_shows_the_sweep():
    table = run("evaluate", str(ROOT / "scenarios" / "ref-link-matmul.yaml")).stdout
    row = next(ln.split() for ln in table.splitlines() if ln.strip().startswith("128 "))
    assert row[:3] == ["128", "41.94", "µs"] and "45.91" in row
    long = run("evaluate", str(ROOT / "scenarios" / "ref-7b-decode.yaml")).stdout
    assert "sweep of batch for decode-batch-64" in long


def test_a_sweep_says_what_its_n_a_means(tmp_path):
    text = (ROOT / "scenarios" / "moe-mixtral-serving.yaml").read_text()
    assert "sweep: {batch: [1, 2, 4, 8, 16, 24, 32, 64]}" in text
    path = tmp_path / "s.yaml"
    path.write_text(text.replace("sweep: {batch: [1, 2, 4, 8, 16, 24, 32, 64]}", "sweep: {batch: [1, 4096]}"))
    out = run("evaluate", str(path), "--width", "0").stdout
    sweep = out[out.index("sweep of batch for chat"):out.index("decision:")]
    assert "n/a" in sweep.split("n/a: not priced")[0]            # a batch of 4096 misses the 60 ms per token
    assert "  n/a: not priced at that value: the option does not fit in memory or misses a latency target " \
           "there" in sweep
    assert "n/a: not priced" not in run("evaluate", str(ROOT / "scenarios" / "moe-mixtral-serving.yaml")).stdout


def test_json_output_is_stable():
    path = str(ROOT / "scenarios" / "chat-70b-fp8.yaml")
    assert run("evaluate", path, "--format", "json").stdout == run("evaluate", path, "--format", "json").stdout


def test_schema_and_catalog_commands():
    doc = json.loads(run("schema").stdout)
    assert doc["title"] == "sizing scenario (v1)"
    listing = run("catalog").stdout
    assert "illustrative-accelerator" in listing and "llama-3.1-70b" in listing
    shown = run("catalog", "show", "nvidia-h200-sxm-141gb")
    assert shown.exit_code == 0 and "memory_bandwidth: 4.8 TB/s" in shown.stdout and "sources:" in shown.stdout
    missing = run("catalog", "show", "nvidia-h300")
    assert missing.exit_code == 2 and "no catalog entry 'nvidia-h300'" in missing.stderr


def test_console_script_runs():
    out = subprocess.run([sys.executable, "-m", "sizing.cli", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("sizing, version ")
