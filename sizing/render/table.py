"""The terminal view of an evaluation: one table per workload, devices side by side, readable units."""

from __future__ import annotations

from .. import alternatives, currency
from .. import formulas as F
from ..decide import pair_of
from ..evaluate import Results, SweepResult
from ..narrative import crossover_words
from ..narrative.decision import target_detail
from ..narrative.layouts import another
from ..narrative.memo import fallback
from ..narrative.money import api_unstated
from .format import human

SWEEP_ROWS = 20          # a long sweep is shown at evenly spaced points; the JSON has them all



def table(rows: list[list[str]], width: int | None = None) -> list[str]:
    """Aligned columns, the first left, the rest right. Wider than `width`: the columns after the first are paged,
    each page repeating the first column (devices side by side become pages of devices)."""
    lines = aligned(rows)
    if width is None or len(rows[0]) <= 2 or max(map(len, lines)) <= width:
        return lines
    pages: list[list[int]] = []
    page: list[int] = []
    for c in range(1, len(rows[0])):
        if page and max(map(len, aligned(columns(rows, page + [c])))) > width:
            pages.append(page)
            page = [c]
        else:
            page.append(c)
    pages.append(page)
    out: list[str] = []
    for i, cols in enumerate(pages):
        out += ([""] if i else []) + aligned(columns(rows, cols))
    return out


def columns(rows: list[list[str]], cols: list[int]) -> list[list[str]]:
    return [[r[0]] + [r[c] for c in cols] for r in rows]


