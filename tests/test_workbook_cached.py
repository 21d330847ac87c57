"""Without a spreadsheet program: the workbook's stored values are the engine's, for pandas and data_only readers."""

from __future__ import annotations

import io
import re

import openpyxl
import pandas as pd
import pytest

from helpers import ROOT, SCENARIOS, results_of, shown
from sizing.evaluate import evaluate
from sizing.render.workbook import MASTER, build, names_of, recommendation_name, workbook_bytes
from sizing.render.workbook.summary import BEST, DRAWN, HOURLY, SERVING_CHECK
from sizing.render.workbook.sweep import LIVE_CELLS
from sizing.scenario import load_scenario_bytes

from test_workbook import engine_values, named_values, same

NONE = "none: no option meets every requirement"


@pytest.fixture(scope="module")
def books() -> dict[str, tuple]:
    out = {}
    for path in SCENARIOS:
        r = results_of(path.stem)
        out[path.stem] = (r, workbook_bytes(r))
    return out


def named_cached(data: bytes) -> dict[str, object]:
    """Every defined name's stored value, read as a reader without a calculation engine does."""
    return named_values(io.BytesIO(data), io.BytesIO(data))


@pytest.mark.parametrize("name", [p.stem for p in SCENARIOS])
def test_every_named_cell_stores_the_engine_value(books, name):
    r, data = books[name]
    got = named_cached(data)
    want = engine_values(r, names_of(r))
    wrong = {n: (got[n], v) for n, v in want.items() if not same(got[n] if got[n] != "" else None, v)}
    assert len(want) > 20 and wrong == {}
    assert got[MASTER] is True


@pytest.mark.parametrize("name", [p.stem for p in SCENARIOS])
def test_pandas_reads_each_recommendation(books, name):
    r, data = books[name]
    readme = pd.read_excel(io.BytesIO(data), sheet_name="README", header=None)
    said = dict(zip(readme[0], readme[1]))
    got = named_cached(data)
    for i, dec in enumerate(r.decisions):
        want = shown(r, dec, dec.best) if dec.best else NONE
        assert got[recommendation_name(i)] == want
    if len(r.decisions) == 1:
        assert said["recommendation"] == (shown(r, r.decision, r.decision.best) if r.decision.best else NONE)
    assert said["master check"] == "OK: every sanity check passes"


def test_pandas_reads_the_results_sheet_as_figures(books):
    """The Results sheet's monthly cost row of chat-70b-fp8 arrives in pandas as numbers, one per device."""
    r, data = books["chat-70b-fp8"]
    sheet = pd.read_excel(io.BytesIO(data), sheet_name="Results", header=None)
    row = sheet[sheet[0] == "monthly_cost"].iloc[0]
    by_option = {shown(r, r.decision, o): o.value for o in r.decision.options}
    labels = sheet[sheet[1] == "unit"].iloc[0]
    got = {labels[c]: row[c] for c in range(2, 2 + len(r.decision.options))}
    priced = {k: v for k, v in by_option.items() if v is not None}
    assert len(priced) >= 5
    assert {k: got[k] for k in priced} == pytest.approx(priced, rel=1e-12)


def test_a_10000_point_sweep_keeps_its_live_grid_within_the_cell_budget():
    """Every row of a long sweep would be ~190 formula cells on chat-70b-fp8: the grid keeps evenly spaced
    live rows (the first and the last among them) within LIVE_CELLS, and says so on README."""
    text = (ROOT / "scenarios" / "chat-70b-fp8.yaml").read_text()
    text = re.sub(r"^sweep:.*$", "sweep: {batch: {from: 1, to: 10000, points: 10000}}", text, flags=re.M)
    r = evaluate(load_scenario_bytes(text.encode(), "long.yaml")[0])
    b = build(r)
    sweep = b.sheets["Sweep"]
    cells = sum(len(c.formulas) for c in sweep.columns)
    live = [c.value for (row, col), c in sorted(sweep.cells.items()) if col == 1 and c.style == "sizing input"]
    assert LIVE_CELLS * 0.9 < cells <= LIVE_CELLS
    assert live[0] == 1 and live[-1] == 10000 and 500 < len(live) < 2000
    assert f"The batch sweep of chat has 10,000 points; Sweep shows {len(live):,} of them, evenly spaced, as live " \
           "rows." in b.notes


