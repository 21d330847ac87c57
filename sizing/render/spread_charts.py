"""The uncertainty section's charts: each option's objective over the draws (5th to 95th percentile, the median
marked, its share of wins beside it), and the inputs that drive the decision (rank correlations)."""

from __future__ import annotations

from dataclasses import dataclass

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from .charts import draw, figure, scaled, text
from .format import number


@dataclass(frozen=True)
class Interval:
    label: str
    p5: float
    p50: float
    p95: float
    note: str            # its share of wins, meets ("best in 85 %; meets all in 88 %")
    chosen: bool         # the recommendation


@draw
def intervals(title: str, rows: list[Interval], unit: str) -> Figure:
    """One bar per option from its 5th to its 95th percentile, a tick at the median; the recommendation in blue."""
    fig, (ax,) = figure(0.9 + 0.26 * len(rows))
    name, factor = scaled([v for r in rows for v in (r.p5, r.p95)], unit)
    for i, r in enumerate(reversed(rows)):
        col = "#0072B2" if r.chosen else "#999999"
        ax.barh(i, (r.p95 - r.p5) / factor, left=r.p5 / factor, height=0.5, color=col, alpha=0.55)
        ax.plot([r.p50 / factor] * 2, [i - 0.3, i + 0.3], color="black", linewidth=1.2)
        ax.annotate(r.note, (r.p95 / factor, i), xytext=(4, 0), textcoords="offset points", va="center",
                    fontsize=6.5, parse_math=False)
    ax.set_yticks(range(len(rows)), [r.label for r in reversed(rows)])
    for t in ax.get_yticklabels():
        t.set_parse_math(False)
    ax.grid(axis="y", visible=False)
    ax.margins(x=0.05)
    right = max(r.p95 for r in rows) / factor
    left = min(r.p5 for r in rows) / factor
    ax.set_xlim(left - 0.05 * (right - left), right + 0.45 * (right - left))    # room for the notes
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: number(v, 4)))
    text(ax, title, f"{name}: bar from the 5th to the 95th percentile of the draws, tick at the median", "")
    ax.set_title(title, loc="left", parse_math=False)
    return fig


@draw
def drivers(title: str, rows: list[tuple[str, float]], subject: str) -> Figure:
    """Each input's rank correlation with the recommendation's lead: right (positive) a larger value helps it."""
    fig, (ax,) = figure(0.9 + 0.24 * len(rows))
    for i, (label, rho) in enumerate(reversed(rows)):
        ax.barh(i, rho, height=0.55, color="#009E73" if rho > 0 else "#D55E00")
        ax.annotate(f"{rho:+.2f}".replace("-", "\u2212"), (rho, i), xytext=(3 if rho >= 0 else -3, 0),
                    textcoords="offset points", va="center", ha="left" if rho >= 0 else "right", fontsize=6.5)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlim(-1.15, 1.15)
    ax.set_yticks(range(len(rows)), [label for label, _ in reversed(rows)])
    for t in ax.get_yticklabels():
        t.set_parse_math(False)
    ax.grid(axis="y", visible=False)
    text(ax, title, "rank correlation with its lead (right: a larger value helps it; left: hurts it)", "")
    ax.set_title(title, loc="left", parse_math=False)
    return fig
