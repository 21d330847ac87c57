"""The commands around the main job: `measure` (a device entry from this machine), `calibrate` (efficiencies fitted
to benchmark records) and `init` (a starter scenario)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from .cli_common import (EXIT_OUTPUT, EXIT_PROBLEMS, EXIT_USAGE, echo_problems, evaluate_or_exit, input_files,
                         precision_option, terminal_width, unwritable, write_or_exit)
from .errors import visible


@click.command()
@click.option("-o", "--out", type=click.Path(dir_okay=False), default="device.yaml", show_default=True,
              help="The device entry (with an accelerator: its entry; the processor's beside it as OUT-cpu.yaml).")
@click.option("--chart", type=click.Path(dir_okay=False), help="Delivered rate against size (.png; default: OUT's "
              "name with .png).")
@click.option("--seconds", type=click.FloatRange(5, 3600), default=60.0, show_default=True,
              help="Time budget for the whole run.")
@click.option("--quick", is_flag=True, help="Small sizes and arrays: checks the machinery, not a profile to trust.")
@click.option("--no-accelerator", is_flag=True, help="Measure the processor only.")
def measure(out: str, chart: str | None, seconds: float, quick: bool, no_accelerator: bool) -> None:
    """Measure this machine (matrix products per precision, memory bandwidth; an accelerator's rates, memory, host
    link and launch overhead where PyTorch sees one) and write a device entry, every figure with its source."""
    from .measure import measure as run, torch_backend
    from .measure.commands import checked_entry, outputs, summary
    from .measure.profile import chart_png

    target = Path(out)
    if target.suffix.lower() not in (".yaml", ".yml"):
        click.echo(f"sizing: error: {out}: a device entry is a .yaml file; name it so", err=True)
        sys.exit(EXIT_USAGE)
    picture = Path(chart) if chart else target.with_suffix(".png")
    for path in (target, target.with_name(f"{target.stem}-cpu{target.suffix}"), picture):
        problem = unwritable(path)
        if problem:                                # found before a minute of measuring, not after
            click.echo(f"sizing: error: {path}: {problem}", err=True)
            sys.exit(EXIT_OUTPUT)
    backend = None if no_accelerator else torch_backend()
    m = run(seconds, quick, backend, progress=lambda s: click.echo(f"measure: {s}", err=True))
    files = outputs(m, target)
    for path, text in files:
        problems = checked_entry(text, path)
        if problems:                               # a profile the language refuses is a bug: say so, write nothing
            echo_problems(problems)
            sys.exit(EXIT_PROBLEMS)
    for path, data in [(p, t.encode()) for p, t in files] + [(picture, chart_png(m))]:
        write_or_exit(path, data, ())
    for line in summary(m):
        click.echo(line)
    for path, _ in files:
        click.echo(f"wrote {visible(str(path))}")
    click.echo(f"wrote {visible(str(picture))}")


@click.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write here instead of FILE.")
@click.option("--dry-run", is_flag=True, help="Show the fit; write nothing.")
def calibrate(file: str, output: str | None, dry_run: bool) -> None:
    """Fit the efficiencies of the scenario's devices to its benchmark records (each record tied to a prediction by
    `workload` and `scenario_device`) and write them into the scenario, comments and layout kept."""
    from .measure.calibrate import calibrate as fit
    from .measure.commands import calibration_lines
    from .pull import apply
    from .scenario import load_scenario_bytes

    results = evaluate_or_exit(file)
    cal = fit(results)
    if not cal.records:
        what = "no record is tied to a prediction; give a record `workload` and `scenario_device` (the " \
               "scenario's prediction of the same configuration)" if results.scenario.benchmarks else \
            "the scenario has no benchmark records to calibrate from; add a `benchmarks:` list (README, benchmarks)"
        click.echo(f"{file}: error: benchmarks: {what}", err=True)
        sys.exit(EXIT_PROBLEMS)
    for line in calibration_lines(cal):
        click.echo(line)
    import datetime as dt
    text = apply(results.scenario.data.decode("utf-8"),
                 cal.changes(results, dt.datetime.now(dt.timezone.utc).date().isoformat()))
    scn, problems = load_scenario_bytes(text.encode("utf-8"), file, Path(file).parent)
    if scn is None:
        echo_problems(problems)
        sys.exit(EXIT_PROBLEMS)
    if dry_run:
        return
    target = Path(output or file)
    write_or_exit(target, text.encode("utf-8"), () if output is None else input_files(results.scenario))
    click.echo(f"wrote {visible(str(target))}")


@click.command()
@click.argument("kind", type=click.Choice(["chat", "embed", "train"]))
@click.option("--model", required=True, help="A catalog model, e.g. llama-3.1-70b (`sizing catalog`).")
@click.option("--devices", required=True, help="Comma-separated catalog devices or short names, e.g. h100,mi300x.")
@click.option("--peak", help="Peak requests per second (chat, embed; default 5/s).")
@click.option("--precision", help="fp32, bf16, fp8, int8, int4 ... (default: bf16, else the first of fp16, fp32 "
              "every device has a rate at)", callback=precision_option)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Output .yaml (default: KIND.yaml).")
@click.option("--force", is_flag=True, help="Replace an existing file.")
def init(kind: str, model: str, devices: str, peak: str, precision: str, output: str | None, force: bool) -> None:
    """Write a starter scenario for a question, every field explained, valid as written."""
    from .init import PEAK, InitError, starter
    from .scenario import load_scenario_bytes

    out = Path(output or f"{kind}.yaml")
    if out.suffix.lower() not in (".yaml", ".yml"):
        click.echo(f"sizing: error: {visible(str(out))}: a scenario is a .yaml file; name it so", err=True)
        sys.exit(EXIT_USAGE)
    if out.exists() and not force:
        click.echo(f"sizing: error: {out} exists; name another file with -o, or --force to replace it", err=True)
        sys.exit(EXIT_OUTPUT)
    if peak is not None and kind == "train":      # a new user's --peak 2/s on a training run passed without a word
        click.echo("sizing: error: --peak: a training run has no request rate; leave --peak out (its tokens and "
                   "deadline are in the file it writes, to edit)", err=True)
        sys.exit(EXIT_USAGE)
    try:
        text, notes = starter(kind, model, [d.strip() for d in devices.split(",") if d.strip()], peak or PEAK,
                              precision,
                              out.stem if re.fullmatch(r"[a-z0-9][a-z0-9-]*", out.stem) else "starter", today())
    except InitError as e:
        click.echo(f"sizing: error: {e}", err=True)
        sys.exit(EXIT_USAGE)
    scn, problems = load_scenario_bytes(text.encode(), str(out), out.parent)
    if scn is None:                                  # a precision the model cannot take, ...: say so, write nothing
        echo_problems(problems)
        sys.exit(EXIT_PROBLEMS)
    for note in notes:
        click.echo(note, err=True)
    write_or_exit(out, text.encode(), ())
    click.echo(f"wrote {visible(str(out))}\nassumed (they decide the answer): {ASSUMED[kind]}\nnext: check them, "
               "add prices and set the objective to the cost the comment names, then `sizing evaluate "
               f"{out}` and `sizing build {out}`")


# What a starter assumes that decides its answer (a new user's embedder failed on L4s for init's 100 ms target).
# A new user read "check the tokens per request, the batch and the latency targets" and had to open the file to
# learn the values: each is named with its value.
ASSUMED = {"chat": "1,000 input and 300 output tokens per request, batch 16, average traffic 40 % of the peak, a "
                   "replica at most 80 % busy at the peak, 1 spare replica, 50 ms between tokens and 1 s to the first "
                   "token for 95 % of requests",
           "embed": "256 tokens per request, batch 8, a 100 ms latency target for 95 % of requests",
           "train": "1e9 tokens, 4,096-token sequences, 64 sequences a step, LoRA training 1 % of the parameters, "
                    "no recompute, a 7-day deadline"}


@click.command()
@click.argument("first", type=click.Path(dir_okay=False))
@click.argument("second", type=click.Path(dir_okay=False), required=False)
@click.option("--git", "rev", help="Compare FIRST as it was at this git revision (e.g. HEAD~1) with FIRST now.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.option("--width", type=click.IntRange(0), help="Fit the tables to this many columns (default: the terminal's "
              "width when printing to one, else no limit; 0: no limit).")
def diff(first: str, second: str | None, rev: str | None, fmt: str, width: int | None) -> None:
    """Compare two versions of a scenario: the inputs that changed and their effect on every headline figure and
    on each decision (FIRST SECOND, or FIRST --git REV)."""
    from .diff import as_json, as_text, diff as compare
    from .evaluate import evaluate
    from .scenario import load_scenario_bytes

    if (second is None) == (rev is None):
        click.echo("sizing: error: give two scenarios, or one and --git REV", err=True)
        sys.exit(EXIT_USAGE)
    if rev is not None:
        import subprocess

        path = Path(first).resolve()
        shown = subprocess.run(["git", "-C", str(path.parent), "show", f"{rev}:./{path.name}"], capture_output=True)
        if shown.returncode != 0:
            click.echo(f"sizing: error: {first} at {rev}: {shown.stderr.decode(errors='replace').strip()}", err=True)
            sys.exit(EXIT_USAGE)
        old = load_scenario_bytes(shown.stdout, f"{first}@{rev}", path.parent)
        names = (f"{first}@{rev}", first)
        new = evaluate_or_exit(first)
        if old[0] is None:
            echo_problems(old[1])
            sys.exit(EXIT_PROBLEMS)
        before = evaluate(old[0])
    else:
        before, new = evaluate_or_exit(first), evaluate_or_exit(second)
        names = (first, second)
    d = compare(before, new)
    click.echo(as_json(d, *names) if fmt == "json" else as_text(d, *names, terminal_width(width)), nl=False)


def today() -> str:
    """Today's date for a new scenario (SOURCE_DATE_EPOCH's where set, as every output's clock)."""
    import datetime as dt

    from .output import epoch_datetime

    return (epoch_datetime() or dt.datetime.now(dt.timezone.utc)).date().isoformat()
