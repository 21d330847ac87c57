"""Tests for the PDF decision report, read back from the PDF: answer first, engine figures, attachments, safety."""

from __future__ import annotations

import io
import math
import os
import re
import select
import socket
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

import pdfplumber
import pypdf
import pytest

from helpers import STAND_IN_WORKBOOK, page_texts, shipped_report
from sizing import __version__
from sizing import formulas as F
from sizing.evaluate import Results, decide_with, evaluate, what_if
from sizing.narrative.confidence import estimate
from sizing.narrative.memo import option_words, table_names
from sizing.render import charts
from sizing.render.format import aligned, human
from sizing.narrative import label
from sizing.narrative.confidence import share
from sizing.render.report import report_bytes
from sizing.render.report.spread import name_of
from sizing.scenario import load_scenario, load_scenario_bytes, sha256

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))
WORKBOOK = STAND_IN_WORKBOOK

HOSTILE = """\
sizing: 1
name: hostile
title: "Costs $5 and $6 <script>alert(1)</script>"
description: "See <link rel=attachment href=file:///etc/passwd> and <img src=http://127.0.0.1:{port}/x> now"
owner: "<b>Mallory</b> & co"
devices:
  gpu:
    name: "<img src=http://127.0.0.1:{port}/name>"
    kind: gpu
    compute: {{bf16: 200 TFLOP/s}}
    memory: 80 GB
    memory_bandwidth: 2 TB/s
    price: 2.00 USD/hour
models:
  m: {{parameters: 7e9, layers: 32, kv_heads: 8, head_dim: 128}}
workloads:
  chat:
    title: "$x$ <iframe src=http://127.0.0.1:{port}/w>"
    kind: generate
    model: m
    precision: bf16
    batch: 8
    input_tokens: 500
    output_tokens: 100
decision:
  objective: cost_per_million_tokens
"""


@lru_cache(maxsize=None)
def results(path: Path) -> Results:
    scn, problems = load_scenario(path)
    assert scn is not None, problems
    r = evaluate(scn)
    r.problems = problems + r.problems
    return r


def pdf(path: Path) -> bytes:
    return shipped_report(path)


def reader(data: bytes) -> pypdf.PdfReader:
    return pypdf.PdfReader(io.BytesIO(data))


def text(data: bytes, pages: slice = slice(None)) -> str:
    """All text of the pages, whitespace collapsed (table cells and wrapped lines become single spaces)."""
    return " ".join(page_texts(data)[pages])


def squeezed(s: str) -> str:
    return re.sub(r"\s+", "", s)


def scenario(name: str) -> Path:
    return ROOT / "scenarios" / name


@lru_cache(maxsize=None)
def without_ranges(name: str) -> Path:
    """A shipped scenario with its `uncertainty:` block (its last) cut off: the report then shows the tornado."""
    text = scenario(name).read_text()
    assert "\nuncertainty:" in text
    path = Path(tempfile.mkdtemp(prefix="sizing-plain-")) / name
    path.write_text(text[:text.index("\nuncertainty:") + 1])
    return path


# -- the answer first ----------------------------------------------------------------------------------
def test_first_page_says_what_to_buy_and_why():
    path = scenario("chat-70b-fp8.yaml")
    r = results(path)
    dec = r.decision
    best, second = dec.best, next(o for o in dec.options if o.rank == 2)
    p = r.pair(best.workload or dec.workload, best.device).values
    first = " ".join(text(pdf(path), slice(0, 1)).split())
    assert "RECOMMENDATION Rent Instinct MI300X on demand as traffic needs at batch 21 (found by sizing), " in first
    assert f"{p['busy_hours_devices']:.3f} devices on average, {p['fleet_devices']:.0f} devices at the peak, the quota to ask for (a floor: " \
           f"it assumes devices can be had the moment traffic rises)" in first
    assert f"MONTHLY COST ${best.value:,.0f} a month" in first
    assert "TOTAL OVER 36 MONTHS (NO COMMITMENT)" in first         # on demand: what it comes to, not a contract
    from sizing.render.report.memo import figures
    two = results(scenario("platform-two-services.yaml"))
    assert [[k for k, _ in figures(two, d) if k.startswith("Total")] for d in two.decisions] == [
        ["Total over 36 months (no commitment)"], ["Total over 36 months"]]      # the API; the fleet bought
    gap = second.value - best.value
    assert f"Runner-up: Instinct MI300X (batch 16, as stated) rented on demand as traffic needs at " \
           f"{human(second.value, 'USD/month')}; the recommendation costs $429/month less (the runner-up " \
           f"costs {second.value / best.value:.2f}x as much)." in first            # the scenario's own batch
    assert round(gap) == 429
    assert "Best on another device: B200 SXM 180GB (batch 46) rented on demand as traffic needs at $5,479/month; the " \
           "recommendation costs $1,346/month less (that option costs 1.33x as much); it stays the cheaper up to " \
           "$2.45/hour per Instinct MI300X (the scenario's $1.85/hour), the rest as assumed." in first
    assert "Why: Traffic is below its peak most of the month" in first
    assert "Checked against: holds the model and its working memory; time between tokens at most 50 ms for 95 % of " \
           "requests; time to first token at most 1 s for 95 % of requests; serves a peak of 5 requests/s with 1 " \
           "spare replica." in first
    assert "Risks: price of 2025-01, 23 months old" in first          # the scenario's field_sources date
    second_page = " ".join(text(pdf(path), slice(1, 2)).split())     # page one is full: the sign-off heads page 2,
    assert second_page.startswith("Sign-off Role Name Signature Date Prepared by (owner) "
                                  "Platform architecture Reviewed by Approved by")     # the options after it
    assert "Options compared" in second_page
    for jargon in ("intensity", "ridge point", "memory-bound", "Dominant constraint", "mi300x"):
        assert jargon not in first                         # engineering and ids move to the evidence pages


