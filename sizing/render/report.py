"""The PDF decision report: one typed context from the engine's results, Jinja2 templates, WeasyPrint PDF/A-3b."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from .. import formulas as F
from ..evaluate import Pair, Results, decide_each, scalar, sweep_paths, what_if
from ..formulas.graph import QuantityDef
from ..output import build_datetime
from ..scenario import sha256
from ..schema import REQUIREMENTS
from . import charts
from .format import human, number

TEMPLATE = "report.html.j2"
STYLESHEET = "report.css"
DEVICE_COLUMNS = 5                 # results tables split into chunks of this many devices
FIGURE_COLUMNS = 6                 # key figures beside the objective in the comparison table
SENSITIVITY = (0.75, 1.25)         # each assumption moved -25 % and +25 %
TORNADO_ROWS = 12
FLIPS_SHOWN = 6                    # changes that alter the recommendation, listed on the first page
UTILISATION_GRID = np.linspace(0.05, 1.0, 96)
# Fractions are capped at 100 % when moved up.
FRACTIONS = {"efficiency", "bandwidth_efficiency", "utilisation", "max_utilisation", "trainable", "reserved_discount"}
# Inputs that are choices or structure rather than assumptions to nudge by a quarter.
NOT_ASSUMPTIONS = {"bytes_per_value", "kv_bytes_per_value", "state_bytes_per_parameter", "redundancy",
                   "replica_devices", "train_devices", "matrix_unit", "layers", "kv_heads", "head_dim",
                   "kv_lora_rank", "qk_rope_head_dim", "cores", "fma_units", "vector_width"}
# The figures beside the objective in the comparison table, by workload kind.
KEY_FIGURES = {
    "generate": ("memory_required", "replica_memory", "step_time", "ttft_p95", "ttft", "tokens_per_s", "replicas",
                 "cost_per_million_tokens", "monthly_cost", "monthly_cost_own", "api_monthly_cost"),
    "forward": ("footprint_bytes", "latency", "response_p95", "requests_per_s", "devices_needed", "monthly_cost",
                "batch_job_time"),
    "matmul": ("total_time", "kernel_time", "transfer_share", "effective_rate"),
    "train": ("state_bytes", "fits", "devices", "duration", "cost"),
}
REQUIRE_WORDS = {"fits_memory": "fit in memory", "fits": "fit in memory", "meets_targets": "meet the latency targets",
                 "cloud": "can be had in the cloud", "on-prem": "can be had on premises",
                 "edge": "can run at the edge"}
KIND_WORDS = {"generate": "LLM serving", "forward": "single forward pass", "matmul": "matrix product",
              "train": "training", "benchmark": "benchmark record"}


# -- the context the template receives -------------------------------------------------------------------
@dataclass(frozen=True)
class Table:
    """Preformatted cells; `align` is 'l' or 'r' per column; `mark` a row to emphasise."""

    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: tuple[str, ...]
    mark: int | None = None
    caption: str = ""


@dataclass(frozen=True)
class Chart:
    caption: str
    uri: str            # an SVG data URI drawn by charts.py


@dataclass(frozen=True)
class Decision:
    device: str | None
    device_name: str
    headline: str
    objective: str
    workload: str
    constraint: str
    reasons: tuple[str, ...]
    table: Table
    table_note: str
    fleet: str


@dataclass(frozen=True)
class InputGroup:
    entity: str
    source: str                                     # the source most of the entity's figures share
    rows: tuple[tuple[str, str, str, str], ...]     # field, value as written, meaning, source (blank: as above)


@dataclass(frozen=True)
class WorkloadSection:
    id: str
    title: str
    kind: str
    description: str
    inputs: tuple[InputGroup, ...]
    results: tuple[Table, ...]
    sweep_tables: tuple[Table, ...]
    charts: tuple[Chart, ...]


@dataclass(frozen=True)
class Sensitivity:
    intro: str
    flips: tuple[str, ...]            # the first FLIPS_SHOWN changes that alter the recommendation
    more_flips: str                   # how many more there are, in words ("" when none)
    chart: Chart | None
    table: Table


@dataclass(frozen=True)
class MethodEntry:
    quantity: str
    unit: str
    description: str
    formulas: tuple[str, ...]


@dataclass(frozen=True)
class MethodGroup:
    kind: str
    entries: tuple[MethodEntry, ...]


@dataclass(frozen=True)
class Provenance:
    tool: str
    file: str
    sha256: str
    built: str
    attachments: tuple[str, ...]
    renderers: str


@dataclass(frozen=True)
class Report:
    title: str
    owner: str
    date: str
    status: str
    description: str
    created: str                      # W3C date for the PDF metadata
    decision: Decision | None
    overview: tuple[Table, ...]       # key figures per workload, when there is no decision
    findings: tuple[str, ...]
    caveats: tuple[str, ...]
    workloads: tuple[WorkloadSection, ...]
    sensitivity: Sensitivity | None
    breakeven: tuple[str, ...]
    method: tuple[MethodGroup, ...]
    glossary: tuple[tuple[str, str, str], ...]
    warnings: tuple[str, ...]
    provenance: Provenance


# -- public API ------------------------------------------------------------------------------------------
def report_bytes(results: Results, workbook: bytes | None = None) -> bytes:
    """The PDF/A-3b report, with the scenario YAML (and the workbook, if given) attached; same input, same bytes."""
    import weasyprint

    scn = results.scenario
    when = build_datetime(scn)
    names = attachment_names(results, workbook is not None)
    html = report_html(results, names)
    fetcher = weasyprint.urls.URLFetcher(allowed_protocols={"data"}, fail_on_errors=True)
    files = [weasyprint.Attachment(string=scn.data, name=names[0], relationship="Source", created=when,
                                   modified=when, url_fetcher=fetcher)]
    if workbook is not None:
        files.append(weasyprint.Attachment(string=workbook, name=names[1], relationship="Data", created=when,
                                           modified=when, url_fetcher=fetcher))
    css = weasyprint.CSS(string=read_template(STYLESHEET), url_fetcher=fetcher)
    doc = weasyprint.HTML(string=html, base_url=None, url_fetcher=fetcher)
    return doc.write_pdf(stylesheets=[css], attachments=files, pdf_variant="pdf/a-3b",
                         pdf_identifier=sha256(scn.data)[:32].encode("ascii"))


def report_html(results: Results, attachments: tuple[str, ...] | None = None) -> str:
    """The report as HTML (what WeasyPrint lays out)."""
    ctx = build_context(results, attachments or attachment_names(results, False))
    return environment().get_template(TEMPLATE).render(r=ctx)






# -- templates -------------------------------------------------------------------------------------------
def template_dir() -> Path:
    here = Path(__file__).resolve()
    beside = here.parents[2] / "templates"
    packaged = here.parents[1] / "templates"
    return beside if (beside / TEMPLATE).exists() or not packaged.exists() else packaged


@lru_cache(maxsize=1)
def environment():
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    return Environment(loader=FileSystemLoader(template_dir()), autoescape=True, undefined=StrictUndefined,
                       trim_blocks=True, lstrip_blocks=True)


def read_template(name: str) -> str:
    return (template_dir() / name).read_text(encoding="utf-8")


def attachment_names(results: Results, with_workbook: bool) -> tuple[str, ...]:
    scn = results.scenario
    base = Path(scn.file).name
    yaml_name = base if base.endswith((".yaml", ".yml")) else f"{scn.name}.yaml"
    return (yaml_name, f"{scn.name}.xlsx") if with_workbook else (yaml_name,)


# -- building the context --------------------------------------------------------------------------------
def build_context(results: Results, attachments: tuple[str, ...]) -> Report:
    """Everything the template shows, formatted; every number comes from the engine's results."""
    scn = results.scenario
    meta = {k: v.value for k, v in scn.meta.items()}
    when = build_datetime(scn)
    return Report(
        title=scn.title, owner=str(meta.get("owner", "not stated")), date=str(meta.get("date", when.date())),
        status=str(meta.get("status", "not stated")), description=str(meta.get("description", "")).strip(),
        created=when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        decision=decision_summary(results), overview=overview(results), findings=findings(results),
        caveats=caveats(results),
        workloads=tuple(workload_section(results, wid) for wid in workload_ids(results)),
        sensitivity=sensitivity(results), breakeven=breakeven(results), method=method(results),
        glossary=glossary(results), warnings=tuple(f"{p.path}: {p.message}" for p in results.problems),
        provenance=Provenance(f"sizing {__version__}", Path(scn.file).name, sha256(scn.data),
                              when.strftime("%Y-%m-%d %H:%M UTC"), attachments, renderers()),
    )


