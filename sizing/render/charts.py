"""The report's charts: matplotlib (Agg canvas, no pyplot) drawn to deterministic SVG data URIs."""

from __future__ import annotations

import base64
import functools
import io
import math
from dataclasses import dataclass
from typing import Sequence

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

from .. import currency
from .format import number, scale_for

# Colour-blind-safe (Okabe-Ito) colours, one per device in the order of `compare`.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999")
STYLE = {
    "svg.hashsalt": "sizing-report",     # fixed ids: the same chart gives the same bytes
    "svg.fonttype": "none",
    "font.family": "DejaVu Sans",
    "font.size": 7.5,
    "axes.titlesize": 8.5,
    "axes.titleweight": "bold",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.5,
    "legend.fontsize": 7,
    "legend.frameon": False,
    "lines.linewidth": 1.4,
}
WIDTH = 7.0      # inches: the text width of an A4 page with 15 mm margins


@dataclass(frozen=True)
class Series:
    """A line: label (an id, never free text), colour index, x and y values (None: absent)."""

    label: str
    colour: int
    xs: Sequence[float]
    ys: Sequence[float | None]


@dataclass(frozen=True)
class Point:
    label: str
    colour: int
    x: float
    y: float
    hollow: bool = False
    y2: float | None = None      # a second reading at the same x (e.g. the aggregate rate of a sweep point)


@dataclass(frozen=True)
class Bar:
    """A stacked horizontal bar with a capacity mark: parts are (name, value) in SI units."""

    label: str
    colour: int
    parts: tuple[tuple[str, float], ...]
    capacity: float | None