def test_first_page_names_the_fleet_to_buy_and_its_capital():
    path = scenario("capacity-chat-8b.yaml")
    p = results(path).pair("chat-b256", "h100").values                 # at the batch sizing found for it held
    technical = squeezed(text(pdf(path), slice(0, 4)))
    # the hosted API is recommended; the cheapest fleet held all month is named beside it, with its capital and cost
    own = "$1.4553/hour"                     # a rate the sentence multiplies: the digits its product with the month
    assert round(1.4553 * p["fleet_devices"] * 730.5) == round(p["monthly_cost"]) \
        and abs(p["own_rate"] * 3600 - 1.4553) < 5e-5                  # needs (4 devices: five figures suffice)
    assert squeezed(f"Cheapest fleet held all month: {p['fleet_devices']:.0f} × H100 SXM5 80GB (batch 256): "
                    f"{p['replicas']:.0f} replicas "
                    f"({p['servers']:.0f} for the peak + 1 spare); costed as owned at {own} per device, cheaper "
                    f"than renting with the commitment discount at $1.75/hour; buying them costs {human(p['fleet_purchase'], 'USD', 'USD')}; "
                    f"{human(p['monthly_cost'], 'USD/month', 'USD/month')}.") in technical
    assert p["fleet_purchase"] == p["fleet_devices"] * 30000


def tables_headed(path: Path, first: str, pages: slice = slice(0, 9)) -> tuple[list, list]:
    """The table whose header's second cell is `first`, its rows gathered over the pages it runs across."""
    with pdfplumber.open(io.BytesIO(pdf(path))) as doc:
        tables = [[[" ".join((c or "").split()) for c in row] for row in t]
                  for page in doc.pages[pages] for t in page.extract_tables()]
    start = next(i for i, t in enumerate(tables) if t and len(t[0]) > 1 and t[0][1] == first)
    head, *rows = tables[start]
    for more in tables[start + 1:]:                  # continued on the next page, its header repeated
        if more[0] != head:
            break
        rows += more[1:]
    return head, rows


def test_comparison_table_follows_the_engines_ranking():
    path = scenario("chat-70b-fp8.yaml")
    r = results(path)
    dec = r.decision
    d = F.definition(dec.quantity)
    head, rows = tables_headed(path, "Option")
    assert head[2] == "Monthly cost" and head[-1] == "Verdict"
    names = table_names(r, dec)                  # as the options table names them, never the engine's label
    assert [row[1] for row in rows] == [names[o.id] for o in dec.options]
    assert [row[0] for row in rows] == [str(o.rank) if o.rank else "–" for o in dec.options]   # failing: unranked
    assert [row[2] for row in rows] == [human(o.value, d.unit, d.display) for o in dec.options]
    assert rows[0][-1] == "recommended"


def test_options_table_prices_every_option_on_its_basis_and_reconciles():
    """Capital, running cost, monthly cost and the horizon's total are the engine's, one format per column, and
    total = capital + running cost × months for every priced option."""
    path = scenario("capacity-chat-8b.yaml")
    r = results(path)
    dec = r.decision
    head, rows = tables_headed(path, "Option and how it is paid")
    assert [h.replace("/ ", "/") for h in head[3:8]] == ["Capital (USD)", "Running cost (USD/month)", "Monthly cost (USD/month)",
                         "Total over 36 months (USD)", "Cost per million output tokens (USD)"]
    assert [row[0] for row in rows] == [str(o.rank) if o.rank else "–" for o in dec.options]
    cash = lambda cell: float(cell.replace("$", "").replace(",", ""))          # noqa: E731
    for o, row in zip(dec.options, rows):
        v = r.pair(o.workload or dec.workload, o.device).values
        if o.value is None:
            continue
        assert cash(row[5]) == pytest.approx(o.value, abs=0.5)                   # whole units: every figure >= 1,000
        capital, running, total = cash(row[3]), cash(row[4]), cash(row[6])
        assert total == pytest.approx(capital + running * 36, abs=0.5 + 36 * 0.5)
        if o.variant == "fleet":
            assert capital == pytest.approx(v["capex"], abs=0.5) and running == pytest.approx(v["opex_monthly"], abs=0.5)
    for col in (3, 4, 5, 6):                          # one format per column: whole units, thousands separated
        assert all(re.fullmatch(r"\$[\d,]+|n/a", row[col]) for row in rows), [row[col] for row in rows]
    assert all(re.fullmatch(r"\$\d+\.\d{2}|–", row[7]) for row in rows), [row[7] for row in rows]
    api = rows[[o.variant for o in dec.options].index("api")]
    assert api[1].startswith("Hosted API") and "capacity not modelled" in api[-1]


