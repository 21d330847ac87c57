"""Page one in plain language: what to buy or rent and how many, what it costs, the runner-up and the margin, the
decisive reason a non-engineer reads, the requirements checked, each option's money and risks, and the inputs
named in words ("the Instinct MI300X hourly price", not "mi300x price")."""

from __future__ import annotations

import math


from dataclasses import dataclass

from .. import alternatives
from .. import formulas as F
from ..decide import MONTHLY, pair_of
from ..evaluate import Results
from ..formulas.common import HORIZON, MONTH
from ..render.format import human, number, percent
from ..results import Decision, Option

from .common import shown_gap
from .money import busy_devices, committed, plural
from .training import servers

# Inputs as a reader names them (the role's description where none is given here).
WORDS = {"price": "hourly rental price", "purchase": "purchase price", "efficiency": "compute efficiency",
         "bandwidth_efficiency": "memory-bandwidth efficiency", "layer_overhead": "per-layer latency floor",
         "memory_reserve": "memory reserve", "electricity": "electricity price", "hosting": "hosting cost",
         "power": "power draw", "pue": "data-centre PUE", "reserved_discount": "commitment discount",
         "peak_traffic": "peak traffic", "average_traffic": "average traffic", "utilisation": "average utilisation",
         "max_utilisation": "planned maximum utilisation", "per_token_target": "time-between-tokens target",
         "ttft_target": "time-to-first-token target", "latency_target": "latency target", "batch": "batch size",
         "input_tokens": "prompt length", "output_tokens": "answer length", "train_efficiency": "training efficiency",
         "memory_bandwidth": "memory bandwidth", "compute_rate": "peak compute rate", "memory": "memory size",
         "api_output_price": "API price per output token", "api_input_price": "API price per input token",
         "tokens": "token count", "deadline": "deadline", "interconnect_bandwidth": "interconnect bandwidth",
         "parameters": "parameter count", "active_parameters": "active parameter count",
         "amortisation": "write-off period", "layers": "layer count"}


def short_name(r: Results, did: str) -> str:
    """A device as a sentence names it: its catalog name without the parenthesis ('Instinct MI300X'), else its id;
    with its id where another of the scenario's devices has the same name ('H100 SXM5 80GB (h100-pair)')."""
    return told_apart(r, did, catalog_short)


def told_apart(r: Results, did: str, name_of, among=None) -> str:
    """A device's name as `name_of(r, id)` gives it, with its id where another device (of `among`, else of the
    scenario) has the same one."""
    name = name_of(r, did)
    twins = [x for x in (r.scenario.devices if among is None else among) if x != did and name_of(r, x) == name]
    return f"{name} ({did})" if twins and name != did else name


def catalog_short(r: Results, did: str) -> str:
    d = r.scenario.devices.get(did)
    name = str(d.get("name") or "") if d is not None else ""
    return name.split(" (")[0].strip() or did


def input_what(r: Results, key: str) -> str:
    """What an input is, without whose: 'hourly price', '8-bit peak compute rate'."""
    i = r.inputs[key]
    what = WORDS.get(i.role, F.INPUTS[i.role].description)
    return f"8-bit {what}" if i.path.endswith("_8bit") else what     # the figure for 8-bit arithmetic


def input_words(r: Results, key: str) -> str:
    """An input in words: 'the Instinct MI300X hourly price', 'the peak traffic of Support assistant'."""
    i = r.inputs[key]
    what = input_what(r, key)
    ent = i.entity
    if ent.kind == "device":
        return f"the {short_name(r, ent.id)} {what}"
    if ent.kind == "workload" and len([w for w in r.scenario.workloads.values() if not w.alternative_of]) > 1:
        title = ent.get("title") or ent.id
        return f"the {what} of {title}"
    if ent.kind == "model":
        return f"the model's {what}"
    return f"the {what}"


def option_words(r: Results, o: Option, short: bool = False) -> str:
    """An option as a sentence names it: 'Instinct MI300X rented on demand as traffic needs', 'H200 SXM 141GB
    (bf16)', 'the hosted API'; `short` as a table names it ('Instinct MI300X, on demand', 'Hosted API')."""
    if o.variant == "api":
        return "Hosted API" if short else "the hosted API"
    name = short_name(r, o.device) + (f" ({alternative_phrase(r, o)})" if o.alternative else stated_batch(r, o))
    if o.variant == "busy_hours":
        return f"{name}, on demand" if short else f"{name} rented on demand as traffic needs"
    return name


