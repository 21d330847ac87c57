"""What every command shares: the exit codes, problems printed as located lines, loading or evaluating a scenario
or exiting, and writing an output whole or exiting."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .errors import Problem, visible

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, EXIT_OUTPUT = 0, 1, 2, 3


def terminal_width(width: int | None) -> int | None:
    """The width tables fit: `--width`, else on a terminal its columns, else a COLUMNS the caller set (a new user's
    `COLUMNS=80 sizing evaluate ... | less` printed 340-character lines), else none (one line a row, for a program)."""
    import os
    import shutil
    if width is not None:
        return width or None
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    given = os.environ.get("COLUMNS", "")
    return int(given) if given.isdigit() and int(given) > 0 else None


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


def write_or_exit(path: Path, data: bytes, inputs: tuple) -> None:
    write_all_or_exit([(path, data)], inputs)


def write_all_or_exit(items: list[tuple[Path, bytes]], inputs: tuple) -> None:
    """Write every (path, data) or none (output.write_all); an output error is one escaped line and exit 3."""
    from .errors import OutputError
    from .output import write_all

    try:
        write_all(items, inputs)
    except OutputError as e:
        click.echo(f"sizing: error: {visible(str(e))}", err=True)
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


def input_files(scn) -> tuple[str, ...]:
    """Files an output must never replace: the scenario and every file it reads (records, config.json files, device
    files: each value knows the file it was read from)."""
    entities = [*scn.devices.values(), *scn.models.values(), *scn.workloads.values(), *scn.benchmarks]
    return (scn.file, *sorted({v.file for e in entities for v in e.values.values() if v.file} - {scn.file}))


def precision_option(ctx, param, value: str | None) -> str | None:
    """A --precision the scenario language knows ('FP8' read as 'fp8'), else a usage error naming the option."""
    from .checks import suggest
    from .language.hardware import PRECISIONS

    if value is None or value in PRECISIONS:
        return value
    if value.lower() in PRECISIONS:
        return value.lower()
    raise click.BadParameter(f"{value!r} is not a precision{suggest(value.lower(), PRECISIONS)} (one of "
                             f"{', '.join(PRECISIONS)})")
