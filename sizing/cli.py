"""The command line: validate, evaluate, schema, catalog (and the renderers); the only place that exits."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from . import __version__
from .errors import Problem

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, EXIT_OUTPUT = 0, 1, 2, 3


def echo_problems(problems: list[Problem], strict: bool = False) -> bool:
    """Print problems to stderr; True when any is an error (or a warning under --strict)."""
    for p in problems:
        click.echo(str(p), err=True)
    return any(p.level == "error" or strict for p in problems)


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
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def validate(files: tuple[str, ...], strict: bool, fmt: str) -> None:
    """Check scenario files; print every problem as file:line:col: level: field.path: message."""
    from .evaluate import evaluate
    from .scenario import load_scenario

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
        click.echo(f"sizing: no catalog entry '{entry}'; `sizing catalog` lists them", err=True)
        sys.exit(EXIT_USAGE)
    click.echo(text, nl=False)


if __name__ == "__main__":  # pragma: no cover
    main()
