"""Money that reconciles (issue 13, first part): one stated cost basis per option, and sums that multiply out."""

import re

import pytest

from helpers import ROOT, SCENARIOS, results_of

from sizing.narrative import HOURS_PER_MONTH, cost_driver, findings
from sizing.render.format import human

NAMES = [p.stem for p in SCENARIOS]


@pytest.mark.parametrize("name", NAMES)
def test_monthly_cost_is_devices_times_the_rate_used_times_a_month(name):
    r = results_of(name)
    checked = 0
    for p in r.pairs:
        v = p.values
        if v.get("feasible_fleet") is False:
            assert v["monthly_cost"] is None and v["annual_cost"] is None and v["tco"] is None   # never priced
            continue
        if "monthly_cost" not in v or "hourly_rate" not in v:
            continue
        devices = v.get("fleet_devices", v.get("devices_needed"))
        assert v["monthly_cost"] == pytest.approx(devices * v["hourly_rate"] * HOURS_PER_MONTH * 3600, rel=1e-12)
        assert v["cost_basis"] in ("own", "reserved", "rent")
        if v["cost_basis"] == "own":
            assert v["hourly_rate"] == v["own_rate"] and v["capex"] == pytest.approx(devices * r.inputs[
                f"device.{p.device}.costs.purchase"].value.value)
        else:
            assert v["hourly_rate"] == v["rent_rate"] and v["capex"] == 0
            assert v["opex_monthly"] == pytest.approx(v["monthly_cost"])
        assert v["annual_cost"] == pytest.approx(12 * v["monthly_cost"])
        checked += 1
    if not checked:
        pytest.skip(f"{name} prices no fleet")


def test_owned_total_over_the_write_off_is_the_monthly_cost_times_its_months():
    r = results_of("capacity-chat-8b")
    for p in r.pairs:
        v = p.values
        if v.get("tco") is None:                # a batch sizing found for another device: not priced here
            assert p.device not in r.scenario.workloads[p.workload].found
            continue
        months = r.inputs[f"device.{p.device}.costs.amortisation"].value.value / (HOURS_PER_MONTH * 3600)
        assert v["cost_basis"] == "own"
        assert v["tco"] == pytest.approx(v["capex"] + v["opex_monthly"] * months)
        assert v["tco"] == pytest.approx(v["monthly_cost"] * months)       # capex amortised over the same months


FLEET = re.compile(r"(\d[\d,]*) devices × \$([\d.,]+)/hour \((owned|rented by the hour, all month|rented with the commitment "
                   r"discount)\) × 730\.5 h")
BUSY = re.compile(r"([\d.,]+) devices? rented on average × \$([\d.,]+)/hour \(on demand\) × 730\.5 h")
API = re.compile(r"× 730\.5 h = ([\d.,]+) requests × \$([\d.,]+) per request")


def number(text: str) -> float:
    return float(text.replace(",", ""))


@pytest.mark.parametrize("name", ["chat-70b-fp8", "capacity-chat-8b", "moe-mixtral-serving"])
def test_the_sentence_that_explains_a_cost_multiplies_to_it(name):
    r = results_of(name)
    dec = r.decision
    assert dec.quantity == "monthly_cost"
    seen = set()
    for o in (o for o in dec.options if o.passes):
        words = cost_driver(r, dec, o)
        if o.variant == "api":
            m = API.search(words)
            assert m, words
            assert number(m.group(1)) * number(m.group(2)) == pytest.approx(o.value, rel=0.001)
        else:
            m = (FLEET if o.variant == "fleet" else BUSY).search(words)
            assert m, words
            product = number(m.group(1)) * number(m.group(2)) * HOURS_PER_MONTH
            assert human(product, "USD/month") == human(o.value, "USD/month"), words     # to the shown dollar
            if o.variant == "busy_hours":       # the fewest digits that do: '2.824 devices', not '2.82369 devices'
                fewer = f"{number(m.group(1)):.{len(m.group(1).replace('.', '')) - 1}g}"
                assert len(m.group(1).replace(".", "")) <= 3 or human(
                    number(fewer) * number(m.group(2)) * HOURS_PER_MONTH, "USD/month") != human(o.value, "USD/month")
        seen.add(o.variant)
    assert {"fleet", "busy_hours"} <= seen