def renderers() -> str:
    return ", ".join(f"{n} {metadata.version(n)}" for n in ("WeasyPrint", "matplotlib", "Jinja2"))


# -- small helpers over the results ----------------------------------------------------------------------
def label(qid: str, kind: str | None = None) -> str:
    """What a reader calls a quantity; pass the workload kind where ids are shared (train's `fits`)."""
    if qid.startswith("speedup_vs_"):
        return f"Speed-up vs {qid.removeprefix('speedup_vs_')}"
    d = F.definition(qid, kind)
    return d.label if d and d.label else qid.replace("_", " ").capitalize()


def defs(pairs: list[Pair]) -> dict[str, QuantityDef]:
    """Every quantity present in any of the pairs, in definition order (comparisons last)."""
    out: dict[str, QuantityDef] = {}
    for stage in ("planned", "compared"):
        for p in pairs:
            for x in getattr(p, stage):
                if not isinstance(x.expr, F.Missing):
                    out.setdefault(x.d.id, x.d)
    return out


def show(p: Pair | None, qid: str, d: QuantityDef | None = None) -> str:
    """An engine value, formatted for a person; an en dash where the quantity does not apply."""
    if p is None or qid not in p.values:
        return "–"
    d = d or next(x.d for x in p.present() if x.d.id == qid)
    return human(p.values[qid], d.unit, d.display)


def used_keys(pairs: list[Pair]) -> set[str]:
    """Keys every present formula of the pairs reads."""
    return {ref.key for p in pairs for x in p.present() for ref in F.refs(x.expr)}


def input_text(r: Results, key: str) -> str | None:
    i = r.inputs.get(key)
    return i.value.text if i else None


def pairs_of(r: Results, wid: str) -> list[Pair]:
    return [p for p in r.pairs if p.workload == wid]


def workload_ids(r: Results) -> list[str]:
    return list(dict.fromkeys(p.workload for p in r.pairs))


def device_name(r: Results, did: str) -> str:
    d = r.scenario.devices.get(did)
    if d is None:
        return ""
    return " ".join(str(x) for x in (d.get("vendor"), d.get("name")) if x)


def workload_title(r: Results, wid: str) -> str:
    w = r.scenario.workloads.get(wid)
    title = w.get("title") if w else None
    return f"{title} ({wid})" if title else wid


def objective_words(dec: dict) -> str:
    return label(dec["quantity"]).lower()


def colours(r: Results) -> dict[str, int]:
    return {did: i for i, did in enumerate(r.scenario.compare)}


# -- recommendation --------------------------------------------------------------------------------------
def decision_summary(r: Results) -> Decision | None:
    dec = r.decision
    if not dec:
        return None
    best = dec["recommendation"]
    wid = dec["workload"]
    p = r.pair(wid, best) if best else None
    headline = show(p, dec["quantity"]) if p else "no option qualifies"
    constraint, reasons = why(r, dec)
    table, note = comparison(r, dec)
    return Decision(best, device_name(r, best) if best else "", headline, objective_words(dec),
                    workload_title(r, wid), constraint, tuple(reasons), table, note, fleet_words(r, p))


def role_value(r: Results, p: Pair, role: str):
    """The value of the input a pair's formulas read for `role` (e.g. its redundancy), or None."""
    key = next((ref.key for x in p.present() for ref in F.refs(x.expr)
                if ref.key in r.inputs and r.inputs[ref.key].role == role), None)
    return r.inputs[key].value.value if key else None


def fleet_words(r: Results, p: Pair | None) -> str:
    """What to buy or rent: the fleet the engine sized, and its basis."""
    if p is None or "fleet_devices" not in p.values:
        return ""
    v = p.values
    spare = role_value(r, p, "redundancy")
    per = role_value(r, p, "replica_devices")
    replicas = f"{human(v['replicas'], '')} replica{'s' if v['replicas'] != 1 else ''}" + \
        (f" of {human(per, '')} devices" if per and per > 1 else "") + \
        (f" ({human(v['servers'], '')} for the peak + {human(spare, '')} spare)" if spare else "")
    basis = ""
    if "own_rate" in v and "rent_rate" in v:
        basis = "; costed as owned, cheaper than renting" if v["device_rate"] == v["own_rate"] else \
            "; costed as rented, cheaper than owning"
    capital = f"; buying them costs {show(p, 'fleet_purchase')}" if "fleet_purchase" in v else ""
    return f"{human(v['fleet_devices'], '')} × {p.device}: {replicas}{basis}{capital}."