def table_names(r: Results, dec: Decision, figure: bool = True) -> dict[str, str]:
    """Each option of a decision as a table names it ('Instinct MI300X (batch 21), on demand'; option_words, short),
    the engine's label where two would read the same (a procurement reviewer read 'h100, b32' as an internal code);
    without `figure`, the scenario's own batch beside a found one reads '(as stated)' (the workbook's: its batch is
    an input an edit would leave stale in a name)."""
    words = {o.id: option_words(r, o, short=True) if figure else
             option_words(r, o, short=True).replace(stated_batch(r, o) or "\0", " (as stated)", 1) for o in dec.options}
    seen = list(words.values())
    return {o.id: (o.label if seen.count(words[o.id]) > 1 else words[o.id]) for o in dec.options}


def stated_batch(r: Results, o: Option) -> str:
    """' (batch 16, as stated)' for an option of a workload as written on a device where sizing ranks a batch it found
    beside it (a signer read 'Instinct MI300X on demand' without knowing which batch); '' otherwise."""
    if not o.workload or not any(w.found and o.device in w.found for w in alternatives.of(r.scenario.workloads,
                                                                                          o.workload)):
        return ""
    return f" (batch {r.inputs[f'workload.{o.workload}.batch'].value.text}, as stated)"


def setup(r: Results, o: Option) -> str:
    """What runs on an alternative's hardware, for the line under the order: nothing where the scenario gives the
    alternative a title (page one's next line names it: 'For LoRA adapters ...'), else what it changes ('set up
    with batch 32'; a new user read 'Buy 3 × Instinct MI300X' for the FP8 alternative that needs 3 where the
    workload as written needs 4)."""
    w = r.scenario.workloads.get(o.workload)
    titled = w is not None and "title" in alternatives.given_by(r.scenario.workloads, w)
    if w is not None and w.found:
        return f"set up with {alternative_phrase(r, o)} (found by sizing; the scenario states " \
               f"{r.inputs[f'workload.{w.alternative_of}.batch'].value.text})"
    if w is not None and alternatives.whole_servers(w):
        return servers_words(r, o, w)
    return "" if w is None or titled else f"set up with {alternative_phrase(r, o)}"


def servers_words(r: Results, o: Option, w) -> str:
    """A run on every device of the whole servers it needs, against the devices its deadline needs, and why it costs
    less there: '4 whole servers of 8 devices; on all 32 the run takes fewer device-hours than on the 30 its deadline
    needs (20,629 against 20,844), so it costs $805 less' (a procurement reviewer had to work out from the tables
    why 32 beat 30)."""
    v, base = (p.values if (p := r.pair(wid, o.device)) else {} for wid in (w.id, alternatives.written_run(w.id)))
    n, size, cost = v.get("devices"), v.get("whole_domains"), v.get("cost")
    hours = [x.get("device_hours") for x in (v, base)]             # the engine's, not multiplied here
    if not all(isinstance(x, float) for x in (n, size, cost, base.get("cost"), base.get("devices"), *hours)):
        return ""
    hours = [h / 3600 for h in hours]
    return (f"{count(size, 'whole server')} of {human(n / size, '')} devices; on all {human(n, '')} the run takes "
            f"fewer device-hours than on the {human(base['devices'], '')} its deadline needs ({number(hours[0])} "
            f"against {number(hours[1])}), so it costs {shown_gap(base['cost'], cost, 'USD')} less")


def alternative_phrase(r: Results, o: Option, per_replica: bool = False) -> str:
    """What an option's alternative changes, as page one names it: 'batch 32', 'precision fp8, 2 devices' (the
    devices of the option's own device only; '2 devices a replica' with `per_replica`, beside a fleet's count:
    'rent 6 × H100 (2 devices)' was read as 2 of the 6); its id where it changes more than three things."""
    w = r.scenario.workloads.get(o.workload)
    given = alternatives.given_by(r.scenario.workloads, w) if w is not None else {}
    parts = []
    for path, v in given.items():
        if path == "devices" or path == f"devices.{o.device}":
            parts.append(f"{v.text} device{'' if str(v.text) == '1' else 's'}" + (" a replica" if per_replica else "")
                         + (", whole servers" if w is not None and alternatives.whole_servers(w) else ""))
        elif path.startswith("parallel.") and not (w is not None and w.automatic):     # 'fit' sets them with devices
            parts.append(f"{path.split('.', 1)[1].replace('_', ' ')} {v.text}")       # 'tensor 8': tp8 ≠ recompute
        elif path != "title" and not path.startswith(("devices.", "parallel.")):
            parts.append(f"{path.replace('_', ' ')} {v.text}")
    return ", ".join(parts) if 0 < len(parts) <= 3 else o.alternative