# Functions every spreadsheet has had since Excel 2007: none needs XlsxWriter's `_xlfn.` prefix (which the
# writer therefore does not search for).
CLASSIC = {"ABS", "AND", "COUNT", "COUNTIF", "EXP", "FIXED", "IF", "IFERROR", "INDEX", "ISBLANK", "ISERROR", "ISNUMBER",
           "LN", "MATCH", "N", "MAX", "MIN", "NOT", "OR", "POISSON", "RANK", "REPLACE", "ROUNDDOWN", "ROUNDUP",
           "SUMPRODUCT", "TRIM", "TRUE"}                    # each in Excel since 2003 and in LibreOffice


@pytest.mark.parametrize("name", [p.stem for p in SCENARIOS])
def test_formulas_use_only_classic_functions(books, name):
    _, data = books[name]
    wb = openpyxl.load_workbook(io.BytesIO(data))
    used = {f for ws in wb for row in ws.iter_rows() for c in row if c.data_type == "f"
            for f in re.findall(r"\b([A-Z][A-Z0-9.]*)\(", c.value)}
    assert used and used <= CLASSIC, used - CLASSIC


def literals(formula: str) -> list[str]:
    """The numbers written into a formula (text in quotes, cell references and names left out)."""
    bare = re.sub(r'"[^"]*"', '""', formula)
    bare = re.sub(r"\$?\b[A-Z]{1,3}\$?[0-9]+\b", "R", bare)
    bare = re.sub(r"(?<![0-9.])[A-Za-z_][A-Za-z0-9_.]*", "N", bare)
    return re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?:E[+-]?\d+)?", bare)


def test_literals_are_found():
    assert literals('=IF(A1>3,dev.h100.price*1E-05,"x 7")') == ["3", "1E-05"]


@pytest.mark.parametrize("name", [p.stem for p in SCENARIOS])
def test_no_formula_holds_a_number_other_than_0_1_2(books, name):
    """Every other number is a named constant on the Constants sheet (or an input)."""
    _, data = books[name]
    wb = openpyxl.load_workbook(io.BytesIO(data))
    found = {(ws.title, c.coordinate): n for ws in wb for row in ws.iter_rows() for c in row
             if c.data_type == "f" for n in literals(c.value) if n not in ("0", "1", "2")}
    assert found == {}


# -- Summary: what finance reads first ------------------------------------------------------------
def summary_rows(data: bytes) -> list[dict]:
    """The Summary's option rows, as {header: stored value}."""
    ws = openpyxl.load_workbook(io.BytesIO(data), data_only=True)["Summary"]
    rows, head = [], None
    for row in ws.iter_rows(values_only=True):
        if row[0] == "option":
            head = row
        elif head and row[0]:
            rows.append(dict(zip(head, row)))
        elif head:
            head = None
    return rows


@pytest.mark.parametrize("name", [p.stem for p in SCENARIOS])
def test_summary_lists_every_option_with_the_engines_money_and_rank(books, name):
    r, data = books[name]
    rows = summary_rows(data)
    assert sorted(row["option"] for row in rows) == sorted(shown(r, d, o) for d in r.decisions for o in d.options)
    by_label = {}
    for d in r.decisions:
        for o in d.options:
            by_label.setdefault(shown(r, d, o), []).append((d, o))
    for row in rows:
        d, o = by_label[row["option"]].pop(0)
        assert (row["rank"] or None) == o.rank
        assert row["meets requirements"] is o.passes or (not o.passes and row["meets requirements"] is False)
        money_col = "monthly cost (capital amortised)" if "monthly cost (capital amortised)" in row else "cost of the run"
        if o.value is not None and d.quantity in ("monthly_cost", "cost"):
            assert row[money_col] == pytest.approx(o.value, rel=1e-12)
        spread = r.simulation.decision(d.id).option(o.id) if r.simulation is not None else None
        if spread is not None and money_col.startswith("monthly"):       # the draws' shares beside the verdict
            assert (row[BEST], row[DRAWN]) == (spread.win_probability, spread.meets_probability)
    assert any(DRAWN in row for row in rows) == (r.simulation is not None and any(
        "monthly cost (capital amortised)" in row for row in rows))