def why(r: Results, dec: dict) -> tuple[str, list[str]]:
    """The dominant constraint behind the recommendation, in words, from the engine's values."""
    ranking = dec["ranking"]
    best = dec["recommendation"]
    qid, wid = dec["quantity"], dec["workload"]
    word = "highest" if dec["maximise"] else "lowest"
    req = [REQUIRE_WORDS.get(x, x.replace("_", " ")) for x in dec["require"]]
    if best is None:
        return "no option qualifies", [f"No option compared can {' and '.join(req)}; the verdicts below give each "
                                       f"option's shortfall in the engine's figures."]
    p = r.pair(wid, best)
    checked = [REQUIRE_WORDS.get(x, x.replace("_", " ")) for x in dec["require"]
               if isinstance(p.values.get(REQUIREMENTS.get(x, x)), bool)]      # only what the pair checks
    cond = f", among those that {' and '.join(checked)}" if checked else ""
    if len(ranking) > 1:
        first = f"{best} has the {word} {objective_words(dec)} ({show(p, qid)}) of the {len(ranking)} options " \
                f"compared{cond}."
    else:
        first = f"{best} is the only option compared; its {objective_words(dec)} is {show(p, qid)}" + \
                (f" and it does {' and '.join(checked)}." if checked else ".")
    cheapest = min((o for o in ranking if o["value"] is not None),
                   key=lambda o: -o["value"] if dec["maximise"] else o["value"], default=None)
    if cheapest is not None and cheapest["device"] != best and cheapest["failures"]:
        tag = failure_tag(cheapest["failures"])
        lost = f"{cheapest['device']} would have the {word} {objective_words(dec)} " \
               f"({show(r.pair(wid, cheapest['device']), qid)}) but {failure_words(r, cheapest)}."
        return tag, [first, lost] + physics(r, p)[1] + money(p)
    tag, more = physics(r, p)
    return tag, [first] + more + money(p)


def money(p: Pair) -> list[str]:
    """Renting against owning, and against a hosted API, where the engine prices them."""
    v, out = p.values, []
    if "monthly_cost_own" in v and "monthly_cost_rent" in v:
        out.append(f"Rented around the clock this fleet costs {show(p, 'monthly_cost_rent')}; owned, "
                   f"{show(p, 'monthly_cost_own')}.")
        if isinstance(v.get("breakeven_utilisation"), float):
            avg = f"; this fleet averages {show(p, 'average_utilisation')}" if "average_utilisation" in v else ""
            out.append(breakeven_words(p, "Renting only the busy hours") + avg + ".")
    if "api_monthly_cost" in v or "api_cost_per_million_tokens" in v:
        cheaper = v.get("cheaper_than_api")
        verdict = "" if cheaper is None else " — the fleet is cheaper per token" if cheaper else \
            " — less than this fleet per token"
        monthly = f"{show(p, 'api_monthly_cost')} at the average traffic, " if "api_monthly_cost" in v else ""
        out.append(f"A hosted API would cost {monthly}{show(p, 'api_cost_per_million_tokens')} against "
                   f"{show(p, 'cost_per_million_tokens')} here{verdict}.")
    return out


def physics(r: Results, p: Pair) -> tuple[str, list[str]]:
    """What limits the chosen option, by workload kind."""
    v = p.values
    if p.kind == "generate" and v.get("bound") in ("memory", "compute"):
        if v["bound"] == "memory":
            return "memory-bound", [
                f"Decoding is memory-bound on {p.device}: each step reads {show(p, 'step_bytes')} of weights"
                f"{' and KV cache' if 'kv_read_bytes' in v else ''} for {show(p, 'step_flops')} of work "
                f"(intensity {show(p, 'intensity')}, below the device's ridge point of "
                f"{show(p, 'delivered_ridge_point')} at the delivered rates), so memory bandwidth and price, not "
                f"peak compute, decide speed and cost."]
        return "compute-bound", [
            f"Decoding is compute-bound on {p.device} at this batch (intensity {show(p, 'intensity')} above the "
            f"ridge point of {show(p, 'delivered_ridge_point')} at the delivered rates): the delivered rate "
            f"({show(p, 'delivered_rate')}) decides."]
    if p.kind == "matmul":
        share = v.get("transfer_share")
        if isinstance(share, float) and share > 0.5:
            return "link-bound", [
                f"The host link dominates on {p.device}: moving the operands takes {show(p, 'transfer_time')} of "
                f"the {show(p, 'total_time')} elapsed ({show(p, 'transfer_share')}); the kernel itself takes "
                f"{show(p, 'kernel_time')}."]
        if v.get("bound") in ("memory", "compute"):
            return f"{v['bound']}-bound", [
                f"On {p.device} the product is {v['bound']}-bound (intensity {show(p, 'intensity')}, ridge point "
                f"{show(p, 'delivered_ridge_point')} at the delivered rates)."]
        return "elapsed time", []
    if p.kind == "forward":
        return forward_reason(r, p)
    if p.kind == "train":
        if v.get("fits") is False:
            return "does not fit", [
                f"The training state ({show(p, 'state_bytes')}) does not fit in one {p.device}: "
                f"{show(p, 'devices')} devices are used."]
        return "cost", []
    return "cost", []


def forward_reason(r: Results, p: Pair) -> tuple[str, list[str]]:
    target = input_text(r, f"workload.{p.workload}.targets.latency_p95")
    others = [o for o in pairs_of(r, p.workload) if o is not p and isinstance(o.values.get("latency"), float)]
    faster = [o for o in others if o.values["latency"] < p.values.get("latency", math.inf)]
    out = []
    meets = bool(target and p.values.get("meets_latency"))
    if faster:
        f = min(faster, key=lambda o: o.values["latency"])
        but = f"{p.device} already meets the {target} latency target, so speed beyond it buys nothing here" \
            if meets else f"{f.device} costs more"
        out.append(f"{f.device} is faster ({show(f, 'latency')} against {show(p, 'latency')}), but {but}.")
        return ("cost: the cheaper device meets the latency target" if meets else "cost"), out
    if meets:
        out.append(f"Its latency ({show(p, 'latency')}) meets the {target} target.")
    return "cost", out


