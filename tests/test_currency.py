"""`currency:` every amount in the scenario's currency, shown in it everywhere, never converted."""

import csv
import io
import json

import openpyxl
import pytest

from helpers import page_texts, problems_of
from sizing.evaluate import evaluate
from sizing.render.data import to_csv, to_json
from sizing.render.format import human
from sizing.render.report import report_bytes
from sizing.render.table import render
from sizing.render.workbook import workbook_bytes
from sizing.scenario import load_scenario_bytes

EUR = """\
sizing: 1
name: eur
currency: EUR
devices:
  h100:
    from: nvidia-h100-sxm5-80gb
    price: 2.30 EUR/hour
    costs: {purchase: 28000 EUR, electricity: 0.25 EUR/kWh, hosting: 120 EUR/month}
  l40s: {from: nvidia-l40s, price: 0.90 EUR/hour}
workloads:
  chat:
    kind: generate
    model: llama-3.1-8b
    batch: 16
    input_tokens: 1000
    output_tokens: 300
    traffic: {peak: 20 request/s, average: 6 request/s, max_utilisation: 70 %}
    api: {output_price: 0.60 EUR/Mtoken, input_price: 0.15 EUR/Mtoken}
decision: {workload: chat, objective: monthly_cost, budget: {monthly: 9000 EUR}}
"""


def load(text):
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    assert scn is not None, [str(p) for p in problems]
    return evaluate(scn)


@pytest.fixture(scope="module")
def eur():
    return load(EUR)


def test_nothing_is_converted(eur):
    """The same numbers in dollars give the same figures: the currency names the amounts, it does not scale them."""
    usd = load(EUR.replace("currency: EUR\n", "").replace("EUR", "USD"))
    assert [p.values for p in eur.pairs] == [p.values for p in usd.pairs]
    assert [o.value for o in eur.decision.options] == [o.value for o in usd.decision.options]


def test_every_output_names_the_currency(eur):
    monthly = eur.decision.best.value
    text = render(eur)
    assert f"€{monthly:,.0f}/month" in text and "(budget: monthly €9,000)" in text
    assert "$" not in text and "USD" not in text
    data = json.loads(to_json(eur))
    assert data["currency"] == "EUR"
    assert data["results"][0]["quantities"]["monthly_cost"]["unit"] == "EUR/month"
    assert "USD" not in to_json(eur).replace('"USD', "")      # no unit names dollars
    rows = list(csv.DictReader(io.StringIO(to_csv(eur))))
    assert {r["unit"] for r in rows if r["quantity"] == "monthly_cost"} == {"EUR/month"}
    assert human(1.0, "USD") == "$1.00"                       # outside a render, dollars as before


def test_the_workbook_formats_amounts_in_the_currency(eur):
    wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(eur)))
    formats = {c.number_format for ws in wb for row in ws.iter_rows() for c in row}
    assert any(f.startswith('"€"') for f in formats) and not any('"$"' in f for f in formats)
    texts = [c.value for ws in wb for row in ws.iter_rows() for c in row
             if isinstance(c.value, str) and not c.value.startswith("=")]
    assert not [t for t in texts if "USD" in t]
    assert "EUR/month" in texts


def test_a_code_without_a_well_known_symbol_is_written_out():
    chf = load(EUR.replace("EUR", "CHF"))
    assert f"CHF {chf.decision.best.value:,.0f}/month" in render(chf)


@pytest.mark.slow
def test_the_report_speaks_the_currency(eur):
    text = " ".join(page_texts(report_bytes(eur)))
    assert f"MONTHLY COST €{eur.decision.best.value:,.0f} a month" in text
    assert "USD" not in text and "$" not in text


def test_an_amount_in_another_currency_is_a_located_error():
    assert problems_of(EUR.replace("price: 0.90 EUR/hour", "price: 0.90 USD/hour")) == [
        "s.yaml:9:36: error: devices.l40s.price: '0.90 USD/hour' is in USD, but this scenario's currency is EUR and "
        "no amount is converted: give price in EUR"]
    assert problems_of(EUR.replace("budget: {monthly: 9000 EUR}", "budget: {monthly: $9000}"))[0].endswith(
        "decision.budget.monthly: '$9000' is in USD, but this scenario's currency is EUR and no amount is converted: "
        "give budget.monthly in EUR")
    assert problems_of(EUR.replace("currency: EUR", "currency: EURO")) == [
        "s.yaml:3:11: error: currency: unknown currency code 'EURO': expected an ISO 4217 code such as USD, EUR or "
        "GBP; did you mean 'EUR'?"]
    assert problems_of(EUR.replace("currency: EUR", "currency: eur"))[0].endswith("did you mean 'EUR'?")
    assert problems_of(EUR.replace("currency: EUR", "currency: TOP"))[0].endswith(
        "'TOP' cannot be a scenario's currency here: 'TOP/s' reads as a unit (mega- or tera-operations per second)")


def test_amounts_may_be_written_with_the_currency_sign():
    """'£2.10/hour' and '2.10 €/hour' are pounds and euros; a hint in a message is given in the scenario's currency."""
    gbp = EUR.replace("currency: EUR", "currency: GBP").replace("EUR", "GBP").replace("2.30 GBP/hour", "£2.30/hour")
    assert load(gbp).pair("chat", "h100").values["rent_rate"] == pytest.approx(2.30 / 3600)
    eur = EUR.replace("0.90 EUR/hour", "0.90 €/hour")
    assert load(eur).pair("chat", "l40s").values["rent_rate"] == pytest.approx(0.90 / 3600)
    assert problems_of(EUR.replace("0.90 EUR/hour", "0.90 £/hour"))[0].endswith(
        "'0.90 £/hour' is in GBP, but this scenario's currency is EUR and no amount is converted: give price in EUR")
    assert problems_of(EUR.replace("monthly: 9000 EUR", "monthly: 9000 EUR/month"))[0].endswith(
        "expected an amount of money like '30000 EUR', got '9000 EUR/month' (a price per time)")


def test_a_catalog_price_is_dollars():
    text = EUR.replace("  l40s: {from: nvidia-l40s, price: 0.90 EUR/hour}\n", "  acc: {from: illustrative-accelerator}\n")
    assert problems_of(text) == [
        "s.yaml:9:3: error: devices.acc.price: the catalog illustrative-accelerator value '2.00 USD/hour' is in USD, "
        "but this scenario's currency is EUR and no amount is converted: give price in EUR"]
    fixed = text.replace("{from: illustrative-accelerator}", "{from: illustrative-accelerator, price: 1.80 EUR/hour}")
    assert problems_of(fixed) == []
