"""The memo's page one in plain language: the recommendation's money in a few figures, the options with their
money, requirements and risks, and the sign-off block."""

from __future__ import annotations

from datetime import date

from ...decide import pair_of
from ...evaluate import Results
from ...narrative import device_name, failure_tag, objective_words, option_tag, rate, show, value_words
from ...narrative.memo import Money, beside, money_of, option_words
from ...narrative.money import busy_devices
from ...narrative.risks import risks
from ...results import Decision, Option
from ... import currency
from ..format import count_column, human, money_column, number
from .context import Table

SHORT_FAILURE = {"deployment": "not available where it must run", "budget": "over the budget",
                 "does not fit": "does not fit in memory", "no rate at this precision": "no rate at this precision",
                 "latency target": "too slow for the targets", "deadline": "misses the deadline",
                 "latency not stated": "response times not stated"}
SIGNERS = (("Prepared by (owner)", "owner"), ("Reviewed by", "reviewer"), ("Approved by", "approver"))


def shape(r: Results, dec: Decision) -> str:
    """'serving' (money by the month), 'run' (a one-off training run) or 'other' (a speed or size objective)."""
    ms = [money_of(r, dec, o) for o in dec.options]
    if dec.quantity == "cost" or any(m.run_cost is not None for m in ms) and not any(m.monthly is not None
                                                                                      for m in ms):
        return "run"
    return "serving" if any(m.monthly is not None for m in ms) else "other"


def months_text(m: float) -> str:
    return f"{number(m, 3)} month{'' if m == 1 else 's'}"


def basis_text(r: Results, dec: Decision, o: Option, m: Money, average: bool = True, each: str = "") -> str:
    """How the option is paid, with the rate: 'on demand at $1.85/hour', 'bought at $35,000 each'; `each` after an
    hourly rate (' a device', where no table column says the rate is per device)."""
    p = pair_of(r, dec, o)
    if o.variant == "api":
        return "per token"
    if o.variant == "busy_hours":
        price = r.inputs.get(f"device.{o.device}.price")
        avg = f", {human(m.devices, '', digits=3)} on average" if m.devices is not None and average else ""
        return f"on demand at {human(price.value.value, 'USD/s')}{each}{avg}" if price else "on demand"
    if m.basis == "bought" and (i := r.inputs.get(f"device.{o.device}.costs.purchase")):
        return f"bought at {human(i.value.value, 'USD')} each"
    if p is not None and isinstance(p.values.get("hourly_rate"), float):
        return f"{m.basis} at {rate(p, 'hourly_rate')}{each}"
    return m.basis


# Bases whose total over the horizon is what it would come to at this traffic, not what a contract binds.
NO_COMMITMENT = ("on demand", "per token", "rented all month")


def figures(r: Results, dec: Decision) -> tuple[tuple[str, str], ...]:
    """The recommendation's key figures for the box on page one."""
    o = dec.best
    if o is None:
        return ()
    m = money_of(r, dec, o)
    objective = (objective_words(dec).capitalize(), value_words(r, dec, o))
    kind = shape(r, dec)
    if kind == "serving":
        capex, opex, monthly, total = money_column([m.capex, m.opex_monthly, m.monthly, m.total])
        out = [("Monthly cost", f"{monthly} a month"), ("Capital (bought up front)", capex),
               ("Running cost", f"{opex} a month"),
               (f"Total over {months_text(m.months)}{' (no commitment)' if m.basis in NO_COMMITMENT else ''}", total)]
        if m.per_unit is not None:          # as the options table shows it: one format for every option
            column = money_column([money_of(r, dec, x).per_unit for x in dec.options], "–")
            out.append((per_unit_label(m), column[dec.options.index(o)]))
        out.append(("Paid", basis_text(r, dec, o, m, average=False, each=" a device")))
        if objective[0] not in dict(out):
            out.insert(0, objective)
        return tuple(out)
    if kind == "run":
        out = [("Cost of the run", human(m.run_cost, "USD")),
               ("Duration", human(m.duration, "s", "days") if m.duration is not None else "n/a"),
               ("Devices", human(m.devices, "")), ("Paid", basis_text(r, dec, o, m, each=" a device"))]
        if m.capex:                     # bought: what the order commits up front, beside the run's share of it
            out.insert(1, ("Capital (bought up front)", human(m.capex, "USD")))
        return tuple(out)
    return (objective,)


def per_unit_label(m: Money) -> str:
    return "Cost per million requests" if m.per_unit_qid and "requests" in m.per_unit_qid else \
        "Cost per million output tokens"


def show_unit(r: Results, dec: Decision, o: Option, m: Money) -> str:
    return show(pair_of(r, dec, o), m.per_unit_qid) if m.per_unit_qid else "–"


def meets(r: Results, dec: Decision, o: Option) -> str:
    """'yes', or every kind of requirement it fails, the dominant first: 'no: not available where it must run;
    too slow for the targets' (a reviewer read only the first and took the option for fast enough)."""
    if o.passes:
        return "yes"
    first = option_tag(r, dec, o)
    p = pair_of(r, dec, o) if o.variant != "api" else None
    rest = [("deadline" if t == "latency target" and p is not None and p.kind == "train" else t)
            for t in dict.fromkeys(failure_tag((f,)) for f in o.failures) if t != failure_tag(o.failures)]
    return "no: " + "; ".join(SHORT_FAILURE.get(t, "fails a requirement") for t in dict.fromkeys([first, *rest]))


def alternative_of(dec: Decision, o: Option) -> Option:
    """An alternative's option on the same device, paid the same way, that the option is named beside (itself where
    none): the workload as written then says what it keeps ('Instinct MI300X (method full)')."""
    return next((x for x in dec.options if x.alternative and x.device == o.device and x.variant == o.variant), o)