def failure_tag(fails: list[dict]) -> str:
    """The dominant constraint that excluded the cheapest option, in two or three words."""
    kinds = {f["quantity"] for f in fails}
    if any(k.startswith("available_") for k in kinds):
        return "deployment"
    if "fits" in kinds:
        return "does not fit"
    if any(f["requirement"] == "computable" for f in fails):
        return "no rate at this precision"
    return "latency target"


def failure_words(r: Results, option: dict) -> str:
    """Why an option is excluded, with the engine's figures."""
    out = []
    for f in option["failures"]:
        p = r.pair(f["workload"], option["device"])
        where = f" (workload {f['workload']})" if f["workload"] != (r.decision or {}).get("workload") else ""
        if f["quantity"].startswith("available_"):
            out.append(f"cannot be had {f['requirement']} (its deployment: "
                       f"{device_deployment(r, option['device'])})")
        elif f["requirement"] == "computable":
            out.append(f"its {label(f['quantity']).lower()} cannot be computed: the engine warns why "
                       f"(e.g. no rate at this precision){where}")
        elif f["quantity"] == "fits":
            need = next((q for q in ("memory_required", "state_bytes", "footprint_bytes") if q in p.values), None)
            have = "replica_memory" if "replica_memory" in p.values else None
            detail = f": needs {show(p, need)}" if need else ""
            if have:
                detail += f", has {show(p, have)}"
            if isinstance(p.values.get("devices_to_fit"), float) and p.values["devices_to_fit"] > 1:
                detail += f" ({show(p, 'devices_to_fit')} devices would hold it)"
            out.append(f"does not fit in memory{detail}{where}")
        else:
            out.append(f"misses a latency target{target_detail(r, p)}{where}")
    return "; ".join(out)


def device_deployment(r: Results, did: str) -> str:
    d = r.scenario.devices[did]
    return ", ".join(v.value for p, v in sorted(d.values.items()) if p.startswith("deployment[")) or "not given"


def target_detail(r: Results, p: Pair) -> str:
    checks = (("meets_per_token", "step_time", "targets.per_token_p95", "per-token time"),
              ("meets_ttft", "ttft_p95" if "ttft_p95" in p.values else "ttft", "targets.ttft_p95",
               "time to first token"),
              ("meets_latency", "latency", "targets.latency_p95", "latency"))
    parts = [f"{what} {show(p, q)} > {input_text(r, f'workload.{p.workload}.{path}')}"
             for flag, q, path, what in checks if p.values.get(flag) is False]
    return f": {', '.join(parts)}" if parts else ""


def comparison(r: Results, dec: dict) -> tuple[Table, str]:
    """Options in the engine's ranking order: objective, key figures, and why each other option lost.

    A key figure that reads the same for every option becomes a note under the table instead of a column.
    """
    wid, qid = dec["workload"], dec["quantity"]
    pairs = pairs_of(r, wid)
    kind = pairs[0].kind if pairs else ""
    present = defs(pairs)
    ranked = [(o, r.pair(wid, o["device"])) for o in dec["ranking"]]
    figures, same = [], []
    for q in KEY_FIGURES.get(kind, ()):
        if q not in present or q == qid or (q == "ttft" and "ttft_p95" in present):
            continue
        shown = {show(p, q, present[q]) for _, p in ranked}
        if len(shown) == 1 and len(ranked) > 1:
            same.append(f"{label(q)} {shown.pop()}")
        elif len(figures) < FIGURE_COLUMNS:
            figures.append(q)
    head = ("Rank", "Option", label(qid)) + tuple(label(q) for q in figures) + ("Verdict",)
    rows, mark = [], None
    for i, (o, p) in enumerate(ranked):
        value = show(p, qid, present.get(qid)) if o["value"] is not None else "n/a"
        if o["device"] == dec["recommendation"]:
            mark = i
        rows.append((str(o["rank"]), o["device"], value, *(show(p, q, present[q]) for q in figures),
                     verdict(r, dec, o)))
    align = ("r", "l", "r") + ("r",) * len(figures) + ("l",)
    note = f"The same for every option: {'; '.join(same)}." if same else ""
    return Table(head, tuple(rows), align, mark), note


def verdict(r: Results, dec: dict, o: dict) -> str:
    if o["device"] == dec["recommendation"]:
        return "recommended"
    if o["failures"]:
        return failure_words(r, o)
    if o["value"] is None:
        return f"{objective_words(dec)} not computed (an input is missing)"
    if F.definition(dec["quantity"]) and F.definition(dec["quantity"]).unit == "s":
        return f"slower{time_driver(r.pair(dec['workload'], o['device']))}"
    word = "lower" if dec["maximise"] else "higher"
    return f"{word} {objective_words(dec)}{cost_driver(r, dec, o)}"


def time_driver(p: Pair) -> str:
    v = p.values
    if isinstance(v.get("transfer_share"), float) and v["transfer_share"] > 0.5:
        return f": {show(p, 'transfer_share')} of the time on the host link"
    if p.kind == "matmul" and "delivered_rate" in v:
        return f": compute at {show(p, 'delivered_rate')}"
    if p.kind == "generate" and "step_time" in v:
        return f": {show(p, 'step_time')} per token"
    return ""


def cost_driver(r: Results, dec: dict, o: dict) -> str:
    """What makes a costlier option costlier, in its own figures."""
    p = r.pair(dec["workload"], o["device"])
    price = input_text(r, f"device.{o['device']}.price")
    if dec["quantity"] == "monthly_cost" and price:
        n = show(p, "replicas") if "replicas" in p.values else show(p, "devices_needed")
        unit = "replicas" if "replicas" in p.values else "devices"
        return f": {n} {unit} at {price}"
    if dec["quantity"] == "cost_per_million_tokens" and price:
        return f": {show(p, 'tokens_per_s')} at {price}"
    return ""


def findings(r: Results) -> tuple[str, ...]:
    """One line per workload: what limits it on each device (engine values only)."""
    out = []
    decided = r.decision["workload"] if r.decision else None
    for wid in workload_ids(r):
        if wid == decided:
            continue
        pairs = pairs_of(r, wid)
        line = finding(r, pairs)
        if line:
            out.append(f"{workload_title(r, wid)}: {line}")
    out += [line for s in r.sweeps if s.parameter == "precision" and (line := precision_finding(s))]
    return tuple(out)


