"""What `sizing measure` and `sizing calibrate` print and write (the CLI calls these; they never exit)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from ..errors import Problem
from ..render.table import table
from .calibrate import Calibration
from .cpu import BITS
from .profile import Measurement, accelerator_yaml, device_yaml, rate


NOISY = 0.2              # a spread of repeated runs above which the figures are called noisy


def checked_entry(text: str, where: Path) -> list[Problem]:
    """The problems of a device entry read as the language reads it: a scenario that names it, evaluated."""
    from ..evaluate import evaluate
    from ..scenario import load_scenario_bytes

    scenario = ("sizing: 1\nname: measured\ndevices:\n  measured:\n" + textwrap.indent(text, "    ") +
                "workloads:\n  product: {kind: matmul, m: 4096, n: 4096, k: 4096, precision: fp32}\n")
    scn, problems = load_scenario_bytes(scenario.encode(), str(where), base=where.parent)
    if scn is None:
        return problems
    return problems + [p for p in evaluate(scn).problems if p.level == "error"]


def outputs(m: Measurement, out: Path) -> list[tuple[Path, str]]:
    """The entries to write: the processor's at OUT, or with an accelerator, the accelerator's at OUT and the
    processor's beside it (OUT-cpu.yaml)."""
    if m.accelerator is None:
        return [(out, device_yaml(m))]
    return [(out, accelerator_yaml(m)), (out.with_name(f"{out.stem}-cpu{out.suffix}"), device_yaml(m))]


def summary(m: Measurement) -> list[str]:
    h = m.host
    lines = [f"{h.model}: {h.cores} cores, {h.clock / 1e9:.2f} GHz, {h.vector_bits}-bit vectors "
             f"({m.seconds:.1f} s{', quick: a check of the machinery, not a profile to trust' if m.quick else ''})"]
    noisy = []
    for s in m.sweeps:
        peak = h.peak(BITS[s.precision])
        lines.append(f"  matmul {s.precision}: {rate(s.delivered)} delivered (median of n = {s.large[0].n} to "
                     f"{s.large[-1].n}; {100 * s.delivered / peak:.0f} % of the {rate(peak)} peak); at least 90 % "
                     f"of it from n = {s.saturates_at} on")
        noisy += [f"matmul {s.precision}"] if s.spread > NOISY else []
    lines.append("  memory: " + ", ".join(f"{s.kernel} {rate(s.bandwidth, 'B/s')}" for s in m.streams))
    noisy += [f"memory {s.kernel}" for s in m.streams if s.sample.spread > NOISY]
    if noisy:
        lines.append(f"  warning: runs differ by more than {100 * NOISY:.0f} % ({', '.join(noisy)}): the machine "
                     f"is busy; measure again when it is quiet")
    a = m.accelerator
    if a is not None:
        lines.append(f"{a.name}: " + ", ".join(f"{p} {rate(a.delivered(p))}" for p in a.matmul)
                     + f"; memory {rate(a.memory_bandwidth, 'B/s')}; link {rate(a.link.bandwidth, 'B/s')} + "
                       f"{a.link.overhead * 1e6:.3g} us; launch {a.launch_overhead * 1e6:.3g} us")
    return lines


def calibration_lines(cal: Calibration) -> list[str]:
    rows = [["record", "device", "regime", "measured", "predicted before", "m / p", "after", "m / p"]]
    for f in cal.records:
        t = f.tie
        rows.append([t.record, t.device, t.regime, f"{t.measured:,.1f}", f"{f.before:,.1f}",
                     f"{t.measured / f.before:.2f}", f"{f.after:,.1f}", f"{t.measured / f.after:.2f}"])
    lines = ["tokens/s, measured and predicted, before and after:", *("  " + ln for ln in table(rows)), ""]
    for f in cal.fitted:
        note = " (capped: the records beat the device's declared peak)" if f.at_limit else ""
        lines.append(f"devices.{f.device}.{f.field}: {100 * f.old:.1f} % -> {100 * f.new:.1f} %{note}  "
                     f"({len(f.records)} record{'s' if len(f.records) != 1 else ''}; log error {f.before:.3f} -> "
                     f"{f.after:.3f})")
    lines.append(f"every record: log error {cal.before:.3f} -> {cal.after:.3f} (root mean square of "
                 f"log(measured / predicted); 0.1 is about 10 % off)")
    return lines