def test_results_tables_carry_the_engines_values():
    path = scenario("ref-link-matmul.yaml")
    r = results(path)
    body = squeezed(text(pdf(path)))
    pairs = [p for p in r.pairs if p.workload == "link-demo"]
    for d in {x.d.id: x.d for p in pairs for x in p.present()}.values():
        have = [p for p in pairs if d.id in p.values]
        row = aligned([p.values[d.id] for p in have], d.unit, d.display)     # one format across the row
        cells = iter(row)
        shown = [next(cells) if p in have else "–" for p in pairs]
        assert squeezed(label(d.id) + "".join(shown)) in body, (d.id, shown)


def test_method_prints_the_formulas_used():
    path = scenario("ref-link-matmul.yaml")
    r = results(path)
    body = squeezed(text(pdf(path)))
    for p in r.pairs:
        for x in p.planned:
            if not isinstance(x.expr, F.Missing) and x.d.id not in p.absent:     # a cost not offered is not used
                assert squeezed(F.to_text(x.expr)) in body, x.d.id


def test_sensitivity_reports_what_the_engine_says_when_the_price_moves():
    path = without_ranges("chat-70b-fp8.yaml")
    r = results(path)
    dec = r.decision
    best, d = dec.best, F.definition(dec.quantity)
    key = f"device.{best.device}.price"
    price = r.inputs[key]
    row = ["Instinct MI300X hourly rental price", price.value.text]
    for factor in (0.75, 1.25):
        alt = decide_with(r, what_if(r, {key: price.value.value * factor}))
        row += [option_words(r, alt.best, short=True), human(alt.best.value, d.unit, d.display)]
        moved = human(price.value.value * factor, "USD/s")
        flip = f"the Instinct MI300X hourly rental price 25 % {'lower' if factor < 1 else 'higher'} ({moved} instead " \
               f"of $1.85/hour)"
        assert (squeezed(flip) in squeezed(text(pdf(path), slice(0, 1)))) == (alt.best.id != best.id)
    assert squeezed("".join(row)) in squeezed(text(pdf(path)))


def test_what_if_without_changes_reproduces_the_evaluation():
    r = results(scenario("chat-70b-fp8.yaml"))
    env = what_if(r, {})
    for p in r.pairs:
        for x in p.present():
            v = p.values[x.d.id]
            if v is None:                                   # no value (never compute-bound): NaN in the engine
                assert math.isnan(env[x.key])
            else:
                assert env[x.key] == pytest.approx(v) if isinstance(v, float) else env[x.key] == v
    assert decide_with(r, env) == r.decision


def test_break_even_and_caveat_and_provenance():
    path = scenario("ref-link-matmul.yaml")
    r = results(path)
    body = text(pdf(path))
    cross = r.sweeps[0].crossovers[0]
    assert f"{cross.faster} is faster than" in body
    assert "Illustrative figures." in body
    assert r.scenario.data and sha256(r.scenario.data) in squeezed(body)
    assert f"sizing {__version__}" in body
    assert "ref-link-matmul.yaml" in body


# -- the file ------------------------------------------------------------------------------------------
def test_scenario_and_workbook_are_attached():
    path = scenario("chat-70b-fp8.yaml")
    files = reader(pdf(path)).attachments
    assert set(files) == {"chat-70b-fp8.yaml", "chat-70b-fp8.xlsx"}
    assert files["chat-70b-fp8.yaml"] == [results(path).scenario.data]
    assert files["chat-70b-fp8.xlsx"] == [WORKBOOK]
    # a procurement reviewer looked for the attachments beside the PDF: the provenance says where they are
    text = " ".join(" ".join(page.extract_text().split()) for page in reader(pdf(path)).pages)
    assert "chat-70b-fp8.yaml, chat-70b-fp8.xlsx (embedded in this PDF: a PDF reader lists them under " \
        "Attachments)" in text


def test_without_a_workbook_only_the_scenario_is_attached():
    r = results(scenario("ref-classifier.yaml"))
    assert set(reader(report_bytes(r)).attachments) == {"ref-classifier.yaml"}


