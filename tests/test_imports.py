"""Dependencies point one way: cli -> render -> evaluate -> formulas/schema -> units/errors."""

import ast
import subprocess
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "sizing"
# module -> what it must never import
FORBIDDEN = {
    "kinds": {"errors", "units", "loader", "schema", "scenario", "formulas", "evaluate", "render", "cli",
              "narrative"},
    "errors": {"units", "loader", "schema", "scenario", "formulas", "evaluate", "render", "cli"},
    "units": {"loader", "schema", "scenario", "formulas", "evaluate", "render", "cli"},
    "loader": {"units", "schema", "scenario", "formulas", "evaluate", "render", "cli"},
    "hfconfig": {"schema", "scenario", "formulas", "evaluate", "render", "cli"},
    "schema": {"scenario", "formulas", "evaluate", "render", "cli"},
    "language": {"scenario", "formulas", "evaluate", "render", "cli", "narrative", "results"},
    "results": {"formulas", "evaluate", "render", "cli", "narrative", "schema", "scenario"},
    "narrative": {"render.report", "render.workbook", "cli", "openpyxl", "weasyprint", "matplotlib", "jinja2"},
    "formulas": {"loader", "schema", "scenario", "evaluate", "render", "cli", "yaml", "openpyxl",
                 "weasyprint", "matplotlib", "jinja2"},
    "scenario": {"evaluate", "render", "cli"},
    "evaluate": {"render", "cli", "openpyxl", "weasyprint", "matplotlib", "jinja2"},
    "render": {"cli"},
    "output": {"evaluate", "render", "cli"},
}


def imported(path: Path) -> set[str]:
    """Top-level names a module imports: `sizing.x`/relative `.x` become 'x'; others their first part."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level == 0 and not mod.startswith("sizing"):
                out.add(mod.split(".")[0])
                continue
            parts = mod.split(".")
            parts = parts[1:] if parts and parts[0] == "sizing" else parts
            # `from .. import x` inside a subpackage names sibling modules
            out |= {parts[0]} if parts and parts[0] else {a.name for a in node.names}
    return out


def modules():
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG).with_suffix("")
        yield rel.parts[0], path


def test_import_direction():
    bad = []
    for top, path in modules():
        for name in imported(path) & FORBIDDEN.get(top, set()):
            if top == name:
                continue
            bad.append(f"{path.relative_to(PKG)} imports {name}")
    assert bad == []


def test_only_cli_exits():
    for top, path in modules():
        if top not in ("cli", "cli_common", "cli_tools"):
            assert "sys.exit" not in path.read_text(), path


def test_light_start_up():
    code = ("import sys, sizing.cli, sizing.evaluate, sizing.render.table, sizing.render.data;"
            "print(sorted(m for m in ('matplotlib', 'weasyprint', 'openpyxl') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_package_is_installed():
    """pyproject lists every package of sizing/ (a package left out works from the repository and is missing from
    an installed copy: sizing.accuracy was)."""
    import tomllib
    listed = set(tomllib.loads((PKG.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(PKG.parent).parts) for p in PKG.rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)
