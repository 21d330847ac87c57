"""The accuracy table: every record, measured against predicted at the defaults, and the spread per category."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from ..catalog import measurements
from .records import FAMILIES, INFORMS, TIMES, device_of, family, held_out, predict, skipped


@dataclass(frozen=True)
class Row:
    id: str
    category: str
    device: str
    measured: float
    predicted: float | None
    held_out: bool
    note: str = ""
    time: bool = False             # a time (lower is faster) rather than a rate
    unit: str = ""
    batch: int | None = None       # the batch the record ran at, where it says

    @property
    def ratio(self) -> float | None:
        """predicted / measured."""
        return None if not self.predicted else self.predicted / self.measured

    @property
    def speed(self) -> float | None:
        """Measured speed / predicted speed: below 1, the device delivered less than sizing predicts."""
        r = self.ratio
        return None if r is None else (r if self.time else 1 / r)


def rows(fields_of=None, records: list[dict] | None = None) -> list[Row]:
    """Every record predicted at the defaults (or with `fields_of(record)` set on its device); `records`: others than
    the calibration's (the independent ones, none of them held out: none was ever a default's evidence)."""
    out = held_out(measurements()) if records is None else set()
    records = measurements() if records is None else records
    table = []
    for r in records:
        skip = skipped(r)
        pred = None if skip else predict(r, fields_of(r) if fields_of else None)
        table.append(Row(r["id"], r["category"], device_of(r), r["value"], pred, r["id"] in out, skip or "",
                         r["metric"] in TIMES, r["unit"], r.get("batch")))
    return table


def worst(ratios: list[float]) -> float:
    """The ratio furthest from 1 either way."""
    return max(ratios, key=lambda x: abs(math.log(x))) if ratios else math.nan


@dataclass(frozen=True)
class Summary:
    category: str
    records: int
    median: float
    worst: float
    held_records: int
    held_median: float
    held_worst: float


def spread(name: str, rows: list[Row]) -> Summary:
    """Median and worst predicted / measured speed (above 1: the prediction is faster than measured, for times and
    rates alike) of the predicted `rows`, on all of them and on the held-out ones."""
    fast = [1 / r.speed for r in rows if r.speed]
    held = [1 / r.speed for r in rows if r.speed and r.held_out]
    return Summary(name, len(fast), statistics.median(fast), worst(fast), len(held),
                   statistics.median(held) if held else math.nan, worst(held))


def summary(table: list[Row]) -> list[Summary]:
    """Per category: the spread of its records."""
    return [spread(cat, [r for r in table if r.category == cat]) for cat in dict.fromkeys(r.category for r in table)]


def by_family(table: list[Row]) -> list[Summary]:
    """Per device family with a predicted record, over every category: the spread of its records."""
    fams = [(fam, [r for r in table if r.speed and r.category in INFORMS and family(r.device) == fam])
            for fam in FAMILIES]
    return [spread(fam, rows) for fam, rows in fams if rows]


WORDS = {"decode_batch1": "decode at batch 1 (tokens/s per user, ms per token, request latency)",
         "throughput_large_batch": "throughput at large batch (output tokens/s)",
         "ttft": "time to first token", "encoder_latency": "encoder latency (batch 1)",
         "encoder_throughput": "encoder throughput (sequences/s)",
         "training": "training (tokens/s per device, GPU-hours, model-FLOPs utilisation)",
         "training_memory": "training memory (peak per device; the ratio is predicted / measured memory: below 1, "
                            "the prediction asks for less than the run used)"}


MEMORY = ("training_memory",)          # categories whose ratio is of memory, not of speed
RECORDS_NOTE = "In the table of every record, the speed ratio"     # where the README's two marked blocks divide


def summary_table(first: str, rows: list[Summary], words: dict[str, str] | None = None) -> list[str]:
    """A summary table's markdown lines, its first column headed `first` (the ratio is of speeds, or of memory
    where a category measures memory)."""
    what = "speed (memory)" if any(s.category in MEMORY for s in rows) else "speed"
    lines = [f"| {first} | Records | Median predicted / measured {what} | Worst | Held out | Held-out median | "
             "Held-out worst |", "|---|---:|---:|---:|---:|---:|---:|"]
    return lines + [f"| {(words or {}).get(s.category, s.category)} | {s.records} | {s.median:.2f} | {s.worst:.2f} | "
                    f"{s.held_records} | {s.held_median:.2f} | {s.held_worst:.2f} |" for s in rows]


INDEPENDENT = ("Independent check: published runs a reviewer who had not seen the code found after the defaults "
               "were chosen (`sizing/catalog/independent.yaml`); none informs a default or a report's risk line")


def independent_table(table: list[Row]) -> list[str]:
    """The independent records' spread per category and over all of them."""
    groups = [(WORDS.get(cat, cat), [r for r in table if r.category == cat])
              for cat in dict.fromkeys(r.category for r in table)] + [("every category", table)]
    lines = [f"| {INDEPENDENT} | Records | Median predicted / measured speed | Worst |", "|---|---:|---:|---:|"]
    for name, rs in groups:
        fast = [1 / r.speed for r in rs if r.speed]
        if fast:
            lines.append(f"| {name} | {len(fast)} | {statistics.median(fast):.2f} | {worst(fast):.2f} |")
    return lines


