"""Sweeps show what moves with the swept field (a traffic sweep: replicas, utilisation, monthly cost), and a
two-field sweep is a grid with the decision taken in every cell, in terminal, JSON, workbook and report."""

from __future__ import annotations

import io
import json
import re
from functools import lru_cache
from pathlib import Path

import openpyxl
import pytest

from helpers import page_texts, results_of, shipped_report
from sizing.evaluate import evaluate
from sizing.render.data import as_dict
from sizing.render.table import render
from sizing.render.workbook import workbook_bytes
from sizing.scenario import load_scenario_bytes

ROOT = Path(__file__).resolve().parents[1]


@lru_cache(maxsize=None)
def results(name: str):
    return results_of(name)


def variant(name: str, old: str, new: str, search: bool = True):
    text = (ROOT / "scenarios" / f"{name}.yaml").read_text()
    assert old in text
    scn, problems = load_scenario_bytes(text.replace(old, new).encode(), f"{name}.yaml")
    assert scn is not None, problems
    return evaluate(scn, search=search)


def test_a_traffic_sweep_shows_what_moves_with_traffic():
    (s,) = results("capacity-chat-8b").sweeps
    assert s.parameter == "traffic.peak"
    assert s.shown == ("cost_per_million_tokens", "replicas", "fleet_devices", "average_utilisation", "monthly_cost")
    assert "step_time" not in s.shown                   # the same at every traffic: not shown
    replicas = list(s.series["h100"]["replicas"])
    assert replicas == sorted(replicas) and replicas[0] < replicas[-1]      # the fleet grows with the peak
    (b,) = results("moe-mixtral-serving").sweeps          # a batch sweep still shows the step and the rates,
    # and what the decision ranks: the fleet and its monthly cost (a new user could not see them move with batch)
    assert b.shown == ("step_time", "token_interval", "tokens_per_s_per_user", "fleet_devices", "monthly_cost")
    # the time between tokens the per-token target checks: the step plus the batch's prefill spread over the answer
    mi = b.series["mi300x"]
    assert list(mi["token_interval"]) == pytest.approx([
        step + prefill / 400 for step, prefill in zip(mi["step_time"], mi["batch_prefill_time"])])


def test_the_traffic_sweep_in_terminal_and_workbook():
    r = results("capacity-chat-8b")
    text = render(r)
    assert re.search(r"traffic\.peak +h100 cost_per_million_tokens +h100 replicas +h100 fleet_devices", text)
    ws = openpyxl.load_workbook(io.BytesIO(workbook_bytes(r)))["Sweep"]
    heads = {c.value for row in ws.iter_rows(max_row=40) for c in row if isinstance(c.value, str)}
    assert {"replicas", "monthly cost ($/month)", "average utilisation"} <= heads
    assert "step time (ms)" not in heads


def test_a_grid_takes_the_decision_in_every_cell_as_the_engine_does_on_that_scenario():
    r = results("chat-70b-fp8")
    (g,) = r.grids
    assert (g.rows, g.row_values, g.columns, g.column_values) == ("batch", [4, 8, 16, 32, 64], "precision",
                                                                  ["fp8", "bf16"])
    assert g.objective == "monthly_cost"
    for i, batch in enumerate(g.row_values):           # independent check: the scenario with those values set
        for j, precision in enumerate(g.column_values):  # (each cell at its batch: none found by sizing beside it)
            one = variant("chat-70b-fp8", "    precision: fp8\n    batch: 16\n",
                          f"    precision: {precision}\n    batch: {batch}\n", search=False)
            best = one.decision.best
            assert (best.label if best else None) == g.best[i][j], (batch, precision)
            assert (best.value if best else None) == pytest.approx(g.value[i][j])
    base = r.written.decision.best              # the scenario's own cell (fp8, batch 16) is its decision as written
    assert r.decision.best.workload == "chat-b21"       # (the headline ranks the batches sizing found beside it)
    assert (g.best[2][0], g.value[2][0]) == (base.label, pytest.approx(base.value))
    # at batch 64 the FP8 workload misses the per-token target on every device it fits; its BF16 alternative,
    # moved to batch 64 too, no longer fits one B200 and is sharded to fit on two, which meet it; in the BF16 column
    # the workload is that alternative
    assert g.best[4] == ["b200, bf16-fit, on demand as traffic needs", "b200, fit, on demand as traffic needs"]
    assert g.value[4][0] == pytest.approx(g.value[4][1])
    assert g.best[0][0] == "mi300x, on demand as traffic needs"