@dataclass(frozen=True)
class Swing:
    """One row of a tornado: the headline at the low and high setting, and a note when the choice flips."""

    label: str
    low: float | None
    high: float | None
    low_note: str = ""
    high_note: str = ""


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def figure(height: float, cols: int = 1) -> tuple[Figure, list]:
    fig = Figure(figsize=(WIDTH, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = [fig.add_subplot(1, cols, i + 1) for i in range(cols)]
    return fig, axes


def data_uri(fig: Figure) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def draw(fn):
    """Run a chart function under the house style and return its SVG data URI."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs) -> str:
        with matplotlib.rc_context(STYLE):
            return data_uri(fn(*args, **kwargs))
    return wrapper


def text(ax, title: str, xlabel: str, ylabel: str) -> None:
    """Titles and labels may hold user text: never parsed as mathtext."""
    ax.set_title(title, loc="left", parse_math=False)
    ax.set_xlabel(xlabel, parse_math=False)
    ax.set_ylabel(ylabel, parse_math=False)


def legend(ax, **kwargs) -> None:
    leg = ax.legend(**kwargs)
    for t in leg.get_texts():
        t.set_parse_math(False)


def log_axis(axis) -> None:
    """Readable log ticks: 1, 2, 5, 10, ... as plain numbers (no mathtext exponents)."""
    low, high = axis.get_view_interval()
    narrow = high / max(low, 1e-300) < 1e3
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if narrow else (1.0,), numticks=12))
    axis.set_major_formatter(FuncFormatter(lambda v, _: number(v, 3)))
    axis.set_minor_locator(NullLocator())     # no minor ticks: the labelled ones and the grid are read; laying out
                                              # unlabelled minor ticks was a third of a report's chart time


def scaled(values, unit: str) -> tuple[str, float]:
    """The display unit and factor for an axis (the largest value decides)."""
    finite = [abs(v) for v in values if v is not None]
    name, factor = scale_for(max(finite) if finite else 1.0, unit)
    return currency.label(name), factor


def div(values, factor: float) -> list:
    return [None if v is None else v / factor for v in values]


@draw
def roofline(title: str, ceilings: list[Series], points: list[Point]) -> Figure:
    """Log-log roofline: each device's ceiling (attainable rate vs intensity) and its operating points."""
    fig, (ax,) = figure(3.0)
    name, factor = scaled([y for c in ceilings for y in c.ys] + [p.y for p in points], "FLOP/s")
    drawn: dict[tuple, str] = {}
    for c in ceilings:                      # a device with another's ceiling (the same chip twice) is dashed over it
        same = drawn.setdefault((tuple(c.xs), tuple(c.ys)), c.label)
        ax.plot(c.xs, div(c.ys, factor), color=colour(c.colour), linewidth=1.2,
                label=c.label + (f" ({same}'s ceiling)" if same != c.label else ""),
                linestyle=(0, (4, 3)) if same != c.label else "-")
    for p in points:
        face = "white" if p.hollow else colour(p.colour)
        ax.plot([p.x], [p.y / factor], "o", markersize=6, color=colour(p.colour), markerfacecolor=face, zorder=3)
    ax.plot([], [], "o", color="#444444", label="operating point (device's colour)")
    if any(p.hollow for p in points):
        ax.plot([], [], "o", color="#444444", markerfacecolor="white", label="with overheads")
    ax.set_xscale("log")
    ax.set_yscale("log")
    log_axis(ax.xaxis)
    log_axis(ax.yaxis)
    text(ax, title, "arithmetic intensity (FLOP/byte)", f"attainable rate ({name})")
    legend(ax, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig


@draw
def memory(title: str, bars: list[Bar]) -> Figure:
    """Stacked memory use per device against its capacity (a black mark)."""
    fig, (ax,) = figure(0.9 + 0.32 * len(bars))
    values = [sum(v for _, v in b.parts) for b in bars] + [b.capacity or 0 for b in bars]
    name, factor = scaled(values, "byte")
    part_names = list(dict.fromkeys(n for b in bars for n, _ in b.parts))
    shades = ("#4a6fa5", "#9bb8de", "#c9d8ee")
    labelled: set[str] = set()                  # each legend entry once, from the first bar that draws it

    def once(name: str) -> str | None:
        if name in labelled:
            return None
        labelled.add(name)
        return name

    for i, b in enumerate(reversed(bars)):
        left = 0.0
        for n, v in b.parts:
            k = part_names.index(n)
            ax.barh(i, v / factor, left=left, height=0.55, color=shades[k % len(shades)], label=once(n))
            left += v / factor
        if b.capacity is not None:
            ax.plot([b.capacity / factor] * 2, [i - 0.38, i + 0.38], color="black", linewidth=2,
                    label=once("memory available"))
    ax.set_yticks(range(len(bars)), [b.label for b in reversed(bars)])
    for t in ax.get_yticklabels():
        t.set_parse_math(False)
    ax.grid(axis="y", visible=False)
    text(ax, title, f"memory ({name})", "")
    legend(ax, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=len(part_names) + 1, title=None)
    ax.set_title(title, loc="left", parse_math=False, pad=16)
    return fig


@draw
def batch_sweep(title: str, rate_user: list[Series], rate_total: list[Series], step: list[Series],
                target: float | None, unfit: list[Point]) -> Figure:
    """Left: tokens/s per user (solid) and aggregate (dashed) vs batch; right: the time between a user's tokens vs
    batch."""
    fig, (left, right) = figure(3.0, cols=2)
    for s in rate_user:
        left.plot(s.xs, s.ys, color=colour(s.colour), label=s.label, marker=".")
    for s in rate_total:
        left.plot(s.xs, s.ys, color=colour(s.colour), linestyle="--", marker=".")
    tname, tfactor = scaled([y for s in step for y in s.ys] + ([target] if target else []), "s")
    for s in step:
        right.plot(s.xs, div(s.ys, tfactor), color=colour(s.colour), label=s.label, marker=".")
    if target is not None:
        right.axhline(target / tfactor, color="#aa0000", linewidth=1, linestyle=":", label="per-token target")
    if unfit:
        right.plot([p.x for p in unfit], [p.y / tfactor for p in unfit], "x", color="#aa0000", markersize=6,
                   zorder=4, label="does not fit")
        marked = [p for p in unfit if p.y2 is not None]
        left.plot([p.x for p in marked], [p.y2 for p in marked], "x", color="#aa0000", markersize=6, zorder=4)
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: number(v, 4)))
    left.set_yscale("log")
    log_axis(left.yaxis)
    top = max([y for s in step for y in div(s.ys, tfactor) if y is not None] + [target / tfactor if target else 0])
    right.set_ylim(0, top * 1.45)      # headroom for the legend above the lines
    text(left, title, "batch (sequences decoded together)", "tokens/s: per user (solid), all users (dashed)")
    text(right, "Time between tokens", "batch (sequences decoded together)", f"decode step + prefill share ({tname})")
    legend(right, loc="upper left", fontsize=6.5, ncols=3)
    return fig


@draw
def cost_vs_utilisation(title: str, series: list[Series], stated: list[Point], unit_label: str,
                        reference: Point | None = None) -> Figure:
    """Cost per unit of output vs average utilisation, the scenario's points, and a flat reference (an API)."""
    fig, (ax,) = figure(3.0)
    for s in series:
        ax.plot([x * 100 for x in s.xs], s.ys, color=colour(s.colour), label=s.label)
    for p in stated:
        ax.plot([p.x * 100], [p.y], "o", color=colour(p.colour), markersize=5, zorder=3)
    if reference is not None:
        ax.axhline(reference.y, color="#555555", linestyle="--", linewidth=1, label=reference.label)
    ax.set_yscale("log")
    log_axis(ax.yaxis)
    most = max((x for s in series for x in s.xs if x == x), default=1.0) * 100     # as far as a fleet gets busy (a
    ax.set_xlim(0, min(100.0, max(10.0, math.ceil(most / 10) * 10)))      # fleet sized for the peak stays well below)
    text(ax, title, "the fleet's average utilisation (%) - dots: at the scenario's traffic", unit_label)
    legend(ax, loc="upper right")
    return fig


@draw
def crossover(title: str, series: list[Series], marks: list[Point], parameter: str) -> Figure:
    """Elapsed time vs problem size per device, with the sizes where the faster device changes."""
    fig, (ax,) = figure(3.0)
    name, factor = scaled([y for s in series for y in s.ys], "s")
    for s in series:
        ax.plot(s.xs, div(s.ys, factor), color=colour(s.colour), label=s.label)
    for m in marks:
        ax.axvline(m.x, color="#555555", linestyle=":", linewidth=1)
        ax.annotate(m.label, (m.x, 0.97), xycoords=("data", "axes fraction"), xytext=(4, 0),
                    textcoords="offset points", va="top", fontsize=7, parse_math=False)
    ax.set_xscale("log")
    ax.set_yscale("log")
    log_axis(ax.xaxis)
    log_axis(ax.yaxis)
    text(ax, title, f"{parameter} (m = n = k)", f"elapsed time ({name})")
    legend(ax, loc="lower right")
    return fig


@draw
def tornado(title: str, base: float, rows: list[Swing], unit: str, low_label: str, high_label: str) -> Figure:
    """Horizontal bars from the base headline to its value with each assumption at its low and high setting."""
    fig, (ax,) = figure(0.9 + 0.24 * len(rows))
    values = [base] + [v for r in rows for v in (r.low, r.high) if v is not None]
    name, factor = scaled(values, unit)
    b = base / factor
    for i, r in enumerate(reversed(rows)):
        for v, note, col, lab in ((r.low, r.low_note, "#4a6fa5", low_label), (r.high, r.high_note, "#e08a3c",
                                                                               high_label)):
            if v is None:                       # no option qualifies: no bar, but the note says so
                if note:                        # which side it is, since no bar shows it
                    side = lab.removeprefix("assumption ")
                    ax.annotate(f"{side}: {note.removeprefix('→ ')}", (b, i), xytext=(3 if col == "#e08a3c" else -3, 0),
                                textcoords="offset points",
                                va="center", ha="left" if col == "#e08a3c" else "right", fontsize=6.5,
                                color="#aa0000", parse_math=False)
                continue
            ax.barh(i, v / factor - b, left=b, height=0.6, color=col, label=lab if i == 0 else None)
            if note:                            # beside the bar's end; a bar of no width: on its side of the base
                right = v / factor > b or (v / factor == b and col == "#e08a3c")     # (it lay over the other bar)
                ax.annotate(note, (v / factor, i), xytext=(3 if right else -3, 0),
                            textcoords="offset points", va="center", ha="left" if right else "right",
                            fontsize=6.5, color="#aa0000", parse_math=False)
    ax.axvline(b, color="black", linewidth=0.8)
    ax.set_yticks(range(len(rows)), [r.label for r in reversed(rows)])
    for t in ax.get_yticklabels():
        t.set_parse_math(False)
    ax.grid(axis="y", visible=False)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: number(v, 4)))   # '50,000', not '50000'
    ax.margins(x=0.25)
    room_for_notes(ax, rows, b, factor)
    text(ax, title, f"headline figure ({name}); base {number(b)}", "")
    legend(ax, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2)
    ax.set_title(title, loc="left", parse_math=False, pad=16)
    return fig