def test_a_batch_that_misses_a_target_in_some_draws_says_so_on_summary(books):
    """A finance reviewer read 'meets requirements: TRUE' beside the MI300X's batch 21 on Summary; the report says it
    misses a latency target in 11 % of the simulated cases. The share of cases where it meets every requirement
    stands beside it, a formula on the Uncertainty sheet's figure."""
    _, data = books["chat-70b-fp8"]
    rows = {row["option"]: row for row in summary_rows(data)}
    assert rows["Instinct MI300X (batch 21), on demand"][DRAWN] == pytest.approx(0.89, abs=0.005)
    assert rows["Instinct MI300X (batch 21), on demand"][BEST] == pytest.approx(0.80, abs=0.005)   # page one's 80 %
    assert rows["Instinct MI300X (as stated), on demand"][DRAWN] == pytest.approx(0.99, abs=0.005)
    ws = openpyxl.load_workbook(io.BytesIO(data))["Summary"]
    head = [c.value for c in ws[8]]
    assert ws.cell(9, head.index(DRAWN) + 1).value.startswith("=Uncertainty!C")


@pytest.mark.parametrize("name", ["platform-two-services", "chat-70b-fp8", "eu-assistant-eur", "capacity-chat-8b"])
def test_summary_money_multiplies_out(books, name):
    """A year is 12 months; the horizon's total is capital + operating x months; capital spread over the horizon
    plus operating is the monthly cost; the reconciliation column says TRUE where that holds."""
    _, data = books[name]
    priced = [row for row in summary_rows(data) if isinstance(row["monthly cost (capital amortised)"], float)]
    assert len(priced) >= 3
    for row in priced:
        monthly, capital, operating, months = (row[k] for k in ("monthly cost (capital amortised)", "capital",
                                                                  "operating per month", "horizon (months)"))
        assert row["cost per year (capital amortised)"] == pytest.approx(12 * monthly, rel=1e-12)
        assert row["total over the horizon"] == pytest.approx(capital + operating * months, rel=1e-12)
        assert capital / months + operating == pytest.approx(monthly, rel=1e-9)
        assert row[SERVING_CHECK] is True
        rate, hours = row[HOURLY], 2629800 / 3600
        if row["cost basis"] == "rent on demand":
            assert row["devices billed on average (on demand)"] * rate * hours == pytest.approx(monthly, rel=1e-9)
        elif row["cost basis"] == "per token":
            assert rate is None
        else:
            assert row["devices (on demand: at the peak)"] * rate * hours == pytest.approx(monthly, rel=1e-9)
    assert any(row["capital"] > 0 for row in priced) or name == "chat-70b-fp8"
    assert {row["cost basis"] for row in priced} >= {"rent on demand"} or name == "platform-two-services"
    rules = {c.value for c in openpyxl.load_workbook(io.BytesIO(data), data_only=True)["Summary"]["A"]
             if str(c.value).startswith("money reconciles, ")}            # each rule once, under the table
    assert "money reconciles, on demand: devices billed on average × hourly rate × 730.5 hours a month = monthly" \
        in rules
    assert "money reconciles, held all month (own, rent, reserved): capital / horizon + operating = monthly = " \
           "devices × hourly rate × 730.5 hours a month" in rules
    # where the rows' horizons differ (an owned fleet written off over 4 years beside 36 months of renting), a line
    # says their totals do not compare (a finance reviewer compared them)
    months = {row["horizon (months)"] for row in summary_rows(data)}
    said = [c.value for c in openpyxl.load_workbook(io.BytesIO(data), data_only=True)["Summary"]["A"]
            if str(c.value).startswith("the rows' horizons differ")]
    assert said == (["the rows' horizons differ (an owned fleet's: its write-off period; else 36 months): compare "
                     "monthly costs, not totals over the horizon"] if len(months) > 1 else [])
    assert len(months) > 1 or name != "eu-assistant-eur"


COST_ROWS = ("rent_rate", "own_rate", "hourly_rate", "cost_basis", "owned_fleet", "breakeven_utilisation", "capex",
             "opex_monthly", "monthly_cost", "annual_cost", "tco", "monthly_cost_rent", "monthly_cost_own",
             "fleet_purchase", "busy_hours_monthly_cost", "cost_per_million_tokens", "cost_per_million_requests",
             "cost", "cost_that_fits", "batch_job_cost")


