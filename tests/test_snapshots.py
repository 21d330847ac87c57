"""A reviewed JSON snapshot per shipped scenario: any change of any quantity, decision or problem is a diff.

Regenerate after a reviewed change with `SIZING_UPDATE_SNAPSHOTS=1 pytest tests/test_snapshots.py`, then read
`git diff tests/snapshots/` before committing it.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from helpers import ROOT, SCENARIOS
from sizing.evaluate import evaluate
from sizing.render.data import as_dict
from sizing.scenario import load_scenario

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("SIZING_UPDATE_SNAPSHOTS") == "1"


def document(path: Path) -> dict:
    """The evaluation as `sizing evaluate --format json` prints it, without the tool's version."""
    scn, problems = load_scenario(path.relative_to(ROOT))
    assert scn is not None, problems
    r = evaluate(scn)
    r.problems = problems + r.problems
    doc = json.loads(json.dumps(as_dict(r)))
    doc.pop("tool")
    return doc


def differences(got, want, at: str = "") -> list[str]:
    """Where two JSON documents differ (floats to 1e-12 relative: the same arithmetic, any platform)."""
    if isinstance(want, dict) and isinstance(got, dict):
        keys = sorted(set(got) | set(want))
        return [d for k in keys for d in differences(got.get(k, "<absent>"), want.get(k, "<absent>"), f"{at}.{k}")]
    if isinstance(want, list) and isinstance(got, list) and len(got) == len(want):
        return [d for i, (g, w) in enumerate(zip(got, want)) for d in differences(g, w, f"{at}[{i}]")]
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        return [] if math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-300) else [f"{at}: {got!r} != {want!r}"]
    return [] if got == want and type(got) is type(want) else [f"{at}: {got!r} != {want!r}"]


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_evaluation_matches_its_reviewed_snapshot(path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(ROOT)
    got = document(path)
    snap = SNAPSHOTS / f"{path.stem}.json"
    if UPDATE or not snap.exists():
        snap.write_text(json.dumps(got, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"{snap.name} did not exist and was written: review and commit it")
    want = json.loads(snap.read_text(encoding="utf-8"))
    diff = differences(got, want)
    assert diff == [], "\n".join(diff[:40])


def test_every_snapshot_has_its_scenario():
    assert sorted(p.stem for p in SNAPSHOTS.glob("*.json")) == sorted(p.stem for p in SCENARIOS)