NOTE_POINTS = 3.7            # width of a character of a 6.5 pt note, in points (DejaVu Sans, on average)
PLOT_POINTS = 340            # the tornado's plotting width in points (7 in less its assumption labels)


def room_for_notes(ax, rows: list[Swing], base: float, factor: float) -> None:
    """Widen the x range so each red note fits beside its bar inside the plot: a note on a bar left of the base
    would otherwise run into the assumptions' names."""
    ends = [base] + [v / factor for r in rows for v in (r.low, r.high) if v is not None]
    lo, hi = min(ends), max(ends)
    left = [len(n) for r in rows for v, n in ((r.low, r.low_note), (r.high, r.high_note))
            if n and (v is None or v / factor < base)]
    right = [len(n) for r in rows for v, n in ((r.low, r.low_note), (r.high, r.high_note))
             if n and v is not None and v / factor >= base]
    if not left or hi <= lo:
        return                                       # notes on the right: the margin they have reads well
    fl = min(0.45, (max(left) * NOTE_POINTS + 6) / PLOT_POINTS)
    fr = min(0.45, (max(right, default=0) * NOTE_POINTS + 6) / PLOT_POINTS) if right else 0.05
    span = (hi - lo) / (1 - fl - fr)
    ax.set_xlim(lo - fl * span, hi + fr * span)