@pytest.mark.parametrize("name", [p.stem for p in SCENARIOS])
def test_every_cost_row_holds_one_formula_for_every_device(books, name):
    """Every device has the same cost cells (blank where not given), so a cost row is one formula across the
    devices, its own names apart: typing a purchase price for a device that had none flows to every total."""
    r, data = books[name]
    names = names_of(r)
    token = {d: names[f"device.{d}.price"].split(".")[1] for d in r.scenario.compare}
    ws = openpyxl.load_workbook(io.BytesIO(data))["Calc"]
    heads = {c.column: c.value for row in ws.iter_rows(max_col=len(token) + 2) for c in row[2:]
             if c.value in token}
    rows = 0
    for row in ws.iter_rows(min_col=1):
        if row[0].value not in COST_ROWS:
            continue
        shapes = {re.sub(rf"\.{re.escape(token[heads[c.column]])}\.", ".D.", c.value)
                  for c in row[2:] if isinstance(c.value, str) and c.value.startswith("=") and c.column in heads}
        assert len(shapes) <= 1, (row[0].value, shapes)
        rows += 1
    assert rows >= 4


@pytest.mark.parametrize("name", [p.stem for p in SCENARIOS])
def test_no_formula_is_longer_than_a_reader_can_check(books, name):
    """No formula over 300 characters: long ones are split into named parts (Calc) or working columns (Sweep),
    and each fleet search is a block of candidate rows on the Fleet sheet."""
    _, data = books[name]
    wb = openpyxl.load_workbook(io.BytesIO(data))
    lengths = [(len(c.value) - 1, ws.title, c.coordinate) for ws in wb for row in ws.iter_rows() for c in row
               if isinstance(c.value, str) and c.value.startswith("=")]
    assert max(lengths) <= (300, "~", "")
    assert lengths


def test_a_fleet_search_is_a_block_of_candidates_that_calc_adds():
    r = results_of("chat-70b-fp8")
    wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(r)))
    names = names_of(r)
    servers = next(c for row in wb["Calc"].iter_rows() for c in row if c.column == 3 and
                   wb["Calc"].cell(c.row, 1).value == "servers")
    assert "_search" in servers.value and "SUMPRODUCT" not in servers.value and len(servers.value) < 120
    fleet = wb["Fleet"]
    heads = [c.row for c in fleet["A"] if c.value == "candidate"]
    assert len(heads) == sum(1 for p in r.pairs if "servers" in p.values and "target_slack" in p.values)
    first = heads[0] + 1
    assert [fleet.cell(first + k, 1).value for k in (0, 63)] == [0, 63] and fleet.cell(first + 64, 1).value is None
    assert fleet.cell(first, 2).value.endswith(f"+A{first}") and names["chat/h100/servers"]


def test_a_wide_sweep_prints_in_pages_of_whole_quantity_groups(books):
    _, data = books["moe-mixtral-serving"]
    ws = openpyxl.load_workbook(io.BytesIO(data))["Sweep"]
    breaks = [b.id + 1 for b in ws.col_breaks.brk]            # first column of each later page
    assert breaks
    head = next(r for r in ws.iter_rows() if r[0].value == "batch" and r[1].value)[0].row - 1
    starts = [c.column for c in ws[head] if c.value]             # each quantity group's first column
    assert set(breaks) <= set(starts)
    edges = [2] + breaks + [max(starts) + 5]
    assert all(b - a <= 7 for a, b in zip(edges, edges[1:-1])), edges
    assert ws.print_title_cols == "$A:$A" and not ws.sheet_properties.pageSetUpPr.fitToPage      # A on every page, unshrunk


def test_calc_shows_each_figure_again_in_the_unit_a_person_reads(books):
    r, data = books["chat-70b-fp8"]
    wb = openpyxl.load_workbook(io.BytesIO(data))
    stored = openpyxl.load_workbook(io.BytesIO(data), data_only=True)["Calc"]
    ws = wb["Calc"]
    head = next(row for row in ws.iter_rows() if row[0].value == "quantity")
    at = next(c.column for c in head if c.value == "shown in")
    row = next(c.row for c in ws["A"] if c.value == "hourly_rate")
    assert stored.cell(row, at).value == "$/hour"
    h100 = r.pair("chat", "h100").values["hourly_rate"]
    assert ws.cell(row, at + 1).value == '=IF(ISNUMBER(C{0}),C{0}/u.per_hour,"")'.format(row)
    assert stored.cell(row, at + 1).value == pytest.approx(h100 * 3600)
    assert head[at].value == "h100, shown" and ws.cell(head[0].row, at + 6).value == "description"


