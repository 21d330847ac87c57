"""Signals and streams: Ctrl-C exits 130 with nothing half-written, devices and pipes are refused before they are
read, `build --strict` writes nothing when a scenario has a warning, and an unwritable output folder is found before
any rendering."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import ROOT

CLI = [sys.executable, "-c", "from sizing.cli import main; main()"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def sizing(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=ROOT, env=ENV, timeout=60, **kw)


@pytest.mark.parametrize("path", ["/dev/zero", "fifo"])
def test_a_device_or_a_pipe_is_refused_at_once_with_a_located_line(path, tmp_path):
    if path == "fifo":
        path = str(tmp_path / "scenario.yaml")
        os.mkfifo(path)                                  # opening it to read would wait for a writer forever
    start = time.perf_counter()
    done = sizing("validate", path)
    assert done.returncode == 1 and time.perf_counter() - start < 20
    assert done.stderr == f"{path}:1:1: error: cannot read the file: it is not a regular file (a device, a pipe or " \
                          f"a socket); name a regular file\n"


def test_a_folder_named_as_a_file_is_a_located_line(tmp_path):
    done = sizing("evaluate", str(tmp_path))
    assert done.returncode == 2 and "is a directory" in done.stderr             # a usage error, before reading


def test_ctrl_c_exits_130_and_leaves_no_output(tmp_path):
    """As a terminal's Ctrl-C: SIGINT to the process group (the render workers too), mid-render; the workers stop at
    once, not after their renders (a 39-page report takes seconds)."""
    proc = subprocess.Popen([*CLI, "build", "scenarios/", "--out", str(tmp_path / "out")], cwd=ROOT, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(4)                                        # loaded and evaluated, rendering: nothing written yet
    os.killpg(proc.pid, signal.SIGINT)
    sent = time.perf_counter()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert time.perf_counter() - sent < 3, "the workers finished their renders before stopping"
    assert err.endswith("sizing: interrupted; nothing more was written\n") and "Traceback" not in err
    written = list((tmp_path / "out").glob("*")) if (tmp_path / "out").exists() else []
    assert not [p for p in written if p.suffix in (".tmp", "")], written        # nothing half-written
    assert len(written) == out.count("wrote ")                                    # only whole files, each said


def test_a_killed_render_worker_stops_the_build_with_a_line_not_a_hang(tmp_path):
    """A worker killed mid-render (as the out-of-memory killer does): the pool would wait for its render forever;
    the build says so, exits 3 and writes nothing."""
    children = Path("/proc/self/task")
    if not children.exists():
        pytest.skip("needs /proc to find the worker processes")
    proc = subprocess.Popen([*CLI, "build", "scenarios/ref-edge-model.yaml", "scenarios/chat-70b-fp8.yaml",
                             "scenarios/moe-mixtral-serving.yaml", "--jobs", "2", "--out", str(tmp_path / "out")],
                            cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    workers: list[str] = []
    for _ in range(200):                                  # up to 20 s for the workers to start
        time.sleep(0.1)
        workers = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        if len(workers) == 2:
            break
    assert len(workers) == 2, workers
    time.sleep(1)                                         # rendering (a 39-page report takes seconds)
    os.kill(int(workers[-1]), signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, err
    assert err.startswith("sizing: error: a render worker stopped (signal 9; out of memory?) while rendering ") \
        and err.endswith("; nothing was written\n") and "Traceback" not in err, err
    assert out == "" and not (tmp_path / "out").exists()


def test_build_strict_writes_nothing_when_a_scenario_has_a_warning(tmp_path):
    scenario = (ROOT / "scenarios" / "ref-classifier.yaml").read_text()
    (tmp_path / "s.yaml").write_text(scenario + "uncertainty:\n  inputs:\n    devices.*.price: {low: 1 USD/hour, "
                                                "high: 2 USD/hour}\n")
    loose = sizing("validate", str(tmp_path / "s.yaml"))
    assert loose.returncode == 0 and "warning" in loose.stderr, loose.stderr
    done = sizing("build", str(tmp_path / "s.yaml"), "--out", str(tmp_path / "out"), "--strict")
    assert done.returncode == 1 and "warning" in done.stderr and not (tmp_path / "out").exists()


def test_an_unwritable_output_folder_is_found_before_rendering(tmp_path):
    (tmp_path / "file").write_text("a file, not a folder")
    start = time.perf_counter()
    done = sizing("build", "scenarios/", "--out", str(tmp_path / "file" / "reports"))
    assert done.returncode == 3 and "sizing: error:" in done.stderr and time.perf_counter() - start < 15
    assert "wrote" not in done.stdout


@pytest.mark.parametrize("kind, model", [("chat", "llama-3.1-70b"), ("embed", "llama-3.1-8b"),
                                         ("train", "llama-3.1-8b")])
def test_init_writes_a_starter_that_validates_and_explains_every_field(kind, model, tmp_path):
    rate = () if kind == "train" else ("--peak", "5/s")          # a training run has none: a usage error
    done = sizing("init", kind, "--model", model, "--devices", "h100,mi300x", *rate, "-o",
                  str(tmp_path / f"{kind}.yaml"))
    assert done.returncode == 0, done.stderr
    assert "h100: took nvidia-h100-sxm5-80gb (also: nvidia-h100-pcie-80gb)" in done.stderr
    text = (tmp_path / f"{kind}.yaml").read_text()
    keyed = [ln for ln in text.splitlines() if re.match(r"\s*[a-z_0-9]+:", ln) and not ln.startswith("  h100:")
             and not ln.startswith("  mi300x:") and not ln.startswith(("workloads:", f"  {kind}:", "    traffic:",
                                                                     "    targets:"))]
    assert all("#" in ln for ln in keyed), [ln for ln in keyed if "#" not in ln]
    import datetime as dt
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    now = dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc) if epoch else dt.datetime.now(dt.timezone.utc)
    assert f"\ndate: {now.date().isoformat()} " in text          # the report's date is not 2000-01-01
    checked = sizing("evaluate", str(tmp_path / f"{kind}.yaml"), "--format", "json")
    assert checked.returncode == 0, checked.stderr
    out = json.loads(checked.stdout)
    assert out["decision"]["recommendation"] in ("h100", "mi300x", "h100 fit")
    assert any("no price" in p["message"] for p in out["problems"])      # the starter says what to add next
    again = sizing("init", kind, "--model", model, "--devices", "h100", "-o", str(tmp_path / f"{kind}.yaml"))
    assert again.returncode == 3 and "exists" in again.stderr    # never replaced without --force


def test_init_names_what_it_cannot_find():
    bad = sizing("init", "chat", "--model", "llama-3.1", "--devices", "h100", "-o", "/tmp/never-written.yaml")
    assert bad.returncode == 2 and "no catalog model 'llama-3.1'; did you mean llama-3.1-8b" in bad.stderr
    bad = sizing("init", "chat", "--model", "llama-3.1-8b", "--devices", "z9000", "-o", "/tmp/never-written.yaml")
    assert bad.returncode == 2 and "no catalog device matches 'z9000'" in bad.stderr
    bad = sizing("init", "chat", "--model", "llama-3.1-8b", "--devices", "h100", "--peak", "5 GB", "-o",
                 "/tmp/never-written.yaml")
    assert bad.returncode == 2 and "--peak 5 GB: expected a request rate like '20 request/s', got '5 GB' (a memory " \
        "size)" in bad.stderr
    assert not os.path.exists("/tmp/never-written.yaml")


def test_init_takes_the_peak_as_the_scenario_language_does():
    """A new user's '1200 req/min' and '20 rps' were refused: 'expected requests per second like 5/s'."""
    from sizing.init import rate
    assert [rate(x) for x in ("5/s", "7", "1200 req/min", "20 rps", "2.5 request/s")] == [5, 7, 20, 20, 2.5]