def beside(r: Results, o: Option, other: Option, short: bool = False) -> str:
    """An option named beside an alternative on its own device: a base option adds its own values of the fields the
    alternative changes ('Instinct MI300X (method full)' beside '... (method lora, trainable 1 %)'), where it states
    them; any other option is named as ever (`short`: as a table names it)."""
    name = option_words(r, o, short)
    if o.alternative or not other.alternative or o.device != other.device or o.variant != other.variant:
        return name
    base, alt = r.scenario.workloads.get(o.workload), r.scenario.workloads.get(other.workload)
    if base is None or alt is None or alt.found:
        return name                                  # beside a batch sizing found: '(batch 16, as stated)' says it
    own = [f"{path.replace('_', ' ')} {v.text}" for path in alternatives.given_by(r.scenario.workloads, alt)
           if path != "title" and not path.startswith(("devices", "parallel."))
           and (v := base.values.get(path)) is not None and not str(v.source).startswith("default")]
    if not own:
        return name
    plain = short_name(r, o.device)
    rest = name[len(plain):]
    mark = stated_batch(r, o)
    if mark and rest.startswith(mark):             # one parenthesis: '(precision fp8, batch 16, as stated)'
        return f"{plain} ({', '.join(own)}, {mark[2:-1]}){rest[len(mark):]}"
    return f"{plain} ({', '.join(own)}){rest}"


def apart_from(r: Results, o: Option, best: Option) -> str:
    """An option named so that it reads apart from `best` on the same device: beside it ('Instinct MI300X (method
    full)'), else 'Instinct MI300X (as written)' where `best` is an alternative that changes its layout only (a new
    user read 'parameter count 25 % lower: Instinct MI300X' under an Instinct MI300X recommendation)."""
    name = beside(r, o, best)
    same = o.device == best.device and o.variant == best.variant and o.id != best.id
    if same and not o.alternative and "(" not in name.removeprefix(short_name(r, o.device)):
        return f"{name} (as written)"
    return name


count = plural                # '1 device', '7 devices', '3.58 devices'


def action(r: Results, dec: Decision, o: Option) -> tuple[str, str]:
    """What to do and how many, and a detail line: ('Rent 7 × Instinct MI300X by the hour, all month', '')."""
    p = pair_of(r, dec, o)
    v = p.values if p else {}
    name = option_words(r, o)
    if o.variant == "api":
        return "Use the hosted API", ""
    if o.variant == "busy_hours":
        avg, peak = v.get("busy_hours_devices"), v.get("fleet_devices")
        shown = busy_devices(r, o, v) if isinstance(avg, float) else ""
        how = [f"{shown} device{'' if shown == '1' else 's'} on average" if shown else "",
               f"{count(peak, 'device')} at the peak, the quota to ask for" if isinstance(peak, float) else ""]
        floor = " (a floor: it assumes devices can be had the moment traffic rises)" if shown else ""
        w = r.scenario.workloads.get(o.workload or "")
        found = w is not None and bool(w.found)                     # its batch on the line below: a short order
        changed = f" ({alternative_phrase(r, o)})" if o.alternative and not found else ""
        how = [f"at batch {w.get('batch')} (found by sizing)" if found else "", *how]
        return f"Rent {short_name(r, o.device)}{changed} on demand as traffic needs", \
            ", ".join(x for x in how if x) + floor
    n = v.get("fleet_devices", v.get("devices") if p and p.kind == "train" else None)
    many = f"{human(n, '')} × " if isinstance(n, float) else ""
    basis = v.get("cost_basis")
    detail = replica_words(v) or (servers(r, dec, o, v) if p is not None and p.kind == "train" else "")
    if p is not None and p.kind != "train" and isinstance(n, float):
        detail = "; ".join(x for x in (detail, served_servers(r, o, n)) if x)
    if o.alternative:                   # the hardware line names hardware; what runs on it goes below
        name = short_name(r, o.device)
        detail = "; ".join(x for x in (setup(r, o), detail) if x)
    if basis == "own":
        return f"Buy {many}{name}", detail
    if basis in ("rent", "reserved"):
        how = "with the commitment discount" if committed(r, p) else "by the hour" + \
            ("" if p.kind == "train" else ", all month")
        return f"Rent {many}{name} {how}", detail
    return (f"Choose {many}{name}" if many else f"Choose {name}"), detail