def test_tagged_pdf_a_3a_with_metadata_page_numbers_and_running_title():
    path = scenario("chat-70b-fp8.yaml")
    doc = reader(pdf(path))
    root = doc.trailer["/Root"]
    xmp = root["/Metadata"].get_object().get_data()
    assert b'pdfaid:part="3"' in xmp and b'pdfaid:conformance="A"' in xmp
    assert bool(root["/MarkInfo"]["/Marked"]) and "/StructTreeRoot" in root        # tagged: structure for readers
    meta = doc.metadata
    assert meta["/Author"] == "Platform architecture"
    assert meta["/Subject"] == "Decision memo: Rent Instinct MI300X on demand as traffic needs (Support assistant)"
    assert meta["/Keywords"] == "sizing, hardware sizing, chat-70b-fp8, h100, h200, b200, mi300x, gaudi3, generate"
    names = root["/Names"]["/EmbeddedFiles"]["/Names"]
    described = {names[i]: names[i + 1].get_object()["/Desc"] for i in range(0, len(names), 2)}
    assert described["chat-70b-fp8.yaml"].startswith("The scenario this report was computed from")
    assert described["chat-70b-fp8.xlsx"].startswith("The formula-live workbook of the same scenario")
    n = len(doc.pages)
    second = " ".join(doc.pages[1].extract_text().split())
    assert f"Page 2 of {n}" in second
    assert results(path).scenario.title in second


def test_two_builds_give_the_same_bytes():
    path = scenario("ref-classifier.yaml")
    assert report_bytes(results(path), WORKBOOK) == report_bytes(results(path), WORKBOOK)


def test_every_chart_carries_its_description_for_the_tagged_pdf(caplog):
    """PDF/A-3a tags each figure; a figure without a description (alt text) is a conformance error WeasyPrint logs.
    Each chart's description is its caption."""
    import logging

    with caplog.at_level(logging.WARNING, logger="weasyprint"):
        data = report_bytes(results(scenario("eu-assistant-eur.yaml")))
    assert not [m for m in caplog.messages if "alt description" in m]
    alts = []

    def walk(node):
        node = node.get_object()
        if isinstance(node, dict):
            if node.get("/S") == "/Figure":
                alts.append(str(node.get("/Alt", "")))
            kids = node.get("/K", [])
            for kid in kids if isinstance(kids, list) else [kids]:
                walk(kid)
    walk(reader(data).trailer["/Root"]["/StructTreeRoot"])
    assert len(alts) >= 3 and all(alts), alts
    assert alts[0].startswith("Roofline of assistant: each device's ceiling")


def test_the_clock_does_not_reach_the_bytes(monkeypatch):
    """Without HarfBuzz-Subset, WeasyPrint subsets fonts with fontTools, which stamps each subset with the clock's
    time: a report rendered a day later is still the same file, and the environment is left as it was."""
    import fontTools.misc.timeTools as clock
    import weasyprint.pdf.fonts

    monkeypatch.setattr(weasyprint.pdf.fonts, "harfbuzz_subset", None)        # the fontTools path, even in CI
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    path = scenario("ref-classifier.yaml")
    monkeypatch.setattr(clock.time, "time", lambda: 1_800_000_000.0)
    first = report_bytes(results(path))
    monkeypatch.setattr(clock.time, "time", lambda: 1_800_086_400.0)
    assert report_bytes(results(path)) == first
    assert "SOURCE_DATE_EPOCH" not in os.environ


def test_another_process_gives_the_same_bytes(tmp_path):
    path = scenario("ref-finetune-7b.yaml")
    out = tmp_path / "other.pdf"
    code = ("import sys; from pathlib import Path; from sizing.scenario import load_scenario; "
            "from sizing.evaluate import evaluate; from sizing.render.report import report_bytes; "
            "scn, _ = load_scenario(sys.argv[1]); Path(sys.argv[2]).write_bytes(report_bytes(evaluate(scn)))")
    env = dict(os.environ, PYTHONHASHSEED="12345")      # set and dict order must not leak into the bytes
    subprocess.run([sys.executable, "-c", code, str(path), str(out)], check=True, env=env, cwd=ROOT)
    scn, _ = load_scenario(path)
    assert out.read_bytes() == report_bytes(evaluate(scn))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_shipped_scenario_renders(path):
    data = pdf(path)
    assert data.startswith(b"%PDF-1.7")
    doc = reader(data)
    assert len(doc.pages) >= 3
    assert doc.attachments[path.name] == [results(path).scenario.data]
    assert "Provenance" in text(data, slice(-1, None))


# -- user text is data ---------------------------------------------------------------------------------
@pytest.fixture
def listener():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.setblocking(False)
    yield sock
    sock.close()