def finding(r: Results, pairs: list[Pair]) -> str:
    kind = pairs[0].kind
    if kind == "generate":
        parts = [f"{p.device} {show(p, 'step_time')} per token, {show(p, 'tokens_per_s')}"
                 + (f", {p.values['bound']}-bound" if "bound" in p.values else "")
                 + ("" if p.values.get("fits", True) else ", does not fit") for p in pairs]
        return "; ".join(parts) + "."
    if kind == "matmul":
        return "; ".join(f"{p.device} {show(p, 'total_time')}"
                         + (f" ({show(p, 'transfer_share')} on the host link)" if "transfer_share" in p.values
                            else f" ({p.values['bound']}-bound)" if "bound" in p.values else "")
                         for p in pairs) + "."
    if kind == "forward":
        return "; ".join(f"{p.device} {show(p, 'latency')} per request"
                         + ("" if "meets_latency" not in p.values else
                            " (meets the target)" if p.values["meets_latency"] else " (misses the target)")
                         for p in pairs) + "."
    if kind == "train":
        return "; ".join(f"{p.device}: state {show(p, 'state_bytes')}, " + train_fit(p)
                         + f", {show(p, 'duration')}" + (f", {show(p, 'cost')}" if "cost" in p.values else "")
                         for p in pairs) + "."
    if kind == "benchmark":
        return "; ".join(f"{show(p, 'cost_per_million_tokens')} measured, "
                         f"{show(p, 'cost_per_million_tokens_at_utilisation')} at the stated utilisation"
                         for p in pairs) + "."
    return ""


def train_fit(p: Pair) -> str:
    """Where the training state goes, in the engine's figures."""
    v = p.values
    used = f"{show(p, 'devices')} device{'s' if v.get('devices') != 1 else ''}"
    if v.get("fits_one_device"):
        return f"fits on one device ({used} used)"
    if v.get("fits"):
        return f"fits sharded over the {used} used"
    return (f"does not fit on the {used} used: {show(p, 'devices_to_fit')} would hold it sharded"
            if "devices_to_fit" in v else f"does not fit on the {used} used")


def overview(r: Results) -> tuple[Table, ...]:
    """Without a decision: each workload's key figures, options down."""
    if r.decision:
        return ()
    out = []
    for wid in workload_ids(r):
        pairs = pairs_of(r, wid)
        present = defs(pairs)
        figures = [q for q in KEY_FIGURES.get(pairs[0].kind, ()) if q in present][:FIGURE_COLUMNS + 1]
        if figures:
            rows = tuple((p.device, *(show(p, q, present[q]) for q in figures)) for p in pairs)
            out.append(Table(("Option",) + tuple(label(q, pairs[0].kind) for q in figures), rows,
                             ("l",) + ("r",) * len(figures),
                             caption=workload_title(r, wid)))
    return tuple(out)


def precision_finding(s) -> str:
    """Weights at each precision of a precision sweep (the same on every device)."""
    series = next(iter(s.series.values()), {})
    q = next((q for q in ("weights_bytes", "footprint_bytes") if q in series), None)
    if q is None:
        return ""
    d = F.definition(q)
    parts = [f"{prec} {human(v, d.unit, d.display)}" for prec, v in zip(s.values, plain(series[q])) if v is not None]
    return f"{s.workload}: weights at each precision swept: {', '.join(parts)}."


def caveats(r: Results) -> tuple[str, ...]:
    """Entities whose figures are the reference's illustrative numbers, not a product's."""
    groups: dict[str, list[str]] = {}
    used = used_keys(r.pairs)
    for key, i in r.inputs.items():
        if key in used and "illustrative" in (i.value.source or ""):
            groups.setdefault(f"{i.entity.kind} {i.entity.id}", []).append(i.path)
    return tuple(f"{ent}: {', '.join(paths)}" for ent, paths in groups.items())


# -- per workload ----------------------------------------------------------------------------------------
def workload_section(r: Results, wid: str) -> WorkloadSection:
    pairs = pairs_of(r, wid)
    kind = pairs[0].kind
    w = r.scenario.workloads.get(wid)
    if kind == "benchmark":
        title = f"Benchmark record {wid} ({pairs[0].device})"
    else:
        title = workload_title(r, wid)
    return WorkloadSection(wid, title, KIND_WORDS.get(kind, kind), str(w.get("description", "")) if w else "",
                           input_groups(r, pairs), result_tables(pairs), sweep_tables(r, wid),
                           workload_charts(r, wid, pairs))


def input_groups(r: Results, pairs: list[Pair]) -> tuple[InputGroup, ...]:
    """The inputs the pairs' formulas read, grouped by entity, as written and with their source."""
    used = used_keys(pairs)
    groups: dict[tuple[str, str], list] = {}
    order = {"workload": 0, "benchmark": 0, "model": 1, "device": 2}
    for key, i in r.inputs.items():
        if key in used:
            groups.setdefault((i.entity.kind, i.entity.id), []).append(i)
    out = []
    for (kind, eid), inputs in sorted(groups.items(), key=lambda kv: order.get(kv[0][0], 3)):
        sources = [i.value.source or "" for i in inputs]
        common = max(set(sources), key=lambda s: (sources.count(s), s)) if sources else ""
        common = common if sources.count(common) >= max(2, len(sources) / 2) else ""
        rows = tuple((i.path, i.value.text, F.INPUTS[i.role].description,
                      "" if common and i.value.source == common else i.value.source or "") for i in inputs)
        out.append(InputGroup(entity_heading(r, kind, eid), common, rows))
    return tuple(out)


def entity_heading(r: Results, kind: str, eid: str) -> str:
    name = device_name(r, eid) if kind == "device" else ""
    if kind == "model" and eid in r.scenario.models:
        name = str(r.scenario.models[eid].get("name") or "")
    return f"{kind} {eid}" + (f" — {name}" if name else "")


def result_tables(pairs: list[Pair]) -> tuple[Table, ...]:
    """Quantities down, devices across (at most DEVICE_COLUMNS per table)."""
    present = defs(pairs)
    out = []
    for start in range(0, len(pairs), DEVICE_COLUMNS):
        chunk = pairs[start:start + DEVICE_COLUMNS]
        rows = []
        for qid, d in present.items():
            if any(qid in p.values for p in chunk):
                shown = (show(p, qid, d) if qid in p.values else "–" for p in chunk)
                rows.append((label(qid, chunk[0].kind), *shown))
        out.append(Table(("Quantity",) + tuple(p.device for p in chunk), tuple(rows), ("l",) + ("r",) * len(chunk)))
    return tuple(out)