def test_the_summary_spells_out_every_cost_basis_and_a_static_sweep_sheet_says_so(books):
    text = (ROOT / "scenarios" / "platform-two-services.yaml").read_text()
    assert text.count("purchase: 9000 USD, ") == 1
    scn, _ = load_scenario_bytes(text.replace("purchase: 9000 USD, ", "").encode(), "p.yaml")   # L40S: rented only
    wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(evaluate(scn))), data_only=True)   # the cached values
    bases = {str(c.value) for (c,) in wb["Summary"].iter_rows(min_col=2, max_col=2) if c.value}
    assert "reserved (rented all hours, commitment discount)" in bases and "reserved" not in bases
    assert "own (bought)" in bases
    title = openpyxl.load_workbook(io.BytesIO(books["chat-70b-fp8"][1]))["Sweep"]["A1"].value
    assert title == "Sweep: the scenario's grid, values from the engine (not live: change it in the scenario)"
    title = openpyxl.load_workbook(io.BytesIO(books["moe-mixtral-serving"][1]))["Sweep"]["A1"].value
    assert "edit the yellow column" in title                                   # a batch sweep: live rows


def test_a_share_just_short_of_all_the_draws_never_reads_100_percent(books):
    """0.9995 of the draws read '100.0%' at one decimal: such a share reads '> 99.9%' (and a share of exactly 1, 100 %),
    on the Uncertainty sheet and on the Summary cells that refer to it."""
    from sizing.render.workbook.uncertainty import NEARLY_ALL, SHARE, share_format
    assert [share_format(p) for p in (1.0, 0.9995, 0.99949, 0.5, 0.0)] == [SHARE, NEARLY_ALL, SHARE, SHARE, SHARE]
    _, data = books["chat-70b-fp8"]
    wb, got = openpyxl.load_workbook(io.BytesIO(data)), openpyxl.load_workbook(io.BytesIO(data), data_only=True)
    shares = [(ws.title, c.coordinate) for ws in wb for row in ws.iter_rows() for c in row
              if c.number_format in (SHARE, NEARLY_ALL)]
    near = [(t, xy) for t, xy in shares if isinstance(v := got[t][xy].value, float) and 0.9995 <= v < 1]
    assert near and all(wb[t][xy].number_format == NEARLY_ALL for t, xy in near)
    assert {t for t, _ in near} == {"Summary", "Uncertainty"}


def test_an_input_that_must_be_above_zero_refuses_zero_as_it_is_typed():
    """A finance reviewer typed an efficiency of 0: the cell's check said 'between 0 and 1' and let it in, and every
    figure over it divided by zero. A share the language takes above 0 refuses 0 where it is typed."""
    b = build(results_of("pretrain-deadline"))
    rules = [v.options for v in b.sheets["Inputs"].validations if v.options.get("criteria") == "between"
             and v.options.get("maximum") == 1]
    strict = [o for o in rules if o["error_message"].startswith("Expected a value above 0 and at most 1")]
    assert strict and all(0 < o["minimum"] <= 1e-9 for o in strict)
    assert all(o["minimum"] == 0 for o in rules if o not in strict)        # a share that may be 0 still takes it


def test_a_share_blank_as_built_is_formatted_as_a_share(books):
    """pretrain-deadline prices no purchase: the break-even and write-off shares are blank as built, and a finance
    reviewer who typed a purchase read 0.38 beside '%' (General format)."""
    _, data = books["pretrain-deadline"]
    ws = openpyxl.load_workbook(io.BytesIO(data))["Calc"]
    rows = [r for r in ws.iter_rows() if r[0].value in ("breakeven_utilisation", "write_off_share")]
    assert len(rows) >= 2
    for r in rows:
        shown = [c for c in r if isinstance(c.value, str) and re.match(r"=IF\(ISNUMBER\([A-Z]+\d+\)", c.value)]
        assert shown and {c.number_format for c in shown} == {"0.0%"}