def test_user_text_is_rendered_literally_and_fetches_nothing(listener, monkeypatch):
    import weasyprint

    port = listener.getsockname()[1]
    fetched = []
    original = weasyprint.urls.URLFetcher.fetch

    def spy(self, url, *args, **kwargs):
        fetched.append(url)
        return original(self, url, *args, **kwargs)

    monkeypatch.setattr(weasyprint.urls.URLFetcher, "fetch", spy)
    scn, problems = load_scenario_bytes(HOSTILE.format(port=port).encode(), "hostile.yaml")
    assert scn is not None, problems
    data = report_bytes(evaluate(scn))
    body = text(data)
    assert f"See <link rel=attachment href=file:///etc/passwd> and <img src=http://127.0.0.1:{port}/x> now" in body
    assert "Costs $5 and $6 <script>alert(1)</script>" in body
    assert "<b>Mallory</b> & co" in body
    assert f"<img src=http://127.0.0.1:{port}/name>" in body
    assert set(reader(data).attachments) == {"hostile.yaml"}
    assert all(u.startswith("data:") for u in fetched), fetched
    assert select.select([listener], [], [], 0.3)[0] == [], "the renderer connected to the listener"


def test_chart_text_is_never_mathtext():
    uri = charts.tornado("Costs $5 and $6", 1.0, [charts.Swing("$x$", 0.5, 2.0)], "USD", "low", "high")
    import base64

    svg = base64.b64decode(uri.split(",", 1)[1]).decode()
    assert "Costs $5 and $6" in svg and "$x$" in svg


def test_charts_are_deterministic():
    draw = lambda: charts.roofline("t", [charts.Series("a", 0, [1.0, 10.0], [1e12, 1e13])],  # noqa: E731
                                   [charts.Point("a", 0, 2.0, 2e12)])
    assert draw() == draw()


