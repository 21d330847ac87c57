"""Readable numbers: SI values shown in the units a person expects (ms, GB, TFLOP/s, $/M output tokens)."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from dataclasses import dataclass
from typing import Any, Iterable

from .. import currency

# For each SI unit, the display units tried from largest to smallest, with their factor.
SCALES: dict[str, list[tuple[str, float]]] = {
    "s": [("years", 31557600.0), ("days", 86400.0), ("h", 3600.0), ("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)],
    "byte": [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3), ("B", 1.0)],
    "byte/s": [("TB/s", 1e12), ("GB/s", 1e9), ("MB/s", 1e6), ("B/s", 1.0)],
    "FLOP": [("PFLOP", 1e15), ("TFLOP", 1e12), ("GFLOP", 1e9), ("MFLOP", 1e6), ("FLOP", 1.0)],
    "FLOP/s": [("PFLOP/s", 1e15), ("TFLOP/s", 1e12), ("GFLOP/s", 1e9), ("MFLOP/s", 1e6), ("FLOP/s", 1.0)],
    "byte/token": [("MB/token", 1e6), ("kB/token", 1e3), ("B/token", 1.0)],
    "s/token": [("s/token", 1.0), ("ms/token", 1e-3), ("µs/token", 1e-6), ("ns/token", 1e-9)],
    "USD/s": [("$/hour", 1 / 3600)],
    "USD/token": [("$/M output tokens", 1e-6)],
    "1/s": [("GHz", 1e9), ("MHz", 1e6), ("Hz", 1.0)],
}
FIXED: dict[str, tuple[str, float]] = {
    "ms": ("ms", 1e-3), "us": ("µs", 1e-6), "us/token": ("µs/token", 1e-6), "s": ("s", 1.0), "h": ("h", 3600.0),
    "GB": ("GB", 1e9),
    "MB": ("MB", 1e6), "kB/token": ("kB/token", 1e3), "TFLOP/s": ("TFLOP/s", 1e12),
    "GFLOP/s": ("GFLOP/s", 1e9), "GFLOP": ("GFLOP", 1e9), "TFLOP": ("TFLOP", 1e12), "PFLOP": ("PFLOP", 1e15),
    "token/s": ("tokens/s", 1.0), "request/s": ("requests/s", 1.0), "USD/Mtoken": ("$/M output tokens", 1.0),
    "Mtoken/month": ("M tokens/month", 1e6), "Mrequest/month": ("M/month", 1e6),
    "USD": ("$", 1.0), "USD/month": ("$/month", 1.0), "USD/hour": ("$/hour", 1 / 3600),
}
# Displays kept whatever the value's size: a device-hours figure reads as hours even when it is weeks long.
PINNED: dict[str, tuple[str, float]] = {"device-h": ("device-hours", 3600.0), "USD/Minput": ("$/M input tokens", 1e-6)}
TEXT_UNITS = {"": "", "token": "tokens", "FLOP/byte": "FLOP/byte", "USD/Mtoken": "$/M output tokens", "USD": "$",
              "USD/month": "$/month", "USD/request": "$/request", "token/s": "tokens/s", "request/s": "requests/s"}


def scale_for(value: float, unit: str) -> tuple[str, float]:
    """The display unit and factor that put the value between 1 and 1000 where possible."""
    options = SCALES.get(unit)
    if not options:
        return TEXT_UNITS.get(unit, unit), 1.0
    mag = abs(value)
    for name, factor in options:
        if mag >= factor * 0.9995:
            return name, factor
    return options[-1]


def fixed(x: float, decimals: int) -> str:
    """x with `decimals` decimals and thousands separators, a half rounded up (away from zero) as a spreadsheet
    rounds it: '3,653' for 3,652.5, where Python's own format gives '3,652' and the workbook beside it 3,653."""
    d = Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    return f"{d:,.{decimals}f}"


