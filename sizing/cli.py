"""The command line: validate, evaluate, the renderers, pull, schema, catalog (measure, calibrate and init in
cli_tools, what all share in cli_common); these three modules are the only places that exit."""

from __future__ import annotations

import errno
import json
import os
import re
import sys
from pathlib import Path

import click

from . import __version__
from .cli_common import (EXIT_OK, EXIT_OUTPUT, EXIT_PROBLEMS, EXIT_USAGE, echo_problems, evaluate_or_exit,
                         input_files, precision_option, terminal_width, unwritable, write_all_or_exit, write_or_exit)
from .cli_tools import calibrate, diff, init, measure
from .errors import Problem, visible

EXIT_INTERRUPTED = 130           # 128 + SIGINT, as shells report it
WATCH = 0.25                    # s between looks at the render workers while waiting for one


class Sizing(click.Group):
    """The command group; Ctrl-C exits 130 with a line, not click's "Aborted!" and 1 (the code for bad input).
    Outputs are renamed into place whole, so an interrupted command leaves none half-written."""

    def invoke(self, ctx: click.Context):
        if sys.stdout is None:                 # started with standard output closed (`>&-`): print nowhere
            sys.stdout = open(os.devnull, "w")
        try:
            done = super().invoke(ctx)
            sys.stdout.flush()                 # a full disk shows here, not in a traceback at exit
            return done
        except (KeyboardInterrupt, click.exceptions.Abort):
            click.echo("\nsizing: interrupted; nothing more was written", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except OSError as err:
            if err.errno not in (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG):
                raise
            sys.stdout = open(os.devnull, "w")     # nothing more to flush at exit
            click.echo(f"sizing: error: cannot write the output: {err.strerror}", err=True)
            sys.exit(EXIT_OUTPUT)


@click.group(cls=Sizing, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sizing")
def main() -> None:
    """Which hardware, how many, at what cost: size AI workloads and show the working."""
    from .output import source_date_epoch

    try:
        source_date_epoch()                 # a malformed value stops every command at once, with a usage error
    except ValueError as err:
        click.echo(f"sizing: error: {err}", err=True)
        sys.exit(EXIT_USAGE)


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
            problems = problems + evaluate(scn, problems_only=True, search=False).problems    # a found batch: none
        everything += problems
    failed = any(p.level == "error" or strict for p in everything)
    if fmt == "json":
        click.echo(json.dumps({"problems": [p.as_dict() for p in everything], "ok": not failed}, indent=2))
    else:
        echo_problems(everything)
        if not failed:
            click.echo(f"{len(files)} file{'s' if len(files) != 1 else ''} ok"
                       + (f", {len(everything)} warning{'s' if len(everything) != 1 else ''}" if everything else ""))
        elif len(files) > 1:                  # a folder: after its located lines, how many files they are in
            bad = {p.file for p in everything if p.level == "error" or strict}
            errors = sum(p.level == "error" or strict for p in everything)
            click.echo(f"sizing: {len(bad)} of {len(files)} files have problems: {errors} error"
                       f"{'s' if errors != 1 else ''}" + (" (warnings counted as errors: --strict)" if strict else ""),
                       err=True)
    sys.exit(EXIT_PROBLEMS if failed else EXIT_OK)


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True)
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
@click.option("--width", type=click.IntRange(0), help="Fit the table to this many columns (default: the terminal's "
              "width when printing to one, else no limit; 0: no limit).")
@click.option("--summary", is_flag=True, help="Print the decisions only (the table format), not every quantity.")
def evaluate(file: str, fmt: str, strict: bool, width: int | None, summary: bool) -> None:
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
        click.echo(render(results, terminal_width(width), summary), nl=False)


def rendered_pair(results) -> tuple[bytes, bytes]:
    """A scenario's workbook and its report (the workbook attached)."""
    xlsx = render_workbook(results)
    return xlsx, render_report(results, xlsx)


def render_file(path: str) -> tuple[bytes, bytes]:
    """In a worker process: load, evaluate and render one scenario (it loaded without errors in the parent)."""
    from .evaluate import evaluate
    from .scenario import load_scenario

    scn, _ = load_scenario(path)
    return rendered_pair(evaluate(scn))


def rendered_in_processes(files: list[Path], jobs: int):
    """(file, (workbook, report)) in the files' order, rendered `jobs` at a time in worker processes; the bytes
    are the same as in one process (the outputs depend only on the scenario). Ctrl-C reaches this process alone
    (the workers ignore it) and stops the workers at once, not after their renders; a worker killed (out of
    memory, say) stops the build with a line and EXIT_OUTPUT rather than leaving it waiting for the render."""
    import multiprocessing

    with multiprocessing.Pool(jobs, initializer=ignore_interrupts) as pool:      # leaving it terminates them
        workers = list(pool._pool)                 # the pool replaces a dead worker silently: watch the first ones
        pending = [pool.apply_async(render_file, (str(f),)) for f in files]
        for f, job in zip(files, pending):
            while not job.ready():
                job.wait(WATCH)
                if dead := [w.exitcode for w in workers if w.exitcode not in (None, 0)]:
                    why = f"signal {-dead[0]}" if dead[0] < 0 else f"exit code {dead[0]}"
                    click.echo(f"sizing: error: a render worker stopped ({why}; out of memory?) while rendering "
                               f"{visible(str(f))} or another scenario; nothing was written", err=True)
                    sys.exit(EXIT_OUTPUT)
            yield f, job.get()


def ignore_interrupts() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def render_workbook(results) -> bytes:
    from .render.workbook import workbook_bytes

    return workbook_bytes(results)


def render_report(results, workbook: bytes | None) -> bytes:
    from .render.report import report_bytes

    return report_bytes(results, workbook)


def write_one(file: str, output: str | None, suffix: str, render) -> None:
    """Evaluate one scenario and write one rendering of it (default: FILE's name, in this folder)."""
    results = evaluate_or_exit(file)
    echo_problems(results.problems)
    out = Path(output or Path(file).with_suffix(suffix).name)
    if out.suffix.lower() != suffix:
        click.echo(f"sizing: error: {visible(str(out))}: the output of this command is a {suffix} file; name it so",
                   err=True)
        sys.exit(EXIT_USAGE)
    from .output import overwrites_input

    inputs = input_files(results.scenario)
    problem = overwrites_input(out, inputs) or (f"{out}: {why}" if (why := unwritable(out)) else None)
    if problem:                               # found before any rendering, not after
        click.echo(f"sizing: error: {visible(problem)}", err=True)
        sys.exit(EXIT_OUTPUT)
    write_or_exit(out, render(results), inputs)
    click.echo(f"wrote {visible(str(out))}")


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
    click.echo(f"wrote {visible(file)}")


def device_file(path: Path) -> bool:
    """A device entry beside the scenarios (what `sizing measure` writes, for `from: FILE.yaml`): a mapping with a
    `kind` and no `sizing` key. A folder's scenarios leave it out; named as a file, it is checked as a scenario."""
    from .loader import Mapping, load_text, read_file

    data, _ = read_file(path)
    if data is None or re.search(rb"^sizing\s*:", data, re.M):      # a scenario's first key: no need to parse it
        return False
    node, _ = load_text(data, str(path))
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
@click.option("--strict", is_flag=True, help="Treat warnings as errors: nothing is written if any scenario has one.")
@click.option("--jobs", "-j", type=click.IntRange(1), help="Scenarios rendered at once, each in its own process "
              "(default: the processors this process may use; 1: in this process).")
def build(paths: tuple[str, ...], out_dir: str, strict: bool, jobs: int | None) -> None:
    """Write the workbook and the report of each scenario (files, or every .yaml in folders)."""
    from .evaluate import evaluate as run_engine
    from .scenario import load_scenario

    files = scenario_files(paths)
    stems: dict[str, Path] = {}
    for f in files:
        if f.stem in stems:                   # two scenarios would write the same outputs: refused, not overwritten
            click.echo(f"sizing: error: {visible(str(stems[f.stem]))} and {visible(str(f))} would both write "
                       f"{visible(f.stem)}.xlsx and {visible(f.stem)}.pdf in {visible(out_dir)}; build them into "
                       "different folders", err=True)
            sys.exit(EXIT_USAGE)
        stems[f.stem] = f
    problem = unwritable(Path(out_dir) / "build.check")
    if problem:                           # found before any rendering, not after
        click.echo(f"sizing: error: {visible(out_dir)}: {visible(problem)}", err=True)
        sys.exit(EXIT_OUTPUT)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    jobs = min(jobs or cores, len(files))
    loaded, evaluated, failed = [], [], False
    for f in files:
        scn, problems = load_scenario(f)
        if scn is not None:                   # worker processes evaluate again in full: here only the problems
            results = run_engine(scn, problems_only=jobs > 1, search=jobs == 1)
            problems = problems + results.problems
            evaluated.append(results)
        failed |= echo_problems(problems) or (strict and bool(problems))
        loaded.append(scn)
    if failed:
        sys.exit(EXIT_PROBLEMS)           # nothing is written when any scenario has errors (or, strict, warnings)
    outputs = []                          # every rendering first: a failure leaves no partial set
    tty = sys.stderr.isatty()                 # progress on a terminal; quiet when piped
    rendered = rendered_in_processes(files, jobs) if jobs > 1 else \
        ((f, rendered_pair(results)) for f, results in zip(files, evaluated))
    for i, (f, (xlsx, pdf)) in enumerate(rendered, 1):
        if tty:
            click.echo(f"\rrendered {i}/{len(files)}: {f.name}\x1b[K", err=True, nl=False)
        outputs += [(Path(out_dir) / f"{f.stem}{suffix}", data) for suffix, data in ((".xlsx", xlsx), (".pdf", pdf))]
    if tty:
        click.echo("\r\x1b[K", err=True, nl=False)
    inputs = tuple(sorted({i for scn in loaded for i in input_files(scn)}))   # no output replaces any scenario's input
    write_all_or_exit(outputs, inputs)        # all or none: a failed write leaves the previous set
    for out, _ in outputs:
        click.echo(f"wrote {visible(str(out))}")


@main.command()
def schema() -> None:
    """Print the JSON Schema of the scenario language (for editors)."""
    from .schema import json_schema

    click.echo(json.dumps(json_schema(), indent=2))


@main.group(invoke_without_command=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--kind", type=click.Choice(["cpu", "gpu", "tpu", "npu", "accelerator"]), help="Devices of this kind.")
@click.option("--min-memory", help="Devices with at least this memory, e.g. 80GB.")
@click.option("--min-bandwidth", help="Devices with at least this memory bandwidth, e.g. 3TB/s.")
@click.option("--precision", help="Devices with a rate at this precision, e.g. fp8.", callback=precision_option)
@click.option("--width", type=click.IntRange(0), help="Wrap each entry to this many columns (default: the terminal's "
              "width when printing to one, else no limit; 0: no limit).")
@click.pass_context
def catalog(ctx: click.Context, fmt: str, kind: str | None, min_memory: str | None, min_bandwidth: str | None,
            precision: str | None, width: int | None) -> None:
    """List the built-in devices and models (`sizing catalog show ID` for one); filters keep the devices that pass
    them."""
    if ctx.invoked_subcommand is not None:
        return
    from .render.catalog import as_json, chosen, listing
    from .units import UnitError, parse_quantity

    limits = {}
    for option, text, what in (("--min-memory", min_memory, "memory"), ("--min-bandwidth", min_bandwidth,
                                                                          "bandwidth")):
        try:
            spaced = re.sub(r"^\s*([0-9.]+(?:[eE][+-]?[0-9]+)?)\s*", r"\1 ", text) if text else None   # 80GB
            limits[what] = parse_quantity(spaced, what) if spaced else None
        except UnitError as e:
            click.echo(f"sizing: error: {option} {text}: {e}", err=True)
            sys.exit(EXIT_USAGE)
    devices, models = chosen(kind, limits["memory"], limits["bandwidth"], precision)
    click.echo(as_json(devices, models) if fmt == "json" else listing(devices, models, terminal_width(width)),
               nl=False)


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


for command in (measure, calibrate, init, diff):
    main.add_command(command)


if __name__ == "__main__":  # pragma: no cover
    main()