def replica_words(v: dict) -> str:
    """A fleet of replicas of more than one device each: '3 replicas of 2 devices'; '' otherwise."""
    replicas, n = v.get("replicas"), v.get("fleet_devices")
    if not isinstance(replicas, float) or not isinstance(n, float) or not replicas or n == replicas:
        return ""
    return f"{count(replicas, 'replica')} of {count(n / replicas, 'device')}"


def served_servers(r: Results, o: Option, n: float) -> str:
    """A served fleet's devices in servers where they do not fill whole ones, as for a training run: '1.25 servers
    of 8 (its scale-up domain), 2 where sold by the server' (a procurement reviewer could not order 10 H100 SXM5 on
    their own). '' within one server, or where they fill whole ones."""
    domain = r.inputs.get(f"device.{o.device}.interconnect.domain")
    size = domain.value.value if domain is not None else None
    if not isinstance(size, (int, float)) or size <= 1 or n <= size or (n / size).is_integer():
        return ""
    return (f"{human(n / size, '')} servers of {human(size, '')} (its scale-up domain), "
            f"{math.ceil(n / size)} where sold by the server")


@dataclass(frozen=True)
class Money:
    """One option's money in the engine's figures (None where it does not apply): how it is paid, the devices,
    capital, running cost a month, the monthly cost with capital written off, the horizon and its total, and the
    cost per unit of work."""

    basis: str
    devices: float | None
    capex: float | None
    opex_monthly: float | None
    monthly: float | None
    months: float
    per_unit: float | None
    per_unit_qid: str | None
    run_cost: float | None = None          # a training run: its one-off cost and duration
    duration: float | None = None

    @property
    def total(self) -> float | None:
        """Capital + running cost × the horizon's months (the workbook Summary's 'total over the horizon')."""
        if self.capex is None or self.opex_monthly is None:
            return None
        return self.capex + self.opex_monthly * self.months


BASIS = {"own": "bought", "rent": "rented all month", "reserved": "rented, committed", "busy_hours": "on demand",
         "api": "per token"}
RUN_RENTAL = "rented for the run"
RUN_COMMITTED = "rented for the run, committed"         # its risk line: the commitment's other hours not counted
PER_UNIT = {"fleet": ("cost_per_million_tokens", "cost_per_million_requests"),
            "busy_hours": ("busy_hours_cost_per_million_tokens", "busy_hours_cost_per_million_requests"),
            "api": ("api_cost_per_million_tokens",)}


def horizon_months(r: Results, o: Option) -> float:
    """The months a fleet's capital is written off over (its amortisation, else 3 years); 3 years for a service."""
    key = f"device.{o.device}.costs.amortisation"
    written_off = r.inputs.get(key) or r.blanks.get(key)
    seconds = written_off.value.value if o.variant == "fleet" and written_off is not None else HORIZON.value
    return seconds / MONTH.value


