"""Shared fixtures: LibreOffice as the reference spreadsheet engine, with forced recalculation."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

# pytest-xdist's workers set COLUMNS=80, which sizing honours when piped: the CLI tests read the output a program gets
# (one line a row); a test of the width sets its own.
os.environ.pop("COLUMNS", None)

# Without these settings LibreOffice keeps the cached values it finds in a file (openpyxl writes
# none, so every formula would read blank): always recalculate OOXML and ODF files on load.
RECALC_PROFILE = """\
<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
           xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">
  <prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop>
</item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">
  <prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop>
</item>
</oor:items>
"""


class Recalculator:
    """Recalculates .xlsx files with LibreOffice: several files per call (one start-up), one profile."""

    def __init__(self, soffice: str, profile: Path, scratch: pytest.TempPathFactory):
        self.soffice = soffice
        self.profile = profile
        self.scratch = scratch

    def __call__(self, files: list[Path]) -> list[Path]:
        """Recalculated copies of `files` (their names must differ), to be read with data_only=True."""
        names = [f.name for f in files]
        assert len(set(names)) == len(names), f"file names must differ: {names}"
        out = self.scratch.mktemp("recalculated")
        cmd = [self.soffice, "--headless", "--norestore", f"-env:UserInstallation={self.profile.as_uri()}",
               "--convert-to", "xlsx", "--outdir", str(out), *map(str, files)]
        proc = subprocess.run(cmd, env={**os.environ, "HOME": str(self.profile)}, capture_output=True,
                              text=True, timeout=900)
        done = [out / name for name in names]
        missing = [p.name for p in done if not p.exists()]
        assert not missing, f"LibreOffice did not recalculate {missing}:\n{proc.stdout}\n{proc.stderr}"
        return done


@pytest.fixture(scope="session")
def recalc(tmp_path_factory: pytest.TempPathFactory) -> Recalculator:
    """LibreOffice recalculation; skips without `soffice`, but fails when CI=true (CI must run it)."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("LibreOffice (soffice) is required when CI=true: install libreoffice-calc-nogui")
        pytest.skip("LibreOffice (soffice) is not installed")
    profile = tmp_path_factory.mktemp("libreoffice-profile")
    (profile / "user").mkdir()
    (profile / "user" / "registrymodifications.xcu").write_text(RECALC_PROFILE, encoding="utf-8")
    return Recalculator(soffice, profile, tmp_path_factory)


QUIET = ("times this machine, and tests running beside it in parallel make the timings say nothing: run the "
         "timing tests alone, `pytest -m timing` (the README's test command does, after the parallel run)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """LibreOffice recalculations and PDF renders are the slow tier (`pytest -m "not slow"` skips them); the timing
    tests are skipped in a parallel run (xdist workers beside each other), which keeps the machine busy."""
    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    for item in items:
        if "recalc" in getattr(item, "fixturenames", ()) or item.module.__name__.endswith("test_report"):
            item.add_marker(pytest.mark.slow)
        if workers > 1 and item.get_closest_marker("timing"):
            item.add_marker(pytest.mark.skip(reason=QUIET))