@pytest.mark.parametrize("width", [80, 120])
def test_the_terminal_table_fits_the_width_and_keeps_every_value(width):
    from helpers import results_of
    from sizing.render.table import render
    r = results_of("chat-70b-fp8")
    wide, fitted = render(r), render(r, width)
    assert max(map(len, wide.splitlines())) > 200                   # without a width: one row per quantity
    assert max(map(len, fitted.splitlines())) <= width
    headers = [ln.split()[1:] for ln in fitted.splitlines() if ln.startswith("  quantity ")]
    assert {"h100", "h200", "b200", "mi300x", "gaudi3"} <= {d for h in headers for d in h}   # each on a page
    assert set(wide.split()) <= set(fitted.split())                # nothing lost in paging and wrapping
    assert fitted.count("\n  quantity ") > wide.count("\n  quantity ")   # the devices are paged
    piped = sizing("evaluate", "scenarios/chat-70b-fp8.yaml")
    assert max(map(len, piped.stdout.splitlines())) > 200             # not a terminal: no limit


def test_build_in_parallel_processes_writes_the_same_bytes(tmp_path):
    names = ["scenarios/ref-edge-model.yaml", "scenarios/ref-finetune-7b.yaml", "scenarios/ref-link-matmul.yaml"]
    one = sizing("build", *names, "--out", str(tmp_path / "one"), "--jobs", "1")
    two = sizing("build", *names, "--out", str(tmp_path / "two"), "--jobs", "3")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    assert one.stdout.replace("/one/", "/two/") == two.stdout                # the same files, in the same order
    files = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert len(files) == 6 and files == sorted(p.name for p in (tmp_path / "two").iterdir())
    for name in files:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


def test_a_columns_the_caller_sets_fits_piped_output_too():
    """`COLUMNS=80 sizing evaluate ... | less` printed 400-character lines (only a terminal's width was read); piped
    without COLUMNS, a table keeps one line a row for programs."""
    path = str(ROOT / "scenarios" / "chat-70b-fp8.yaml")
    fitted = subprocess.run([*CLI, "evaluate", path], capture_output=True, text=True, cwd=ROOT, timeout=60,
                            env={**ENV, "COLUMNS": "80"})
    assert fitted.returncode == 0 and max(map(len, fitted.stdout.splitlines())) <= 80
    wide = subprocess.run([*CLI, "evaluate", path], capture_output=True, text=True, cwd=ROOT, timeout=60,
                          env={k: v for k, v in ENV.items() if k != "COLUMNS"})
    assert max(map(len, wide.stdout.splitlines())) > 200