def number(x: float, digits: int = 4) -> str:
    """A number with up to `digits` significant digits and thousands separators."""
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return "n/a"
    mag = math.floor(math.log10(abs(x)))
    if mag >= 15 or mag < -4:
        return f"{x:.{digits - 1}e}"
    decimals = max(0, digits - 1 - mag)
    s = fixed(x, decimals)
    return s.rstrip("0").rstrip(".") if "." in s else s


def human(value: Any, unit: str, display: str | None = None, digits: int = 4, cents: bool = True) -> str:
    """Format an engine value (SI) for a person: '7 ms', '14 GB', 'yes'. Money between $1 and $1,000 shows cents
    as on a price list; `cents=False` keeps `digits` significant digits instead (a rate a sentence multiplies, an
    average over sampled cases)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "n/a"
    if isinstance(value, str):
        return value
    if not math.isfinite(value):
        return "n/a"
    if display == "%":
        return percent(value, digits)
    if display in PINNED:
        name, factor = PINNED[display]
    elif unit in SCALES and value == 0:
        name, factor = FIXED.get(display, (SCALES[unit][-1][0] if unit != "s" else "s", 1.0))
    elif unit in SCALES:
        name, factor = scale_for(value, unit)
    elif display in FIXED:
        name, factor = FIXED[display]
    else:
        name, factor = TEXT_UNITS.get(unit, unit), 1.0
    text = number(value / factor, digits)
    if name.startswith("$"):
        if "e" in text and abs(value / factor) < 1:  # $0.00006, never $6.000e-05
            text = f"{value / factor:.{digits - 1 - math.floor(math.log10(abs(value / factor)))}f}".rstrip("0")
        if cents and 1 <= abs(value / factor) < 1000:
            text = fixed(value / factor, 2)         # cents, as on a price list
        elif abs(value / factor) < 1000 and 0 < len(text.partition(".")[2]) < 2:
            text = f"{value / factor:.2f}"          # $0.40, not $0.4 (a whole amount at these digits stays whole)
        return f"{currency.symbol()}{text}{name[1:]}"
    return f"{text} {currency.units(name)}".strip()


def percent(value: float, digits: int = 3) -> str:
    """'53.3 %'; a share too small to read in a few digits is '< 0.01 %' (never scientific notation)."""
    if value and abs(value * 100) < 0.01:
        return "< 0.01 %" if value > 0 else "> −0.01 %"
    return f"{number(value * 100, digits)} %"


def money_column(values: list[float | None], missing: str = "n/a") -> list[str]:
    """Amounts of one table column in one format: whole units when any reaches 1,000 (or all are nothing), else
    cents, else four decimals for amounts under ten cents; thousands separators; the currency's symbol; no unit
    (the header has it)."""
    shown = [abs(v) for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
    top = max(shown, default=0.0)
    low = min((v for v in shown if v), default=1.0)
    decimals = 0 if top >= 1000 or top == 0 else 2 if low >= 0.1 else min(6, 2 - math.floor(math.log10(low)))
    return [f"{currency.symbol()}{fixed(v, decimals)}" if isinstance(v, (int, float)) and math.isfinite(v) else missing
            for v in values]


def count_column(values: list[float | None], missing: str = "–") -> list[str]:
    """Counts of one column: whole numbers where all are whole, else one decimal for all."""
    shown = [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
    decimals = 0 if all(float(v).is_integer() for v in shown) else 1
    return [fixed(v, decimals) if isinstance(v, (int, float)) and math.isfinite(v) else missing for v in values]


# -- units a person reads ---------------------------------------------------------------------
@dataclass(frozen=True)
class Shown:
    """A number as a person reads it: value in `label`; value x factor is the SI value."""

    label: str
    factor: float = 1.0
    percent: bool = False


def numbers(values: Iterable) -> list[float]:
    """The finite magnitudes among values (booleans and text left out; numpy scalars welcome)."""
    out = []
    for v in map(plain, values):
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            out.append(abs(v))
    return out


def display_unit(values: Iterable, unit: str, display: str | None) -> Shown:
    """One display unit for a row of engine values: the one format.human picks for the smallest."""
    nums = numbers(values)
    if display == "%":
        return Shown("%", 1.0, True)
    if display in PINNED:
        return Shown(*PINNED[display])
    if unit in SCALES and any(nums):        # all zero (no queueing wait): the definition's own display unit
        return Shown(*scale_for(min(x for x in nums if x), unit))
    if display in FIXED:
        return Shown(*FIXED[display])
    return Shown(TEXT_UNITS.get(unit, unit))


def plain(v: Any) -> Any:
    """A Python scalar for a numpy one (sweep series are arrays)."""
    return v.item() if hasattr(v, "item") and not isinstance(v, (int, float, bool, str)) else v


def aligned(values: list[Any], unit: str, display: str | None = None, digits: int = 4) -> list[str]:
    """Engine values of one row or column in one format: one display unit (the one the largest reads in), fixed
    decimals (the largest to `digits` significant digits, the smallest to two at least, at most 3; percentages to
    one or two; money in cents, or whole units when any reaches 1,000), thousands separators; a value too small
    for the decimals reads '< 0.01'. Text, booleans and missing values are shown as `human` shows them."""
    nums = [v for v in map(plain, values) if isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v)]
    top = max((abs(v) for v in nums), default=0.0)
    low = min((abs(v) for v in nums if v), default=0.0)
    if not nums or display in PINNED or (low and top / low > 1000 and display != "%"):
        return [human(v, unit, display) for v in values]     # magnitudes too far apart for one unit
    if display == "%":
        name, scale, percent = "%", 100.0, True
    elif unit in SCALES and top:
        name, factor = scale_for(top, unit)
        scale, percent = 1 / factor, False
    elif display in FIXED:
        name, scale, percent = FIXED[display][0], 1 / FIXED[display][1], False
    else:
        name, scale, percent = TEXT_UNITS.get(unit, unit), 1.0, False
    mags = [abs(v) * scale for v in nums if v]
    money = name.startswith("$")
    if money:
        small = min(mags, default=1)
        decimals = 0 if max(mags, default=0) >= 1000 else 2 if small >= 0.1 else min(6, 2 - math.floor(math.log10(small)))
    elif percent:
        decimals = 1 if min((m for m in mags if m >= 0.05), default=1) >= 1 else 2
    elif all(float(m).is_integer() for m in mags):
        decimals = 0
    else:
        big = digits - 1 - math.floor(math.log10(max(mags)))
        small = 1 - math.floor(math.log10(min(mags)))
        decimals = max(0, min(3, max(big, small)))
    suffix = " %" if percent else "" if money else f" {currency.units(name)}".rstrip()
    hourly = money and name.endswith("/hour")        # a rate a fleet's devices and hours multiply

    def one(v: Any) -> str:
        v = plain(v)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            return human(v, unit, display)
        x = v * scale
        tiny = x and abs(x) < 0.5 * 10 ** -decimals
        text = f"{10 ** -decimals:.{decimals}f}" if tiny else fixed(x, decimals)
        if hourly and decimals == 2 and abs(x * 100 - round(x * 100)) > 1e-6:
            text = fixed(x, 4)       # an owned device's cost an hour, as the verdicts multiply it: $1.4553, not $1.46
        if money:
            text = f"{currency.symbol()}{text}{name[1:]}"
        else:
            text += suffix
        return f"< {text}" if tiny else text
    return [one(v) for v in values]


def separated(text: str) -> str:
    """A value as written with thousands separators in its long whole numbers: '35000 USD' -> '35,000 USD'."""
    import re
    return re.sub(r"(?<![\w.,-])(\d{5,})(?![\w.,])", lambda m: f"{int(m[1]):,}", text)