def test_the_grid_in_terminal_json_and_workbook():
    r = results("chat-70b-fp8")
    (g,) = r.grids
    text = render(r)
    assert "grid of batch (down) by precision (across) for chat" in text
    assert re.search(r"16 +mi300x, on demand as traffic needs \$4,562/month +b200, on demand as traffic "
                     r"needs \$9,729/month", text)           # two Gaudi 3 share one mesh link: no longer the cheapest
    data = json.loads(json.dumps(as_dict(r)))
    assert data["grids"][0]["recommendation"][2][0] == g.best[2][0]
    assert data["grids"][0]["columns"] == {"field": "precision", "values": ["fp8", "bf16"]}
    ws = openpyxl.load_workbook(io.BytesIO(workbook_bytes(r)), data_only=True)["Sweep"]
    rows = [[c.value for c in row[:3]] for row in ws.iter_rows()]
    at = rows.index(["recommended option", "precision fp8", "precision bf16"])
    assert rows[at + 3] == ["16", g.best[2][0], g.best[2][1]]
    cost = rows.index(["its monthly cost ($/month)", "precision fp8", "precision bf16"])
    assert rows[cost + 3][1] == pytest.approx(g.value[2][0])
    assert rows[at + 5][1:] == g.best[4]


def test_a_grid_needs_two_fields_at_most_and_a_bounded_size():
    text = (ROOT / "scenarios" / "chat-70b-fp8.yaml").read_text()
    bad = text.replace("sweep: {batch: [4, 8, 16, 32, 64], precision: [fp8, bf16]}",
                       "sweep: {batch: {from: 1, to: 256, points: 256}, precision: [fp8, bf16]}")
    scn, problems = load_scenario_bytes(bad.encode(), "s.yaml")
    assert scn is None
    (p,) = [p for p in problems if p.level == "error"]
    assert p.code == "sweep-grid-too-large" and "a grid of 256 x 2 = 512 cells is more than 400" in p.message


@pytest.mark.slow
def test_the_traffic_sweep_and_the_grid_in_the_report():
    def text(name: str) -> str:                 # the shipped scenario's report and its text, each made once a run
        return " ".join(page_texts(shipped_report(ROOT / "scenarios" / f"{name}.yaml")))

    capacity = text("capacity-chat-8b")
    assert ("Replicas by traffic.peak; the average traffic held at 12 requests/s, as the scenario states it (the fleet "
            "grows with the peak, the work it serves does not) traffic.peak h100 l40s 15 requests/s 4 9 20 requests/s 4 "
            "11 40 requests/s 7 21") in capacity
    assert "Monthly cost by traffic.peak" in capacity and "Step time by traffic.peak" not in capacity
    grid = text("chat-70b-fp8")
    assert "Grid: Recommended option and its monthly cost, by batch (down) and precision (across)" in grid
    assert "The option recommended in each cell of the batch by precision grid" in grid


def test_a_sweep_in_slices_with_its_unshown_quantities_filled_on_demand_equals_one_pass(monkeypatch):
    """A sweep is evaluated in slices and keeps only what the outputs show; asking for any other quantity fills
    the rest in. Slices of 7 points and of all points give the same arrays, bit for bit, and the same JSON."""
    import numpy as np

    from sizing import sweeps

    sweep = "sweep: {batch: {from: 1, to: 5000, points: 50}}"
    old = "sweep: {batch: [4, 8, 16, 32, 64], precision: [fp8, bf16]}"
    whole = variant("chat-70b-fp8", old, sweep)
    monkeypatch.setattr(sweeps, "CHUNK", 7)
    sliced = variant("chat-70b-fp8", old, sweep)
    (a,), (b,) = whole.sweeps, sliced.sweeps
    table = next(iter(b.series.values())).table
    assert not table.complete and set(table.out) < {x.key for p in table.pairs for x in p.present()}
    for device, series in a.series.items():
        assert list(series) == list(b.series[device]) and len(series) > 50
        for q in series:
            np.testing.assert_array_equal(series[q], b.series[device][q], err_msg=f"{device} {q}")
    assert table.complete
    assert json.dumps(as_dict(whole)["sweeps"]) == json.dumps(as_dict(sliced)["sweeps"])