def options_table(r: Results, dec: Decision, today: date) -> tuple[Table, str]:
    """Every option with its money on a stated basis (one format per column, the unit in the header), whether it
    meets the requirements, and its risks."""
    kind = shape(r, dec)
    ms = [money_of(r, dec, o) for o in dec.options]
    horizons = {round(m.months, 6) for m in ms if m.total is not None}
    same = len(horizons) <= 1
    mark = next((i for i, o in enumerate(dec.options) if o.id == dec.recommendation), None)
    ranks = [str(o.rank) if o.rank else "–" for o in dec.options]
    names = [f"{beside(r, o, alternative_of(dec, o), short=True).removesuffix(', on demand')}\n"
             f"{basis_text(r, dec, o, m, average=False)}" + (f", {human(m.capex, 'USD')} up front"
                                                             if kind == "run" and m.capex else "")
             for o, m in zip(dec.options, ms)]
    devices = [d if o.variant != "busy_hours" or m.devices is None or d in ("–", "n/a") else
               f"{d} at peak\n{busy_devices(r, o, pair_of(r, dec, o).values)} average"   # the money's count
               for d, o, m in zip(count_column([peak_devices(r, dec, o, m) for o, m in zip(dec.options, ms)]),
                                  dec.options, ms)]
    verdicts = [meets(r, dec, o) for o in dec.options]
    risk = ["; ".join(risks(r, dec, o, today, detail=False)) or "–" for o in dec.options]
    if kind == "serving":
        total = money_column([m.total for m in ms])
        if not same:
            total = [t if m.total is None else f"{t} ({months_text(m.months)})" for t, m in zip(total, ms)]
        cols = [ranks, names, devices, money_column([m.capex for m in ms]),
                money_column([m.opex_monthly for m in ms]), money_column([m.monthly for m in ms]), total,
                money_column([m.per_unit for m in ms], "–"), verdicts, risk]
        month = months_text(horizons.pop()) if same and horizons else "its horizon"
        unit = "million output tokens" if any(m.per_unit_qid and "tokens" in m.per_unit_qid for m in ms) else \
            "million requests"
        money = currency.code()
        head = ("Rank", "Option and how it is paid", "Devices", f"Capital ({money})", f"Running cost ({money}/month)",
                f"Monthly cost ({money}/month)", f"Total over {month} ({money})", f"Cost per {unit} ({money})",
                "Meets the requirements", "Risks")
        align = ("r", "l", "r", "r", "r", "r", "r", "r", "l", "l")
        note = ("Monthly cost = capital written off over the horizon + running cost per month; total over the "
                "horizon = capital + running cost × its months." + ("" if same else " The horizons differ (each "
                "device's write-off period, else 3 years): compare the options on the monthly cost, which writes "
                "each capital off over its own horizon, not on the totals.") + " Devices: the fleet, or for renting on demand "
                "the devices at the peak and on average (the average is billed). Options that do not meet the "
                "requirements are not "
                "ranked; one that does not fit or misses a target is not priced (n/a). Amounts are rounded to whole units "
                "where they reach 1,000; the workbook's Summary holds them exactly.")
    elif kind == "run":
        cols = [ranks, names, devices, money_column([m.run_cost for m in ms]),
                [human(m.duration, "s", "days") if m.duration is not None else "n/a" for m in ms], verdicts, risk]
        head = ("Rank", "Option and how it is paid", "Devices", f"Cost of the run ({currency.code()})", "Duration",
                "Meets the requirements", "Risks")
        align = ("r", "l", "r", "r", "r", "l", "l")
        note = "Options that do not meet the requirements are not ranked."
    else:
        cols = [ranks, [option_words(r, o, short=True) for o in dec.options],
                [value_words(r, dec, o) for o in dec.options], verdicts, risk]
        head = ("Rank", "Option", objective_words(dec).capitalize(), "Meets the requirements", "Risks")
        align = ("r", "l", "r", "l", "l")
        note = "Options that do not meet the requirements are not ranked."
    return Table(head, tuple(zip(*cols)), align, mark), note + found_note(r, dec) + RUNS_NOTE


def found_note(r: Results, dec: Decision) -> str:
    """' Found by sizing (not in the scenario): batch 5 on the Gaudi 3 (OAM), batch 21 on the Instinct MI300X; "(batch
    16, as stated)" is the scenario's own.' '' where sizing found none."""
    found = [w for w in r.scenario.workloads.values() if w.found and w.alternative_of == dec.workload]
    if not found:
        return ""
    listed = ", ".join(f"batch {w.get('batch')} on the {' and the '.join(device_name(r, d) for d in w.found)}"
                       for w in found)
    stated = r.inputs[f"workload.{dec.workload}.batch"].value.text
    return (f" Found by sizing, not in the scenario (see Another batch, below): {listed}, each ranked in the ways of "
            f"paying it saves in; the scenario's own batch is {stated} (\"as stated\" beside them).")


RUNS_NOTE = (" Published runs (Risks): the device's published measurements as a share of the speed predicted for them "
             "(below 1: slower, so more devices needed; by kind of work and device: how far to trust the estimates, "
             "in the method).")


def peak_devices(r: Results, dec: Decision, o: Option, m: Money) -> float | None:
    """The devices an option holds: its fleet, or the peak's devices when renting on demand."""
    if o.variant == "busy_hours":
        p = pair_of(r, dec, o)
        v = p.values.get("fleet_devices") if p else None
        return v if isinstance(v, float) else None
    return m.devices


def signoff(meta: dict) -> tuple[tuple[str, str], ...]:
    """The sign-off block's lines: who prepared, reviewed and approves (blank lines to sign where not named)."""
    return tuple((role, str(meta[key]) if key in meta else "") for role, key in SIGNERS)