@draw
def grid_map(title: str, rows: tuple[str, list], columns: tuple[str, list], best: list[list[str | None]],
             texts: list[list[str]], colours: dict[str, int]) -> Figure:
    """A two-field sweep as a map: each cell coloured by the option recommended there (its device's colour) and
    labelled with the option and its objective; a blank cell: no option qualifies."""
    from matplotlib.patches import Patch, Rectangle

    n, m = len(rows[1]), len(columns[1])
    fig, (ax,) = figure(0.8 + 0.42 * n)
    for i in range(n):
        for j in range(m):
            option = best[i][j]
            face = colour(colours.get(option, 0)) if option else "#ffffff"
            ax.add_patch(Rectangle((j, n - 1 - i), 1, 1, facecolor=face, alpha=0.35 if option else 1.0,
                                   edgecolor="#888888", linewidth=0.5))
            ax.text(j + 0.5, n - 1 - i + 0.5, f"{option}\n{texts[i][j]}" if option else "none qualifies",
                    ha="center", va="center", fontsize=6, parse_math=False)
    ax.set_xlim(0, m)
    ax.set_ylim(0, n)
    ax.set_xticks([j + 0.5 for j in range(m)], [str(x) for x in columns[1]])
    ax.set_yticks([n - 1 - i + 0.5 for i in range(n)], [str(x) for x in rows[1]])
    for t in (*ax.get_xticklabels(), *ax.get_yticklabels()):
        t.set_parse_math(False)
    ax.grid(False)
    text(ax, title, columns[0], rows[0])
    handles = [Patch(facecolor=colour(c), alpha=0.35, edgecolor="#888888", label=o) for o, c in colours.items()
               if any(o in r for r in best)]
    if handles:
        ax.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=min(3, len(handles)))
        ax.set_title(title, loc="left", parse_math=False, pad=14 + 9 * ((len(handles) - 1) // 3 + 1))
    return fig