@pytest.mark.parametrize("name", NAMES)
def test_no_option_that_fails_a_requirement_carries_a_rank(name):
    dec = results_of(name).decision
    if dec is None:
        pytest.skip(f"{name} ranks nothing")
    ranks = [o.rank for o in dec.options if o.passes]
    assert ranks == list(range(1, len(ranks) + 1))
    assert all(o.rank is None for o in dec.options if not o.passes)
    assert dec.recommendation == (next((o.id for o in dec.options if o.rank == 1), None))


def test_a_training_setup_that_cannot_run_is_not_priced_but_the_one_that_fits_is():
    r = results_of("ref-finetune-7b")
    full = r.pair("full", "accelerator").values
    assert full["fits"] is False and full["cost"] is None               # 112 GB on one 80 GB device: not priced
    assert full["devices_that_fit"] == 2
    # no fabric on the illustrative device: the two devices' time is the work at the training rate, halved
    assert full["cost_that_fits"] == pytest.approx(full["flops"] / full["train_rate"] * full["hourly_rate"])
    assert full["duration_that_fits"] == pytest.approx(full["flops"] / full["train_rate"] / 2)
    assert full["cost_that_fits"] == full["duration_that_fits"] * 2 * full["hourly_rate"]
    lora = r.pair("lora", "accelerator").values
    assert lora["cost"] == pytest.approx(lora["cost_that_fits"]) == pytest.approx(
        lora["duration"] * lora["devices"] * lora["hourly_rate"])
    # the finding gives the sharded setup's own time and cost, not the one device's time beside them
    line = next(f for f in findings(r) if f.startswith("Full fine-tuning"))
    assert line.endswith("does not fit on the 1 device used: 2 would hold it sharded, in 2.431 days at a cost of "
                         "$233.33.")
    assert human(full["duration_that_fits"], "s") == "2.431 days"


@pytest.mark.parametrize("basis, rate, capex", [("rent", 2.50, 0.0), ("reserved", 1.75, 0.0), ("own", None, 30000.0)])
def test_a_forced_cost_basis_is_the_rate_every_total_uses(basis, rate, capex):
    from helpers import ROOT
    from sizing.evaluate import evaluate
    from sizing.scenario import load_scenario_bytes
    text = (ROOT / "scenarios" / "capacity-chat-8b.yaml").read_text().replace(
        "      reserved_discount: 30 %", f"      basis: {basis}\n      reserved_discount: 30 %")
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    assert scn is not None, problems
    v = evaluate(scn).pair("chat", "h100").values
    assert v["cost_basis"] == basis
    if rate is not None:
        assert v["hourly_rate"] * 3600 == pytest.approx(rate)
    else:
        assert v["hourly_rate"] == v["own_rate"]
    assert v["capex"] == pytest.approx(capex * v["fleet_devices"])
    assert v["monthly_cost"] == pytest.approx(v["fleet_devices"] * v["hourly_rate"] * HOURS_PER_MONTH * 3600)
    if basis != "own":
        assert v["opex_monthly"] == pytest.approx(v["monthly_cost"])


def test_measured_beats_predicted_in_the_headline():
    r = results_of("ref-benchmark-economics")
    best = r.decision.best
    record = next(p for p in r.pairs if p.workload == "record-7b-a").values
    predicted = r.pair("predicted", "accelerator-a").values["cost_per_million_tokens"]
    # the record's $2.00/hour over 1,500 tokens/s at 40 % busy: the reference's $0.93 per million
    assert best.value == pytest.approx(2.00 / (1500 * 0.4 * 3600) * 1e6) == record[
        "cost_per_million_tokens_at_utilisation"]
    assert best.measured_by == "record-7b-a" and best.predicted == predicted != best.value
    from sizing.narrative import value_words
    assert value_words(r, r.decision, best) == (
        "$0.9259/M output tokens (measured by record-7b-a; predicted $1.09/M output tokens, measured / predicted throughput "
        "118.1 %)")