def aligned(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for n, r in enumerate(rows):
        cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]
        out.append("  ".join(cells).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return out


def wrapped(text: str, width: int | None, indent: str = "  ") -> list[str]:
    """A sentence within `width`, its continuation lines indented under it."""
    if width is None or len(text) <= width:
        return [text]
    import textwrap
    lead = text[:len(text) - len(text.lstrip())]
    return textwrap.wrap(text, width, initial_indent="", subsequent_indent=lead + indent, break_on_hyphens=False)


def inside(width: int | None, indent: int) -> int | None:
    return None if width is None else max(20, width - indent)


def sweep_lines(r: Results, s: SweepResult, width: int | None = None) -> list[str]:
    """The swept values down, a few key quantities per device across."""
    kind = r.scenario.workloads[s.workload].get("kind")
    wanted = s.shown
    n = len(s.values)
    rows_at = sorted({round(i * (n - 1) / (SWEEP_ROWS - 1)) for i in range(SWEEP_ROWS)}) if n > SWEEP_ROWS else range(n)
    columns = [(dev, qid) for dev, series in s.series.items() for qid in wanted if qid in series]
    shown = f" ({len(rows_at)} of {n} points)" if n > SWEEP_ROWS else ""
    rows = [[s.parameter] + [f"{dev} {qid}" for dev, qid in columns]]
    for i in rows_at:
        x = s.values[i]
        cells = [x if isinstance(x, str) else f"{x:g}"]
        for dev, qid in columns:
            d = next(d for d in F.quantity_defs(kind) if d.id == qid)
            v = s.series[dev][qid][i]
            cells.append(human(v.item() if hasattr(v, "item") else v, d.unit, d.display))
        rows.append(cells)
    out = [f"sweep of {s.parameter} for {s.workload}{shown}"] + ["  " + ln for ln in table(rows, inside(width, 2))]
    if any(c == "n/a" for row in rows[1:] for c in row):
        out += wrapped("  n/a: not priced at that value: the option does not fit in memory or misses a latency "
                       "target there", width, "  ")
    return out


def grid_lines(g, width: int | None = None) -> list[str]:
    """A two-field sweep: the recommendation and its objective value in each cell, rows by the first field."""
    d = F.definition(g.objective) if g.objective else None
    out = [f"grid of {g.rows} (down) by {g.columns} (across) for {g.workload}"]
    if d is None:
        return out + ["  no decision on this workload: its quantities per cell are in the JSON and the workbook"]
    rows = [[g.rows] + [f"{g.columns} {v}" for v in g.column_values]]
    for x, best, value in zip(g.row_values, g.best, g.value):
        rows.append([x if isinstance(x, str) else f"{x:g}"] +
                    [f"{b} {human(v, d.unit, d.display)}" if b else "none qualifies" for b, v in zip(best, value)])
    return out + [f"  recommended option and its {d.label.lower() if d.label else g.objective}"] + \
        ["  " + ln for ln in table(rows, inside(width, 2))]


def spread_lines(r: Results, d, width: int | None = None) -> list[str]:
    """How sure the decision is: the simulation's sentence, each option's win and meet shares and the spread of its
    objective, the regret and the drivers."""
    from ..narrative import confidence as C

    s = C.spread_for(r, d)
    if s is None:
        return []
    sim = r.simulation
    lines = wrapped(f"  how sure ({sim.spec.draws:,} draws, seed {sim.spec.seed}): {C.sentence(r, d)}", width)
    rows = [["option", "best", "meets all", f"{d.quantity} p5", "p50", "p95"]]
    left = 0
    for o in s.options:
        ranked = d.option(o.option).rank if d.option(o.option) else None
        if o.win_probability == 0 and len(rows) > 6 and ranked not in (1, 2):
            left += 1
            continue
        p5, p50, p95 = (human(v, d.unit) for v in o.objective) if o.objective else ("n/a",) * 3
        rows.append([d.option(o.option).label if d.option(o.option) else o.option, C.share(o.win_probability),
                     C.share(o.meets_probability), p5, p50, p95])
    lines += ["    " + ln for ln in table(rows, inside(width, 4))]
    if left:
        lines += wrapped(f"    ({left} more option{'s' if left > 1 else ''} left out, {'each' if left > 1 else 'also'} "
                         "never the best in a draw; --format json lists every one)", width)
    for text in (C.regret_words(r, d), C.drivers_sentence(r, d)):
        if text:
            lines += wrapped(f"  {text}", width)
    return lines


@currency.rendered
def render(r: Results, width: int | None = None, summary: bool = False) -> str:
    """The evaluation as text; with `width` (a terminal's), tables page their columns and sentences wrap to fit;
    `summary`: the decisions only (a new user scrolled past 95 rows a workload to reach them)."""
    lines = [*wrapped(f"{r.scenario.title}  ({r.scenario.file})", width), ""]
    if not summary:
        lines += figure_lines(r, width)
    return "\n".join(lines + decision_lines(r, width)).rstrip() + "\n"


def figure_lines(r: Results, width: int | None) -> list[str]:
    """Every quantity of every pair, a table a workload, then the sweeps, grids and crossovers."""
    lines: list[str] = []
    groups: dict[str, list] = {}
    for p in r.pairs:
        groups.setdefault(p.workload, []).append(p)
    for wid, pairs in groups.items():
        lines.append(f"{wid} ({pairs[0].kind})")
        order: dict[str, object] = {}
        for p in pairs:
            for x in p.present():
                order.setdefault(x.d.id, x.d)
        rows = [["quantity"] + [p.device for p in pairs]]
        for qid, d in order.items():
            rows.append([qid] + [human(p.values[qid], d.unit, d.display) if qid in p.values else "-"
                                 for p in pairs])
        lines += ["  " + s for s in table(rows, inside(width, 2))] + [""]
    for s in r.sweeps:
        lines += sweep_lines(r, s, width)
        lines += [ln for c in s.crossovers for ln in wrapped(f"  {crossover_words(c, (min(s.values), max(s.values)))}",
                                                             width)]
        lines.append("")
    for g in r.grids:
        lines += grid_lines(g, width) + [""]
    lines += [ln for c in r.crossovers for ln in wrapped(crossover_words(c), width)]
    if r.crossovers:
        lines.append("")
    return lines


def decision_lines(r: Results, width: int | None) -> list[str]:
    """Each decision: its options ranked, what each fails and how to fix it, the recommendation and its caveats."""
    lines: list[str] = []
    wanted = [d.get("objective") for d in r.scenario.decisions]
    if not r.decisions and r.scenario.compare and wanted:
        lines += wrapped(f"decision: none: no workload computes {' or '.join(wanted)} (the objective); the warnings "
                         "say what is missing", width, "  ") + [""]
    for d in r.decisions:
        budget = ", ".join(f"{k} {human(v, 'USD')}" for k, v in d.budget.items())
        lines.append(f"decision: {d.objective} on {d.workload}" + (f" (budget: {budget})" if budget else ""))
        for o in d.options:
            why = "; ".join(f"fails {f.requirement} ({f.workload})" + missed(r, f, o) for f in o.failures)
            if o.variant == "api" and o.failures and (unstated := api_unstated(r, pair_of(r, d, o))):
                why += f": the provider's {' and '.join(unstated)} not stated (add under api:)"
            fit = alternatives.fit_for(r.scenario.workloads, o.workload, o.device)
            if any(f.memory for f in o.failures) and fit is not None:
                why += f"; {fit.get(f'devices.{o.device}')} devices ranked as {o.device}, {fit.alternative}"
            elif any(f.memory for f in o.failures) and isinstance(
                    n := getattr(pair_of(r, d, o), "values", {}).get("devices_to_fit"), (int, float)):
                where = f"the alternative '{o.alternative}'" if o.alternative else "the workload"
                train = pair_of(r, d, o).kind == "train"
                # a count the heads split into, as the automatic `fit` gives (a new user gave the 3 that hold a
                # 70B and was warned that 3 ways do not split its 64 heads)
                even = alternatives.holding(False, float(n)) or n
                why += ("; one sequence's activations outgrow a device: set recompute: true, or parallel.tensor"
                        if n == 0 else f"; {n:g} devices hold it: give {where} devices: {n:g}" if train else
                        f"; {n:g} devices hold it: give {where} devices: {{{o.device}: {even:g}}}"
                        + (" (a power of two: runtimes split the attention heads evenly)" if even != n else ""))
            val = human(o.value, d.unit) if o.value is not None else "n/a"
            place = f"{o.rank}." if o.rank else "–"
            lines += wrapped(f"  {place} {o.label}: {val}{extent(r, d, o)}{'  ' + why if why else ''}", width, "    ")
        rec = d.best.label if d.best else "none: no option meets every requirement"
        lines.append(f"  recommendation: {rec}")
        if d.best is not None and d.best.variant == "busy_hours":
            lines += wrapped("  (a floor: it bills the devices the average traffic keeps busy and assumes they can "
                             "be had the moment traffic rises)", width, "    ")
        if plan := fallback(r, d):
            lines += wrapped(f"  {plan}", width, "    ")
        what, other, _ = another(r, d)
        if other:
            lines += wrapped(f"  {what.lower()}: {other}", width, "    ")
        lines += spread_lines(r, d, width)
        lines.append("")
    return lines


def extent(r: Results, d, o) -> str:
    """What an option takes beside its figure: ' (32 devices, 26.86 days)' for a training run, ' (6 devices)' for a
    fleet, ' (3.058 devices on average)' on demand (a new user dug the counts out of the full table)."""
    v = getattr(pair_of(r, d, o), "values", {}) if o.value is not None else {}       # not beside 'n/a'
    n = v.get("devices" if "duration" in v else "fleet_devices")
    if o.variant == "busy_hours" and isinstance(v.get("busy_hours_devices"), float):
        return f" ({human(v['busy_hours_devices'], '')} devices on average)"
    if o.variant != "fleet" or not isinstance(n, float):
        return ""
    took = f", {human(v['duration'], 's', 'days')}" if isinstance(v.get("duration"), float) else ""
    return f" ({human(n, '')} device{'' if n == 1 else 's'}{took})"


def missed(r: Results, f, o) -> str:
    """Which latency target a device option misses, by how much: ': time between tokens 62.67 ms > 60 ms'."""
    p = r.pair(f.workload, o.device) if o.variant != "api" and f.requirement == "meets_targets" else None
    return target_detail(r, p) if p is not None else ""