def test_importing_the_cli_or_the_engine_loads_no_renderer():
    code = ("import sys, sizing.cli, sizing.evaluate; "
            "bad = [m for m in ('matplotlib', 'weasyprint') if m in sys.modules]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


# -- how sure: the simulation over the scenario's ranges ----------------------------------------------------------
def test_page_one_says_how_sure_with_the_engines_shares():
    path = scenario("chat-70b-fp8.yaml")
    r = results(path)
    s = r.simulation.decision(r.decision.id)
    best = s.option(r.decision.best.id)
    first = text(pdf(path), slice(0, 1))
    assert f"How sure: Instinct MI300X (batch 21) on demand is the cheapest option that meets every requirement in " \
           f"{100 * best.win_probability:.0f} % of 10,000 simulated cases (each with the uncertain inputs drawn " \
           f"from their ranges);" in first
    assert best.win_probability == pytest.approx(0.80, abs=0.02)         # shipped ranges: the lead is not certain
    b200 = next(o for o in r.decision.options if o.id == "b200 busy hours")
    stated = s.option("mi300x busy hours")                           # the scenario's own batch, 16, beside it
    assert f"misses a latency target in {share(1 - best.meets_probability)} of the simulated cases, batch 16 in " \
           f"{share(1 - stated.meets_probability)}" in " ".join(first.split())      # said in its risks
    assert f"Instinct MI300X (batch 21) on demand misses a latency target in " \
           f"{share(1 - dict(best.meets)['meets_targets'])} of the cases; B200 SXM 180GB (batch 16, as stated) on " \
           f"demand meets every " \
           f"requirement in every case, at ${round(b200.value) - round(r.decision.best.value):,}/month more." in first
    assert best.meets_probability < 1 and s.option("b200 busy hours").meets_probability == 1
    assert f"In the {share(s.behind)} of cases where Instinct MI300X (batch 21) on demand qualifies but another option is " \
           f"cheaper, it costs on average " \
           f"{estimate(s.behind_regret, r.decision.unit)} more (over every case where it qualifies: " \
           f"{estimate(s.expected_regret, r.decision.unit)})." in first
    assert re.search(r"costs on average \$[\d,]{3,}/month more", first)    # a sampled average: no cents on $100s
    # the shortfall where it is behind, times how often, is the average over the cases where it qualifies
    assert s.behind_regret * s.behind == pytest.approx(s.expected_regret * best.meets_probability)
    # the shares add up: 80 % cheapest, 11 % missing a target, 7 % behind, and the 1 % it ties (a signer's sum)
    tied = round(best.meets_probability - best.win_probability - s.behind, 9)        # shares of 10,000 draws
    assert share(tied) == "1 %" and share(best.win_probability) == "80 %" and share(s.behind) == "7 %"
    assert "In 1 % of the cases it ties another option at the same cost, counted to the one listed first." in first
    assert "What moves the decision most, as the rank correlation of each input with how much cheaper Instinct " \
           "MI300X (batch 21) on demand is than the next best option" in first and "inputs grouped as nvidia-prices (moving together)" in first
    assert "What would change it (each assumption moved 25 %" not in first   # the ranges replace the tornado
    plain = text(pdf(without_ranges("chat-70b-fp8.yaml")), slice(0, 1))
    assert "How sure" not in plain                                    # without ranges: the one-at-a-time moves
    assert "What would change it (each assumption moved 25 %" in plain or \
        "Robust choice: the same device, paid the same way, is recommended with every assumption moved 25 % down " \
        "and up, one at a time" in plain


def test_trust_table_reads_the_published_runs_per_kind_of_work_device_and_family():
    """Over the runs of the kinds of work present: the categories (serving: also the runs at mid-size batches), each
    compared device's own runs (what its risk line says), then each compared family; each row the runs' count,
    median and range of measured / predicted speed, and the held-out runs' median (count). Then how many of the
    runs came within the close-call margin; a kind of work with no run says so."""
    import statistics

    import yaml
    from sizing.render.report.method import apart_words, trust, trust_apart, trust_words

    runs = yaml.safe_load((ROOT / "sizing" / "catalog" / "accuracy.yaml").read_text())["runs"]
    serving = [x for x in runs if x["category"] in ("decode_batch1", "throughput_large_batch", "ttft")]

    def expected(label, group):
        speeds = sorted(x["speed"] for x in group)
        held = [x["speed"] for x in group if x.get("held_out")]
        return (label, str(len(speeds)), f"{statistics.median(speeds):.2f}x",
                f"{speeds[0]:.2f}x" if len(speeds) == 1 else f"{speeds[0]:.2f}x to {speeds[-1]:.2f}x",
                f"{statistics.median(held):.2f}x ({len(held)})" if held else "–")

    r = results(scenario("chat-70b-fp8.yaml"))
    rows = trust(r)
    assert [x[0] for x in rows] == [
        "decode at batch 1", "throughput (every batch size)", "throughput at batch 8-64", "time to first token",
        "NVIDIA H100 SXM5 80GB", "NVIDIA H200 SXM 141GB", "NVIDIA B200 SXM 180GB (HGX B200)", "AMD Instinct MI300X",
        "Intel Gaudi 3 (OAM)", "all GPUs", "all accelerators (Intel Gaudi 2, Intel Gaudi 3)"]
    mid = [x for x in serving if x["category"] == "throughput_large_batch" and 8 <= x.get("batch", 0) <= 64]
    assert rows[2] == expected("throughput at batch 8-64", mid) and len(mid) >= 50
    assert rows[7] == expected("AMD Instinct MI300X", [x for x in serving if x["device"] == "amd-mi300x"])
    assert rows[7][1:4] == ("18", "0.81x", "0.45x to 1.46x")          # the recommendation's risk line on page 1
    assert rows[6][3] == "0.61x"                                          # one run: no range
    assert rows[9] == expected("all GPUs", [x for x in serving if x["family"] == "gpu"])
    near = sum(1 / 1.3 <= x["speed"] <= 1.3 for x in serving)
    said = trust_words(r)
    assert said.startswith(f"{near} of these {len(serving)} runs (") and near > len(serving) / 2
    assert f"a fixed rule of sizing, set from the serving runs, {round(100 * near / len(serving))} % of which" in said
    assert "even a larger lead can be reversed" not in said
    assert "even a larger lead can be reversed" in trust_words(results(scenario("ref-classifier.yaml")))
    encoders = [x[0] for x in trust(results(scenario("ref-classifier.yaml")))]
    assert encoders == ["encoder latency", "encoder throughput", "all CPUs", "all GPUs"]     # no serving rows
    assert "the held-out runs (kept aside" not in said                  # they follow the table: trust_apart
    gaudi = [x["speed"] for x in serving if x["family"] == "accelerator"]
    held = [x["speed"] for x in serving if x["family"] == "accelerator" and x.get("held_out")]
    apart = statistics.median(held) / statistics.median(gaudi)
    assert trust_apart(r) == "" and apart < 1.25                           # held out and all within 1.25x
    runs = [{"speed": 1.0}] * 3 + [{"speed": 0.5, "held_out": True}] * 2      # held out apart by 2x
    assert apart_words([("a row", runs), ("one held out", runs[:4])]).endswith(
        "measure before buying: a row (held-out runs 0.50x the predicted speed, all runs 1.00x).")
    assert trust(results(scenario("ref-link-matmul.yaml"))) == ()
    said = text(pdf(scenario("chat-70b-fp8.yaml")))
    assert "Held out: median (runs)" in said and "AMD Instinct MI300X 18 0.81x 0.45x to 1.46x" in said
    assert "No published run in sizing's catalog measures this kind of work" in text(pdf(scenario("ref-link-matmul.yaml")))


def test_trust_words_flag_rows_whose_held_out_runs_sit_apart():
    """A row with two or more held-out runs whose median lies more than 1.25x from its runs' median is named, with
    both medians, in a paragraph below the table; none apart, no paragraph; two compared devices that are one
    catalog device give one row."""
    import statistics

    import yaml
    from sizing.render.report.method import trust, trust_apart

    runs = yaml.safe_load((ROOT / "sizing" / "catalog" / "accuracy.yaml").read_text())["runs"]

    def apart(rows):
        out = []
        for row, group in rows:
            held = [x["speed"] for x in group if x.get("held_out")]
            whole = statistics.median(x["speed"] for x in group)
            if len(held) >= 2 and max(whole, statistics.median(held)) / min(whole, statistics.median(held)) > 1.25:
                out.append(f"{row} (held-out runs {statistics.median(held):.2f}x the predicted speed, all runs "
                           f"{whole:.2f}x)")
        return out

    training = [x for x in runs if x["category"] == "training"]
    path = scenario("pretrain-deadline.yaml")
    rows = [("training", training),
            ("NVIDIA H100 SXM5 80GB", [x for x in training if x["device"] == "nvidia-h100-sxm5-80gb"]),
            ("NVIDIA B200 SXM 180GB (HGX B200)", [x for x in training if x["device"] == "nvidia-b200-hgx"]),
            ("Google Cloud TPU v5p (per chip)", [x for x in training if x["device"] == "google-tpu-v5p"]),
            ("all GPUs (NVIDIA A100 80GB SXM4, NVIDIA B200 SXM 180GB, NVIDIA H100 SXM5 80GB)",
             [x for x in training if x["family"] == "gpu"]),
            ("all TPUs (Google Cloud TPU v5e, Google Cloud TPU v5p, Google Cloud TPU v6e Trillium)",
             [x for x in training if x["family"] == "tpu"])]
    assert [label for label, _ in rows] == [x[0] for x in trust(results(path))]
    named = apart(rows)
    said = trust_apart(results(path))
    assert said.startswith("In these rows the held-out runs (kept aside, not used to choose the defaults) differed by "
                           "more than 1.25x from all the row's runs")
    assert named and said.endswith("where they matter, measure before buying: " + "; ".join(named) + ".")
    body = squeezed(text(pdf(path)))
    assert squeezed(said).replace("-", "") in body.replace("-", "")          # below the table (hyphenation aside)
    assert body.index(squeezed("Held out: median (runs)")) < body.index(squeezed("In these rows the held-out"))
    encoders = [x for x in runs if x["category"] in ("encoder_latency", "encoder_throughput")]
    classifier = [("encoder latency", [x for x in encoders if x["category"] == "encoder_latency"]),
                  ("encoder throughput", [x for x in encoders if x["category"] == "encoder_throughput"]),
                  ("all CPUs", [x for x in encoders if x["family"] == "cpu"]),
                  ("all GPUs", [x for x in encoders if x["family"] == "gpu"])]
    r = results(scenario("ref-classifier.yaml"))
    assert [label for label, _ in classifier] == [x[0] for x in trust(r)]
    assert (trust_apart(r) == "") == (apart(classifier) == [])
    labels = [x[0] for x in trust(results(scenario("moe-mixtral-serving.yaml")))]
    assert len(labels) == len(set(labels)) and "NVIDIA H100 SXM5 80GB" in labels


def test_how_sure_section_tabulates_every_option_that_can_qualify():
    path = scenario("chat-70b-fp8.yaml")
    r = results(path)
    s = r.simulation.decision(r.decision.id)
    body = text(pdf(path))
    assert "How sure is the recommendation? The scenario was evaluated 10,000 times (simulated cases" in body
    assert "Sensitivity of the monthly cost" not in body and "Break-even points" in body
    # the ranges as written, each with the value the scenario gives
    draws = r.simulation.draws
    below = {k: share((draws[k] < r.inputs[k].value.value).mean()) for k in draws}
    assert below["device.mi300x.price"] in ("49 %", "50 %", "51 %")          # a symmetric range: about half
    assert squeezed("Instinct MI300X hourly rental price triangular, 1.30 USD/hour to 2.40 USD/hour, most likely "
                    f"1.85 USD/hour 1.85 USD/hour – {below['device.mi300x.price']}") in squeezed(body)
    assert squeezed("Peak traffic lognormal, median 5 request/s, 95th percentile 9 request/s 5 request/s – "
                    f"{below['workload.chat.traffic.peak']}") in squeezed(body)
    # a triangular range's share below its mode is (mode - low) / (high - low): 13 / 15
    assert (draws["device.h100.efficiency"] < 0.65).mean() == pytest.approx(13 / 15, abs=0.02) and squeezed(
        f"H100 SXM5 80GB compute efficiency triangular, 52 % to 67 %, most likely 65 % 65 % – "
        f"{below['device.h100.efficiency']}") in squeezed(body)
    assert squeezed("Option Best in (share of cases) Meets every requirement in (share of cases) Monthly cost "
                    "($/month) where it meets every requirement: 5th percentile Median 95th percentile") \
        in squeezed(body)
    o = s.option(r.decision.best.id)
    assert squeezed(f"Instinct MI300X (batch 21) on demand {share(o.win_probability)} {share(o.meets_probability)} "
                    + " ".join(f"${v:,.0f}" for v in o.objective)) in squeezed(body)
    for o in (o for o in s.options if o.meets_probability > 0):       # every option that can qualify, in order
        assert squeezed(f"{name_of(r, r.decision, o.option)}{share(o.win_probability)}{share(o.meets_probability)}") \
            in squeezed(body), o.option
    never = [o for o in s.options if o.meets_probability == 0]
    said = "Never meets every requirement in any case: " + "; ".join(name_of(r, r.decision, o.option) for o in never)
    assert never and squeezed(said) in squeezed(body)
    assert "Never meets every requirement in any case: Gaudi 3 (batch 16, as stated), rented all month; Instinct " \
           "MI300X (precision bf16), rented all month; " in body   # beside sizing's batch 5 on the Gaudi 3, which does


def test_a_tornado_note_left_of_the_base_stays_clear_of_the_assumption_names():
    """A flip on the low side is noted left of its bar: the x range leaves it room inside the plot, where it used
    to run into the assumptions' names (moe-mixtral-serving)."""
    import matplotlib

    rows = [charts.Swing("Instinct MI300X hourly rental price", 2027.0, 3287.0, "", "→ h200, on demand as traffic needs"),
            charts.Swing("H200 SXM 141GB hourly rental price", 2465.0, 2703.0, "→ h200, on demand as traffic needs"),
            charts.Swing("Batch size", 2801.0, 2703.0)]
    with matplotlib.rc_context(charts.STYLE):
        fig = charts.tornado.__wrapped__("Sensitivity", 2703.0, rows, "USD/month", "assumption −25 %",
                                         "assumption +25 %")
        renderer = fig.canvas.get_renderer()
        fig.draw(renderer)
        (ax,) = fig.axes
        box = ax.get_window_extent(renderer)
        notes = [t for t in ax.texts if t.get_text().startswith("→")]
        assert len(notes) == 2
        for t in notes:
            extent = t.get_window_extent(renderer)
            assert box.x0 <= extent.x0 and extent.x1 <= box.x1 + 2, (t.get_text(), extent, box)


def test_a_decision_nothing_computes_says_so_on_page_one_and_in_the_terminal():
    """A decision whose objective no workload computes (the device has no rate at the workload's precision) used to
    print no decision and no reason; a scenario that asks no ranking question keeps its own words."""
    from sizing.render.report.build import undecided
    from sizing.render.table import render
    from sizing.scenario import load_scenario_bytes

    text = ("sizing: 1\nname: noobj\ndevices:\n  acc: {kind: gpu, compute: {bf16: 100 TFLOP/s}, memory: 100 GB, "
            "memory_bandwidth: 2 TB/s, price: 2 USD/hour}\nworkloads:\n  chat: {kind: generate, model: llama-3.1-8b, "
            "precision: fp8, batch: 8, input_tokens: 500, output_tokens: 200, traffic: {peak: 5 request/s}}\n")
    scn, problems = load_scenario_bytes((text + "decision: {objective: monthly_cost}\n").encode(), "n.yaml")
    r = evaluate(scn)
    assert r.decisions == ()
    assert undecided(r) == ("Nothing is ranked: no workload computes monthly_cost, the objective (the device has no "
                            "rate at fp8: times and rates not computed; it has bf16 (set the workload's precision, or "
                            "an alternative's, to one of them) (workload chat on acc)). The figures that are computed "
                            "follow, option by option; the warnings at the end say what is missing.")
    assert "decision: none: no workload computes monthly_cost (the objective); the warnings say what is missing" in \
        render(r, 200)
    scn, _ = load_scenario_bytes(text.encode(), "n.yaml")
    assert undecided(evaluate(scn)).startswith("This scenario asks no ranking question")


def test_a_ranking_robust_to_its_assumptions_does_not_vouch_for_a_deadline_its_published_run_misses(tmp_path):
    """A procurement reviewer read 'Robust choice' beside 30 B200s whose one published run, at 0.93x the predicted
    speed, would miss the 30-day deadline: page one calls the ranking robust and says the deadline is not. (Shipped,
    the 32 B200s of whole servers are ranked first and make it at that speed: 'Robust choice'.)"""
    written = scenario("pretrain-deadline.yaml").read_text()
    path = tmp_path / "pretrain-even.yaml"           # 960 sequences split evenly over 15 ways: whole servers,
    path.write_text(written.replace("    batch: 1024\n", "    batch: 960\n"))      # 32 devices, cost no less
    r = results(path)
    body = squeezed(text(report_bytes(r), slice(0, 1)))
    v = r.pair("pretrain", "b200").values
    assert squeezed("Robust ranking: the same device, paid the same way, is recommended") in body and \
        "Robustchoice" not in body
    from sizing.narrative.margin import own_runs
    (seen,) = own_runs(r, r.decision, r.decision.best)
    took = human(v["duration"] / seen, "s", "days")
    assert squeezed(f"Its deadline is not: at its published run's speed ({seen:.2f}x) its 30 devices take {took}, "
                    "past its deadline of 30 days.") in body
    assert "Robustchoice:" in squeezed(text(pdf(scenario("pretrain-deadline.yaml")), slice(0, 1)))