def test_page_one_states_each_budget_what_is_used_and_the_decisions_together():
    from sizing.render.report import budget_words, together
    r = results_of("platform-two-services")
    support, code = r.decisions
    api = r.pair("support", support.best.device).values["api_monthly_cost"]
    assert support.best.variant == "api"
    assert budget_words(r, support) == (f"Budget: $6,000/month, of which {human(api, 'USD/month')} used "
                                        f"({human(6000 - api, 'USD/month')} left).")
    fleet = r.pair(code.best.workload, "h100").values         # at the batch sizing found (b32)
    assert code.best.workload == "code-b32"
    assert budget_words(r, code) == (f"Budget: capital $400,000, of which {human(fleet['capex'], 'USD')} used "
                                     f"({human(400000 - fleet['capex'], 'USD')} left).")
    assert together(r) == (f"The 2 recommendations together: {human(api + fleet['monthly_cost'], 'USD/month')}, which "
                           f"includes writing off {human(fleet['capex'], 'USD')} of capital bought up front.")


TRAIN = re.compile(r": (\d+) devices × \$([\d.,]+)/hour \((rented by the hour|owned|rented with the commitment "
                   r"discount)\) × ([\d.,]+) h$")


def test_the_sentence_that_explains_a_training_cost_multiplies_to_it():
    r = results_of("finetune-approach")
    dec = r.decision
    assert dec.quantity == "cost"
    for o in dec.options:
        m = TRAIN.search(cost_driver(r, dec, o))
        assert m, cost_driver(r, dec, o)
        assert human(number(m.group(1)) * number(m.group(2)) * number(m.group(4)), "USD") == human(o.value, "USD")


def test_a_device_bought_without_an_electricity_price_is_warned_about():
    from sizing.evaluate import evaluate
    from sizing.scenario import load_scenario_bytes

    text = (ROOT / "scenarios" / "chat-70b-fp8.yaml").read_text().replace(
        "costs: {purchase: 35000 USD, electricity: 0.12 USD/kWh, pue: 1.3}", "costs: {purchase: 35000 USD}")
    scn, _ = load_scenario_bytes(text.encode(), "bought.yaml")
    r = evaluate(scn)
    assert r.pair("chat", "h100").values["cost_basis"] == "own"
    assert [p.message for p in r.problems if "electricity" in p.message] == [
        "costed as bought, but no electricity price (costs.electricity): its power draw costs nothing in the running "
        "cost (workload chat)"]
    assert not [p for p in results_of("chat-70b-fp8").problems if "electricity" in p.message]


BOUGHT_RUN = """\
sizing: 1
name: bought
devices:
  mi300x: {from: amd-mi300x, price: 2.40 USD/hour, costs: {basis: own, purchase: 20000 USD, amortisation: 3 year}}
  h100: {from: nvidia-h100-sxm5-80gb, price: 2.50 USD/hour, costs: {reserved_discount: 30 %}}
workloads:
  run: {kind: train, model: llama-3.1-8b, precision: bf16, tokens: 2e11, batch: 512, deadline: 20 day}
decision: {objective: cost}
"""


RENT_OR_BUY = """\
sizing: 1
name: rent-or-buy
devices:
  mi300x: {from: amd-mi300x, price: 1.85 USD/hour, costs: {purchase: 20000 USD}}
  h100: {from: nvidia-h100-sxm5-80gb, price: 2.50 USD/hour, costs: {purchase: 35000 USD}}
workloads:
  run: {kind: train, model: llama-3.1-8b, precision: bf16, tokens: 2e11, batch: 512, deadline: 20 day}
decision: {objective: cost}
"""