def sweep_tables(r: Results, wid: str) -> tuple[Table, ...]:
    """A precision sweep as a table: each precision's key figures per device."""
    out = []
    for s in r.sweeps:
        if s.workload != wid or s.parameter != "precision":
            continue
        wanted = ("weights_bytes", "footprint_bytes", "memory_required", "fits", "step_time", "latency",
                  "tokens_per_s", "cost_per_million_tokens")
        for did, series in s.series.items():
            cols = {q: plain(series[q]) for q in wanted if q in series}
            cols = {q: v for q, v in cols.items() if any(x is not None for x in v)}
            rows = tuple((str(prec), *(human(v[j], F.definition(q).unit, F.definition(q).display)
                                       for q, v in cols.items())) for j, prec in enumerate(s.values))
            qids = list(cols)
            out.append(Table((f"Precision ({did})",) + tuple(label(q) for q in qids), rows,
                             ("l",) + ("r",) * len(qids)))
    return tuple(out)


def workload_charts(r: Results, wid: str, pairs: list[Pair]) -> tuple[Chart, ...]:
    kind = pairs[0].kind
    found = [roofline_chart(r, wid, pairs) if kind in ("generate", "matmul") else None,
             memory_chart(r, wid, pairs) if kind in ("generate", "forward", "train") else None]
    for s in r.sweeps:
        if s.workload == wid and s.parameter == "batch" and kind == "generate":
            found.append(batch_chart(r, s))
        if s.workload == wid and s.parameter == "size":
            found.append(crossover_chart(r, wid, pairs, s))
    if kind in ("generate", "forward"):
        found.append(utilisation_chart(r, wid, pairs))
    return tuple(c for c in found if c is not None)


class Named:
    """A pair's inputs (by role) and quantities (by id) as references, to evaluate one definition on them."""

    def __init__(self, names):
        self._names = set(names)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return F.Ref(name, name) if name in self._names else F.Missing(frozenset([name]))

    def has(self, name: str) -> bool:
        return name in self._names

    def text(self, name: str) -> None:
        return None


def roof(r: Results, p: Pair, intensity) -> Any:
    """The engine's roofline (the attainable_rate definition) for the pair's device, at any intensities."""
    env = {r.inputs[ref.key].role: r.inputs[ref.key].value.value
           for x in p.present() for ref in F.refs(x.expr) if ref.key in r.inputs}
    env.update(p.values)
    env["intensity"] = intensity
    d = F.definition("attainable_rate")
    if d is None:
        return None
    e = d.fn(Named(env))
    return None if isinstance(e, F.Missing) else F.evaluate(e, env)


def roofline_chart(r: Results, wid: str, pairs: list[Pair]) -> Chart | None:
    col = colours(r)
    ceilings, points = [], []
    lo = min((p.values["intensity"] for p in pairs if "intensity" in p.values), default=None)
    hi = max((p.values.get("ridge_point", 0) for p in pairs), default=0)
    if lo is None or not hi:
        return None
    xs = np.geomspace(min(lo, hi) / 10, max(lo, hi) * 10, 200)
    for p in pairs:
        ys = roof(r, p, xs) if "intensity" in p.values else None
        if ys is None:
            continue
        i = p.values["intensity"]
        ceilings.append(charts.Series(p.device, col[p.device], list(xs), list(ys)))
        points.append(charts.Point(p.device, col[p.device], i, float(roof(r, p, i))))
        if p.kind == "matmul" and "effective_rate" in p.values:
            points.append(charts.Point(p.device, col[p.device], i, p.values["effective_rate"], hollow=True))
    if not ceilings:
        return None
    what = "the decode step" if pairs[0].kind == "generate" else "the kernel"
    hollow = " Hollow dot: the rate achieved with the copies, transfers and launch included." \
        if any(p.hollow for p in points) else ""
    return Chart(f"Roofline of {wid}: each device's ceiling (peak rate, and memory bandwidth × intensity below "
                 f"the ridge point); the dot is {what} on that device.{hollow}",
                 charts.roofline(f"Roofline: {wid}", ceilings, points))


def memory_chart(r: Results, wid: str, pairs: list[Pair]) -> Chart | None:
    col = colours(r)
    bars = []
    for p in pairs:
        v = p.values
        mem = r.inputs.get(f"device.{p.device}.memory")
        if p.kind == "generate" and "weights_bytes" in v:
            parts = (("weights", v["weights_bytes"]),) + ((("KV cache", v["kv_cache_bytes"]),)
                                                          if "kv_cache_bytes" in v else ())
            bars.append(charts.Bar(p.device, col[p.device], parts, v.get("replica_memory")))
        elif p.kind == "train" and "state_bytes" in v:
            parts = (("training state (frozen weights included)", v["state_bytes"]),)
            bars.append(charts.Bar(p.device, col[p.device], parts, mem.value.value if mem else None))
        elif p.kind == "forward" and "footprint_bytes" in v:
            bars.append(charts.Bar(p.device, col[p.device], (("weights", v["footprint_bytes"]),),
                                   mem.value.value if mem else None))
    if not bars:
        return None
    return Chart(f"Memory of {wid} against each device's capacity (black mark).",
                 charts.memory(f"Memory: {wid}", bars))


def batch_chart(r: Results, s) -> Chart | None:
    col = colours(r)
    xs = [float(x) for x in s.values]
    user, total, step, unfit = [], [], [], []
    for did, q in s.series.items():
        if "tokens_per_s_per_user" not in q:
            continue
        c = col.get(did, 0)
        user.append(charts.Series(did, c, xs, plain(q["tokens_per_s_per_user"])))
        total.append(charts.Series(did, c, xs, plain(q["tokens_per_s"])))
        step.append(charts.Series(did, c, xs, plain(q["step_time"])))
        unfit += [charts.Point(did, c, x, t, y2=rate) for x, t, rate, ok in
                  zip(xs, plain(q["step_time"]), plain(q["tokens_per_s"]), plain(q.get("fits", []))) if ok is False]
    if not user:
        return None
    target = r.inputs.get(f"workload.{s.workload}.targets.per_token_p95")
    return Chart(f"Batch sweep of {s.workload}: throughput per user and in total (left), and the per-token time "
                 f"against the target (right). A cross marks a batch that does not fit in memory (in both panels).",
                 charts.batch_sweep(f"Batch sweep: {s.workload}", user, total, step,
                                    target.value.value if target else None, unfit))


