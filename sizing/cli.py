"""The command line: validate, evaluate, schema, catalog (and the renderers); the only place that exits."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from . import __version__
from .errors import Problem

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, EXIT_OUTPUT = 0, 1, 2, 3


def echo_problems(problems: list[Problem]) -> bool:
    """Print problems to stderr; True when any is an error."""
    for p in problems:
        click.echo(str(p), err=True)
    return any(p.level == "error" for p in problems)


def load_or_exit(path: str, strict: bool = False):
    from .scenario import load_scenario

    scn, problems = load_scenario(path)
    if scn is None or (strict and problems):
        echo_problems(problems)
        sys.exit(EXIT_PROBLEMS)
    return scn, problems


def evaluate_or_exit(path: str, strict: bool = False):
    from .evaluate import evaluate

    scn, problems = load_or_exit(path, strict)
    results = evaluate(scn)
    results.problems = problems + results.problems
    if strict and results.problems:
        echo_problems(results.problems)
        sys.exit(EXIT_PROBLEMS)
    return results


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sizing")
def main() -> None:
    """Which hardware, how many, at what cost: size AI workloads and show the working."""


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def validate(paths: tuple[str, ...], strict: bool, fmt: str) -> None:
    """Check scenarios (files, or every .yaml in folders); print each problem as file:line:col: level: path: message."""
    from .evaluate import evaluate
    from .scenario import load_scenario

    files = scenario_files(paths)
    everything: list[Problem] = []
    for f in files:
        scn, problems = load_scenario(f)
        if scn is not None:
            problems = problems + evaluate(scn).problems
        everything += problems
    failed = any(p.level == "error" or strict for p in everything)
    if fmt == "json":
        click.echo(json.dumps({"problems": [p.as_dict() for p in everything], "ok": not failed}, indent=2))
    else:
        echo_problems(everything)
        if not failed:
            click.echo(f"{len(files)} file{'s' if len(files) != 1 else ''} ok"
                       + (f", {len(everything)} warning{'s' if len(everything) != 1 else ''}" if everything else ""))
    sys.exit(EXIT_PROBLEMS if failed else EXIT_OK)


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True)
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
def evaluate(file: str, fmt: str, strict: bool) -> None:
    """Evaluate every (workload, device) pair, the sweep and the decision."""
    results = evaluate_or_exit(file, strict)
    if fmt == "json":
        from .render.data import to_json
        click.echo(to_json(results), nl=False)
        return
    echo_problems(results.problems)
    if fmt == "csv":
        from .render.data import to_csv
        click.echo(to_csv(results), nl=False)
    else:
        from .render.table import render
        click.echo(render(results), nl=False)


def write_or_exit(path: Path, data: bytes, inputs: tuple) -> None:
    from .errors import OutputError
    from .output import write_atomic

    try:
        write_atomic(path, data, inputs)
    except OutputError as e:
        click.echo(f"sizing: error: {e}", err=True)
        sys.exit(EXIT_OUTPUT)


def unwritable(path: Path) -> str | None:
    """Why a file could not be written there (None: it can): its folder, or the nearest that exists, must be
    writable, and the path must not be a folder."""
    import os

    if path.is_dir():
        return "is a folder"
    folder = path.parent.resolve()
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not os.access(folder, os.W_OK):
        return f"cannot write in {folder}"
    try:                                       # a read-only file system passes os.access for root: try it
        import tempfile
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        return f"cannot write in {folder}: {e.strerror or e}"
    return None


def render_workbook(results) -> bytes:
    from .render.workbook import workbook_bytes

    return workbook_bytes(results)


def render_report(results, workbook: bytes | None) -> bytes:
    from .render.report import report_bytes

    return report_bytes(results, workbook)


def input_files(scn) -> tuple[str, ...]:
    """Files an output must never replace: the scenario and the records it reads."""
    return (scn.file, *{v.file for b in scn.benchmarks for v in b.values.values()})


def write_one(file: str, output: str | None, suffix: str, render) -> None:
    """Evaluate one scenario and write one rendering of it (default: FILE's name, in this folder)."""
    results = evaluate_or_exit(file)
    echo_problems(results.problems)
    out = Path(output or Path(file).with_suffix(suffix).name)
    if out.suffix.lower() != suffix:
        click.echo(f"sizing: error: {out}: the output of this command is a {suffix} file; name it so", err=True)
        sys.exit(EXIT_USAGE)
    write_or_exit(out, render(results), input_files(results.scenario))
    click.echo(f"wrote {out}")


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Output .xlsx (default: FILE's name).")
def workbook(file: str, output: str | None) -> None:
    """Write the formula-live Excel workbook."""
    write_one(file, output, ".xlsx", render_workbook)


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Output .pdf (default: FILE's name).")
def report(file: str, output: str | None) -> None:
    """Write the PDF decision report (the scenario and the workbook attached)."""
    write_one(file, output, ".pdf", lambda results: render_report(results, render_workbook(results)))


@main.command()
@click.argument("workbook_file", metavar="WORKBOOK", type=click.Path(dir_okay=False, exists=True))
@click.argument("file", metavar="SCENARIO", type=click.Path(dir_okay=False), required=False)
@click.option("--dry-run", is_flag=True, help="Show the changes; write nothing.")
def pull(workbook_file: str, file: str | None, dry_run: bool) -> None:
    """Write the input cells changed in a workbook back into its scenario (default: the file named on its README
    sheet, beside the workbook), comments and layout kept."""
    from .errors import OutputError
    from .pull import apply, changes, scenario_of
    from .scenario import load_scenario_bytes

    file = file or str(scenario_of(workbook_file))
    results = evaluate_or_exit(file)
    try:
        found = changes(results, workbook_file)
    except OutputError as e:
        click.echo(f"sizing: error: {e}", err=True)
        sys.exit(EXIT_PROBLEMS)
    if not found:
        click.echo(f"{workbook_file}: no input changed")
        return
    for c in found:
        click.echo(str(c))
    text = apply(results.scenario.data.decode("utf-8"), found)
    scn, problems = load_scenario_bytes(text.encode("utf-8"), file, Path(file).parent)
    if scn is None:                          # a changed value the language refuses: located, nothing written
        echo_problems(problems)
        sys.exit(EXIT_PROBLEMS)
    if dry_run:
        return
    write_or_exit(Path(file), text.encode("utf-8"), ())
    click.echo(f"wrote {file}")


def device_file(path: Path) -> bool:
    """A device entry beside the scenarios (what `sizing measure` writes, for `from: FILE.yaml`): a mapping with a
    `kind` and no `sizing` key. A folder's scenarios leave it out; named as a file, it is checked as a scenario."""
    from .loader import Mapping, load_file

    node, _ = load_file(path)
    return isinstance(node, Mapping) and node.get("sizing") is None and node.get("kind") is not None


def scenario_files(paths: tuple[str, ...]) -> list[Path]:
    """The files named, and every .yaml/.yml in the folders named (default: ./scenarios)."""
    if not paths and not Path("scenarios").is_dir():
        click.echo("sizing: error: no scenarios/ folder here; name scenario files or folders", err=True)
        sys.exit(EXIT_USAGE)
    out: list[Path] = []
    for p in map(Path, paths or ("scenarios",)):
        out += [f for f in sorted(p.glob("*.yaml")) + sorted(p.glob("*.yml")) if not device_file(f)] \
            if p.is_dir() else [p]
    if not out:
        click.echo("sizing: error: no scenario files found", err=True)
        sys.exit(EXIT_USAGE)
    return out


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="reports", show_default=True)
def build(paths: tuple[str, ...], out_dir: str) -> None:
    """Write the workbook and the report of each scenario (files, or every .yaml in folders)."""
    from .evaluate import evaluate as run_engine
    from .scenario import load_scenario

    files = scenario_files(paths)
    loaded, failed = [], False
    for f in files:
        scn, problems = load_scenario(f)
        failed |= echo_problems(problems)
        loaded.append(scn)
    if failed:
        sys.exit(EXIT_PROBLEMS)           # nothing is written when any scenario has errors
    outputs = []                          # every rendering first: a failure leaves no partial set
    for f, scn in zip(files, loaded):
        results = run_engine(scn)
        echo_problems(results.problems)
        xlsx = render_workbook(results)
        outputs += [(Path(out_dir) / f"{f.stem}{suffix}", data, input_files(scn))
                    for suffix, data in ((".xlsx", xlsx), (".pdf", render_report(results, xlsx)))]
    for out, data, inputs in outputs:
        write_or_exit(out, data, inputs)
        click.echo(f"wrote {out}")


@main.command()
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
        click.echo(f"wrote {path}")
    click.echo(f"wrote {picture}")


@main.command()
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
    for line in calibration_lines(results, cal):
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
    click.echo(f"wrote {target}")


@main.command()
def schema() -> None:
    """Print the JSON Schema of the scenario language (for editors)."""
    from .schema import json_schema

    click.echo(json.dumps(json_schema(), indent=2))


@main.group(invoke_without_command=True)
@click.pass_context
def catalog(ctx: click.Context) -> None:
    """List the built-in devices and models (`sizing catalog show ID` for one)."""
    if ctx.invoked_subcommand is not None:
        return
    from .render.catalog import listing

    click.echo(listing(), nl=False)


@catalog.command("show")
@click.argument("entry")
def catalog_show(entry: str) -> None:
    """Print one catalog entry with the source of every figure."""
    from .render.catalog import show

    text = show(entry)
    if text is None:
        import difflib

        from .scenario import catalog as entries
        devices, models, _ = entries()
        ids = [*devices, *models]
        close = [i for i in ids if entry.lower() in i][:3] or difflib.get_close_matches(entry, ids, n=3, cutoff=0.4)
        hint = f"did you mean {', '.join(repr(c) for c in close)}? " if close else ""
        click.echo(f"sizing: no catalog entry '{entry}'; {hint}`sizing catalog` lists them", err=True)
        sys.exit(EXIT_USAGE)
    click.echo(text, nl=False)


if __name__ == "__main__":  # pragma: no cover
    main()