def test_a_training_run_rents_where_it_can_unless_the_devices_are_owned():
    """Every reader of three reviews read a one-off run ranked at its share of a 3-year write-off ('Buy 32 MI300X,
    $22,318' beside $640,000 paid up front) as flattering. With a price and a purchase and no basis written, a
    training run rents, and its risks say what buying would cost and when the share would be its cost; written
    `basis: own` buys at that share; written `basis: cheapest` takes the cheaper rate, as any other workload."""
    from datetime import date
    from sizing.evaluate import evaluate
    from sizing.narrative.risks import risks
    from sizing.scenario import load_scenario_bytes
    r = evaluate(load_scenario_bytes(RENT_OR_BUY.encode(), "s.yaml")[0])
    for d, price in (("mi300x", 1.85), ("h100", 2.50)):
        v = r.pair("run", d).values
        assert v["cost_basis"] == "rent" and v["hourly_rate"] * 3600 == pytest.approx(price)
        assert v["cost"] == pytest.approx(v["devices"] * v["duration"] / 3600 * price, rel=1e-12)
        assert v["own_rate"] < v["rent_rate"]                 # buying is cheaper by the hour, and not taken
    best = r.decision.best
    v = r.pair(best.workload, best.device).values
    n, share = v["devices"], v["devices"] * v["own_rate"] * v["duration"]
    said = risks(r, r.decision, best, date(2026, 12, 7), detail=True)
    assert (f"rented, not bought: buying its {n:.0f} devices costs ${n * 20000:,.0f} up front; the run's share of "
            f"their 36-month write-off with their running costs, ${share:,.0f}, is its cost only where other work uses "
            f"them for the rest (then state costs.basis: own); buying costs less than renting only where they are busy "
            f"more than {v['own_rate'] / v['rent_rate'] * 100:.3g} % of those months") in said
    assert f"rented, not bought: buying its {n:.0f} devices costs ${n * 20000:,.0f} up front" in \
        risks(r, r.decision, best, date(2026, 12, 7), detail=False)      # the options table's row: the capital
    for basis, took in (("own", "own"), ("cheapest", "own")):
        text = RENT_OR_BUY.replace("costs: {purchase: 20000 USD}", f"costs: {{basis: {basis}, purchase: 20000 USD}}")
        again = evaluate(load_scenario_bytes(text.encode(), "s.yaml")[0])
        assert again.pair("run", "mi300x").values["cost_basis"] == took, basis
        assert again.pair("run", "h100").values["cost_basis"] == "rent"          # no basis written: rented
        assert not any("rented, not bought" in x for x in risks(again, again.decision, next(
            o for o in again.decision.options if o.device == "mi300x"), date(2026, 12, 7), detail=True))


def test_a_bought_training_run_states_its_capital_and_its_share_of_the_write_off():
    """A finance reviewer and a new user read 'Buy 37 × Instinct MI300X, cost of the run $42,949' where $740,000 of
    capital appeared nowhere: a bought run's capital is devices × purchase price, its cost the run's hours' share
    of the write-off, and page one, the options table and the risks say both; a committed rate says only the run's
    hours are counted."""
    from datetime import date
    from sizing.evaluate import evaluate
    from sizing.narrative.risks import risks
    from sizing.render.report.memo import figures, options_table
    from sizing.scenario import load_scenario_bytes
    scn, _ = load_scenario_bytes(BOUGHT_RUN.encode(), "s.yaml")
    r = evaluate(scn)
    v = r.pair("run", "mi300x").values
    assert v["capex"] == v["devices"] * 20000 and v["cost_basis"] == "own"
    assert v["write_off_share"] == pytest.approx(v["duration"] / (3 * 365.25 * 86400))
    assert v["cost"] == pytest.approx(v["devices"] * v["duration"] * v["own_rate"])
    assert r.pair("run", "h100").values["capex"] == 0
    dec = r.decision
    bought, committed = dec.option("mi300x"), dec.option("h100")
    capital = human(v["capex"], "USD")
    # 40 MI300X, whole servers, cost less than the 36 the deadline needs: ranked first, their capital on page one
    assert dec.best.id == "mi300x servers" and dec.best.value < bought.value
    assert ("Capital (bought up front)", human(r.pair("run-servers", "mi300x").values["capex"], "USD")) in \
        figures(r, dec)
    note = next(x for x in risks(r, dec, bought, date(2026, 12, 7)) if x.startswith("bought:"))
    assert note == (f"bought: its cost is {v['write_off_share'] * 100:.3g} % of their 36-month write-off: other work "
                    f"must use them for the rest, or this run costs the {capital} paid up front")
    assert "committed rate: only the run's hours are counted, not the rest of the commitment's term: other work " \
        "must use it, or it is paid for idle" in risks(r, dec, committed, date(2026, 12, 7))
    table, _ = options_table(r, dec, date(2026, 12, 7))
    row = next(x for x in table.rows if x[1].startswith("Instinct MI300X\n"))
    assert row[1].endswith(f"bought at $20,000 each, {capital} up front")
    assert "rented for the run, committed at $1.75/hour" in next(x for x in table.rows if x[1].startswith("H100"))[1]