def plain(values) -> list:
    """Sweep series as Python scalars (the engine may hand numpy arrays)."""
    return [scalar(v) for v in values]


def crossover_chart(r: Results, wid: str, pairs: list[Pair], s) -> Chart | None:
    """Elapsed time vs size, re-evaluated by the engine on a fine grid over the sweep's range."""
    col = colours(r)
    keys = [f"workload.{wid}.{f}" for f in sweep_paths("size")]
    xs = np.geomspace(min(s.values) / 4, max(s.values), 200)     # a little below the sweep: both sides of it
    env = what_if(r, {k: xs for k in keys}, pairs)
    series = [charts.Series(p.device, col[p.device], list(xs),
                            list(np.broadcast_to(env[f"{wid}/{p.device}/total_time"], xs.shape)))
              for p in pairs if f"{wid}/{p.device}/total_time" in env]
    marks = []
    for c in s.crossovers:
        if c["kind"] == "faster":
            marks.append(charts.Point(f"{c['from_here_faster']} faster from {number(c['at'])}", 0, c["at"], 0.0))
    if not series:
        return None
    return Chart(f"Elapsed time of {wid} against the size of the product (m = n = k), transfers and overheads "
                 f"included; the dotted line marks where the faster device changes.",
                 charts.crossover(f"Link crossover: {wid}", series, marks, "size"))


def utilisation_chart(r: Results, wid: str, pairs: list[Pair]) -> Chart | None:
    """Cost per unit of output vs utilisation: the engine re-run with the input that sets utilisation swept.

    Where an average traffic is given it sets the utilisation (of a fleet sized for the peak): it is swept from
    2 % to 100 % of the peak and the engine's average_utilisation is the x axis. Otherwise the stated
    utilisation is swept from 5 % to 100 %.
    """
    qid = "cost_per_million_tokens" if pairs[0].kind == "generate" else "cost_per_million_requests"
    if not any(qid in p.values for p in pairs):
        return None
    average, peak = (f"workload.{wid}.traffic.{f}" for f in ("average", "peak"))
    if average in used_keys(pairs) and peak in r.inputs:
        env = what_if(r, {average: r.inputs[peak].value.value * np.linspace(0.02, 1.0, 96)}, pairs)
        xs = {p.device: env.get(f"{wid}/{p.device}/average_utilisation") for p in pairs}
        what = "average traffic (2 % to 100 % of the peak) swept; the fleet is sized for the peak"
    elif (key := f"workload.{wid}.{sweep_paths('utilisation')[0]}") in r.inputs:
        env = what_if(r, {key: UTILISATION_GRID}, pairs)
        xs = {p.device: UTILISATION_GRID for p in pairs}
        what = "utilisation swept"
    else:
        return None
    col = colours(r)
    d = defs(pairs)[qid]
    name, factor = charts.scaled([p.values[qid] for p in pairs if qid in p.values], d.unit)
    series, stated = [], []
    for p in pairs:
        x = xs[p.device]
        if qid not in p.values or x is None:
            continue
        ys = np.broadcast_to(env[f"{wid}/{p.device}/{qid}"], np.shape(x)) / factor
        series.append(charts.Series(p.device, col[p.device], list(x), list(ys)))
        at = p.values.get("average_utilisation", r.inputs[f"workload.{wid}.traffic.utilisation"].value.value
                          if f"workload.{wid}.traffic.utilisation" in r.inputs else None)
        if at is not None:
            stated.append(charts.Point(p.device, col[p.device], at, p.values[qid] / factor))
    if not series:
        return None
    api = next((p.values["api_cost_per_million_tokens"] for p in pairs if qid == "cost_per_million_tokens"
                and isinstance(p.values.get("api_cost_per_million_tokens"), float)), None)
    reference = charts.Point("hosted API", 0, 0.0, api / factor) if api is not None else None
    return Chart(f"{label(qid)} of {wid} against the average utilisation of the devices: the engine re-run with "
                 f"the {what}. Idle time is paid for; dots mark the scenario"
                 f"{'; the dashed line is the hosted API' if reference else ''}.",
                 charts.cost_vs_utilisation(f"{label(qid)} vs utilisation: {wid}", series, stated,
                                            f"{label(qid).lower()} ({name or d.unit})", reference))


# -- sensitivity and break-even --------------------------------------------------------------------------
def assumptions(r: Results, wid: str) -> list[str]:
    """Input keys read by the decision workload that are numeric assumptions."""
    used = used_keys(pairs_of(r, wid))
    return [k for k, i in r.inputs.items() if k in used and i.role not in NOT_ASSUMPTIONS
            and isinstance(i.value.value, (int, float)) and not isinstance(i.value.value, bool)]


def nudged(r: Results, key: str, factor: float) -> float | None:
    """The input moved by the factor (fractions capped at 100 %, counts kept whole); None when that changes nothing."""
    i = r.inputs[key]
    v = i.value.value * factor
    if i.role in FRACTIONS:
        v = min(v, 1.0)
    if isinstance(i.value.value, int):          # a batch of 7.5 sequences is not an assumption anyone makes
        v = float(max(1, round(v)))
    return None if v == i.value.value else v


@dataclass(frozen=True)
class Outcome:
    """The engine's decision with one assumption moved: the option recommended and its objective value."""

    moved: bool
    device: str | None
    value: float | None