def markdown(table: list[Row], independent: list[Row] = ()) -> str:
    lines = [*summary_table("Category", summary(table), WORDS), "",
             *summary_table("Device family (every category)", by_family(table)),
             *(["", *independent_table(list(independent))] if independent else []),
             "", "In these tables a speed ratio above 1 means the prediction is faster than measured (for a "
             "time, shorter), and for training memory the ratio is predicted / measured memory (above 1: the "
             "prediction asks for more than the run used); Worst is the ratio furthest from 1 either way; Held out "
             "counts the records no default was read from.", "",
             f"{RECORDS_NOTE} reads the same way (above 1: the prediction is faster than measured; for a time, "
             "shorter); Measured and Predicted are in the record's unit.", "",
             "| Record | Device | Measured | Predicted | Unit | Predicted / measured speed | Held out |",
             "|---|---|---:|---:|---|---:|---|"]
    for r in [*table, *independent]:
        pred = figure(r.predicted) if r.predicted else f"not predicted: {r.note}"
        ratio = f"{1 / r.speed:.2f}" if r.speed else ""
        lines.append(f"| {r.id} | {r.device} | {figure(r.measured)} | {pred} | {r.unit} | {ratio} | "
                     f"{'yes' if r.held_out else 'independent' if r in independent else ''} |")
    return "\n".join(lines)


def figure(v: float) -> str:
    """Whole numbers from 1,000 up, thousands grouped (22,714 rather than 2.271e+04); four significant figures below."""
    return f"{round(v):,}" if abs(v) >= 1000 else f"{v:.4g}"


def speeds(table: list[Row]) -> str:
    """The catalog's accuracy.yaml: each predicted record's device, category and measured / predicted speed, so a
    report can say how the device's published runs compare with the prediction without re-running them."""
    import yaml
    head = ("# Written by `python -m sizing.accuracy --readme README.md` (with the README's accuracy tables): each\n"
            "# published measurement's speed as measured / as sizing predicts it at the defaults (below 1: the device\n"
            "# delivered less than predicted). Reports read it for each option's risk line and their trust table\n"
            "# (held_out: no default was chosen from the record).\n")
    runs = [{"id": r.id, "device": r.device, "family": family(r.device), "category": r.category,
             **({"batch": r.batch} if r.batch is not None else {}), **({"held_out": True} if r.held_out else {}),
             "speed": round(r.speed, 3)} for r in table if r.speed is not None and r.category in INFORMS]
    return head + yaml.safe_dump({"runs": runs}, sort_keys=False, width=110)