def money_of(r: Results, dec: Decision, o: Option) -> Money:
    p = pair_of(r, dec, o)
    v = p.values if p else {}
    num = lambda q: v[q] if isinstance(v.get(q), float) else None      # noqa: E731
    unit_qid = next((q for q in PER_UNIT.get(o.variant, ()) if num(q) is not None), None)
    months = horizon_months(r, o)
    if o.variant == "fleet":
        basis = BASIS.get(v.get("cost_basis"), "–")
        if basis == BASIS["rent"] and committed(r, p):
            basis = BASIS["reserved"]
        if basis == BASIS["reserved"] and p is not None and p.kind == "train":
            basis = RUN_COMMITTED
        elif basis == BASIS["rent"] and p is not None and p.kind == "train":
            basis = RUN_RENTAL                               # a run rents its devices for its duration
        devices = num("fleet_devices") if "fleet_devices" in v else num("devices")
        return Money(basis, devices, num("capex"), num("opex_monthly"), num("monthly_cost"), months,
                     num(unit_qid) if unit_qid else None, unit_qid, num("cost"), num("duration"))
    monthly = num(MONTHLY[o.variant])
    devices = num("busy_hours_devices") if o.variant == "busy_hours" else None
    return Money(BASIS[o.variant], devices, 0.0 if monthly is not None else None, monthly, monthly, months,
                 num(unit_qid) if unit_qid else None, unit_qid)


# Where the recommendation is a service: what cannot be had, the options that do without it, and what they are.
FALLBACK = {"busy_hours": ("devices cannot be added at short notice as traffic rises", ("fleet",),
                           "that keeps its devices all month"),
            "api": ("the hosted API is not an option", ("fleet", "busy_hours"), "on devices of your own or rented")}


def fallback(r: Results, dec: Decision) -> str:
    """Where the recommendation is a service (on demand, the hosted API): the best option that meets every
    requirement without that service, the plan if it cannot be had."""
    b = dec.best
    if b is None or b.variant not in FALLBACK:
        return ""
    unless, variants, what = FALLBACK[b.variant]
    own = min((o for o in dec.options if o.variant in variants and o.passes and o.value is not None),
              key=lambda o: -o.value if dec.maximise else o.value, default=None)
    if own is None:
        return ""
    act, _ = action(r, dec, own)
    if own.alternative and own.variant != "busy_hours":       # the hardware line leaves what runs on it to its detail
        act = f"{act} ({alternative_phrase(r, own, bool(replica_words(pair_of(r, dec, own).values)))})"
    unit, _ = objective_unit(dec)
    best = "best" if dec.maximise or "USD" not in unit else "cheapest"
    more = (f"; {shown_gap(own.value, b.value, unit)} more"
            if "USD" in unit and not dec.maximise and b.value is not None and own.value > b.value else "")
    said = f"If {unless}: {act[0].lower()}{act[1:]}, {human(own.value, unit)} (the {best} option {what}{more})."
    held = min((o for o in dec.options if o.variant == "fleet" and o.passes and o.value is not None),
               key=lambda o: -o.value if dec.maximise else o.value, default=None)
    if own.variant == "busy_hours" and held is not None:     # a signer: the API's fallback was an unflagged floor
        hact, _ = action(r, dec, held)
        said += (f" That is a floor: it assumes devices can be had the moment traffic rises; held all month, "
                 f"{hact[0].lower()}{hact[1:]}, {human(held.value, unit)}.")
    return said


def objective_unit(dec: Decision) -> tuple[str, str | None]:
    """The unit a decision's objective is computed in and the one it is shown in."""
    d = F.definition(dec.quantity)
    return (d.unit, d.display) if d else (dec.unit, None)


def given(r: Results, key: str, display: str | None = None) -> str | None:
    """An input in its display unit ('5 requests/s', '7 days'), or None when not given."""
    i = r.inputs.get(key)
    return human(i.value.value, F.INPUTS[i.role].unit, display or F.INPUTS[i.role].display) if i else None


def changes(r: Results, flips: list[tuple[str, float, str | None]]) -> list[str]:
    """What would change the recommendation, in words: (input key, its moved value, the option recommended
    instead, in words, or None when none would qualify)."""
    out = []
    for key, moved, instead in flips:
        i = r.inputs[key]
        unit, shown = F.INPUTS[i.role].unit, "%" if F.INPUTS[i.role].fraction else F.INPUTS[i.role].display
        out.append(f"{moved_words(r, key, moved)} ({human(moved, unit, shown)} instead of "
                   f"{human(i.value.value, unit, shown)}): {instead or 'no option qualifies'}")
    return out


def moved_words(r: Results, key: str, moved: float) -> str:
    """'the Instinct MI300X hourly rental price 25 % higher': an input and how far it was moved."""
    was = r.inputs[key].value.value
    share = abs(moved / was - 1) if was else 0.0
    return f"{input_words(r, key)} {percent(share, 2)} {'higher' if moved > was else 'lower'}"