def sensitivity(r: Results) -> Sensitivity | None:
    """How the recommendation and the headline figure move when each assumption moves by a quarter."""
    dec = r.decision
    if not dec or not dec["recommendation"]:
        return None
    wid, qid, best = dec["workload"], dec["quantity"], dec["recommendation"]
    d = next(x.d for x in r.pair(wid, best).present() if x.d.id == qid)
    base = r.pair(wid, best).values[qid]
    fmt = lambda v: human(v, d.unit, d.display) if v is not None else "n/a"   # noqa: E731
    keys = assumptions(r, wid)
    changes = [(k, v) for k in keys for f in SENSITIVITY if (v := nudged(r, k, f)) is not None]
    decisions = iter(decide_each(r, changes))
    moves = []
    for key in keys:
        out = []
        for f in SENSITIVITY:
            if nudged(r, key, f) is None:
                out.append(Outcome(False, best, base))
                continue
            alt = next(decisions)
            rec = alt["recommendation"] if alt else None
            out.append(Outcome(True, rec, next((o["value"] for o in alt["ranking"] if o["device"] == rec), None)
                               if rec else None))
        moves.append((key, out))
    changed = lambda o: o.moved and (o.device != best or fmt(o.value) != fmt(base))   # noqa: E731
    shown = [m for m in moves if any(changed(o) for o in m[1])]
    shown.sort(key=lambda m: (-sum(o.device != best for o in m[1]), -swing(base, m[1]), m[0]))
    flips = tuple(f"{input_label(r, key)} ({r.inputs[key].value.text}) {'−25 %' if j == 0 else '+25 %'} → "
                  f"{o.device or 'no option qualifies'}"
                  for key, out in shown for j, o in enumerate(out) if o.moved and o.device != best)
    intro = (f"Each assumption below was moved down and up by 25 % (fractions capped at 100 %), one at a time, and "
             f"the engine re-run. Headline: {objective_words(dec)} of the recommended option, now {fmt(base)} on "
             f"{best}. {len(moves) - len(shown)} other assumptions move neither the recommendation nor the "
             f"headline.")
    swings = [charts.Swing(input_label(r, key), *(o.value if o.moved else None for o in out),
                           *(f"→ {o.device or 'none'}" if o.moved and o.device != best else "" for o in out))
              for key, out in shown[:TORNADO_ROWS]]
    chart = None
    if swings:
        chart = Chart("Tornado: the headline figure with each assumption at −25 % (blue) and +25 % (orange); a red "
                      "note names the option recommended instead.",
                      charts.tornado(f"Sensitivity of the {objective_words(dec)}", base, swings, d.unit,
                                     "assumption −25 %", "assumption +25 %"))
    rows = tuple((input_label(r, key), r.inputs[key].value.text,
                  *(x for o in out for x in ((o.device or "none qualifies", fmt(o.value)) if o.moved
                                             else ("(already 100 %)", ""))))
                 for key, out in shown)
    head = ("Assumption", "As given", "−25 %: recommended", "headline", "+25 %: recommended", "headline")
    more = f"and {len(flips) - FLIPS_SHOWN} more in the sensitivity section" if len(flips) > FLIPS_SHOWN else ""
    return Sensitivity(intro, flips[:FLIPS_SHOWN], more, chart, Table(head, rows, ("l", "r", "l", "r", "l", "r")))




def swing(base: float, outcome: list[Outcome]) -> float:
    return max((abs(o.value - base) for o in outcome if isinstance(o.value, float)), default=0.0)


def input_label(r: Results, key: str) -> str:
    i = r.inputs[key]
    return f"{i.entity.id} {i.path}"


def breakeven_words(p: Pair, renting: str) -> str:
    """Buy against rent on demand, in the engine's figure; above 100 % owning never wins."""
    if p.values["breakeven_utilisation"] >= 1:
        return (f"{renting} costs less than owning even at full use: owning costs "
                f"{show(p, 'breakeven_utilisation')} of the hourly price")
    return f"{renting} costs less than owning below {show(p, 'breakeven_utilisation')} average utilisation"


def breakeven(r: Results) -> tuple[str, ...]:
    """Break-even points the engine computes: compute-bound batch, and sweep crossovers."""
    out = []
    for p in r.pairs:
        if isinstance(p.values.get("breakeven_utilisation"), float):
            out.append(breakeven_words(p, f"{p.workload} on {p.device}: renting by the hour") + ".")
        if "compute_bound_batch" in p.values:
            b = p.values["compute_bound_batch"]
            now = show(p, "step_tokens").replace(" tokens", "")
            at = "never (the KV cache reads grow faster than the work)" if isinstance(b, str) else \
                f"at batch {human(b, '')}"
            out.append(f"{p.workload} on {p.device}: decode turns compute-bound {at}; the batch is {now}.")
    for s in r.sweeps:
        for c in s.crossovers:
            if c["kind"] == "faster":
                slower = next(d for d in c["between"] if d != c["from_here_faster"])
                out.append(f"{s.workload}: {c['from_here_faster']} is faster than {slower} from {s.parameter} "
                           f"{number(c['at'])} (swept {number(min(s.values))} to {number(max(s.values))}).")
            elif c["kind"] == "compute_bound":
                out.append(f"{s.workload} on {c['device']}: the first swept {s.parameter} where decode is "
                           f"compute-bound is {number(c['at'])}.")
    for c in r.crossovers:
        slower = next(d for d in c["between"] if d != c["from_here_faster"])
        out.append(f"{c['workload']}: {c['from_here_faster']} is faster than {slower} from a square size "
                   f"(m = n = k) of {number(c['at'])}.")
    return tuple(out)


# -- method ----------------------------------------------------------------------------------------------
def method(r: Results) -> tuple[MethodGroup, ...]:
    """The formulas actually used, printed from the formula graph, one group per workload kind."""
    out = []
    for kind in dict.fromkeys(p.kind for p in r.pairs):
        pairs = [p for p in r.pairs if p.kind == kind]
        variants: dict[str, dict[str, list[str]]] = {}
        found: dict[str, QuantityDef] = {}
        for p in pairs:
            for x in p.planned:
                if isinstance(x.expr, F.Missing):
                    continue
                found.setdefault(x.d.id, x.d)
                variants.setdefault(x.d.id, {}).setdefault(F.to_text(x.expr), []).append(p.device)
        entries = []
        for qid, d in found.items():
            forms = variants[qid]
            texts = tuple(t if len(forms) == 1 else f"{t}   [{', '.join(dict.fromkeys(devs))}]"
                          for t, devs in forms.items())
            entries.append(MethodEntry(qid, d.unit or "–", d.description, texts))
        if any(p.compared for p in pairs):
            c = next(x.d for p in pairs for x in p.compared)
            entries.append(MethodEntry("speedup_vs_<device>", "–", "speed-up against each other device",
                                       (c.description.rsplit(" (", 1)[0],)))
        out.append(MethodGroup(KIND_WORDS.get(kind, kind), tuple(entries)))
    return tuple(out)


def glossary(r: Results) -> tuple[tuple[str, str, str], ...]:
    """The input names the formulas use, with their SI unit and meaning."""
    used = used_keys(r.pairs)
    roles = dict.fromkeys(i.role for k, i in r.inputs.items() if k in used)
    return tuple((role, F.INPUTS[role].unit or "–", F.INPUTS[role].description) for role in roles)

