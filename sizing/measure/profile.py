"""A measurement as a device entry of the scenario language (every figure with a source line saying what was
measured, how, when and on what machine) and as a chart: the delivered rate against matrix size under the
roofline of the measured peak and bandwidth."""

from __future__ import annotations

import io
from dataclasses import dataclass

from .accel import AccelMeasurement
from .cpu import BITS, MatmulSweep, Stream
from .host import FMA_UNITS, Host


@dataclass(frozen=True)
class Measurement:
    host: Host
    when: str                           # ISO date and time, UTC
    seconds: float                      # how long the run took
    sweeps: tuple[MatmulSweep, ...]
    streams: tuple[Stream, ...]
    threads: int
    array_bytes: float
    accelerator: AccelMeasurement | None = None
    version: str = ""
    quick: bool = False                 # small sizes and arrays: a check of the machinery

    @property
    def bandwidth(self) -> Stream:
        """The STREAM kernel the profile uses: the faster of copy and triad (the better-fed loop)."""
        return max(self.streams, key=lambda s: s.bandwidth)

    def sweep(self, precision: str) -> MatmulSweep | None:
        return next((s for s in self.sweeps if s.precision == precision), None)


def header(m: Measurement, how: str) -> list[str]:
    return [f"# Measured by {how}, in {m.seconds:.1f} s.",
            *(["# --quick: small sizes and arrays, a check of the machinery, not a profile to trust."] if m.quick else []),
            "# Use it as `from: this-file.yaml` in a scenario's device, or paste it under `devices: ID:`."]


def rate(x: float, unit: str = "FLOP/s") -> str:
    for prefix, size in (("T", 1e12), ("G", 1e9), ("M", 1e6)):
        if x >= size:
            return f"{x / size:.4g} {prefix}{unit}"
    return f"{x:.4g} {unit}"


def quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', "'") + '"'


def device_yaml(m: Measurement) -> str:
    """A device entry (a scenario's `devices.ID` block, or a file for `from: FILE.yaml`)."""
    h, bw = m.host, m.bandwidth
    how = f"`sizing measure` {m.version} on {h.model} ({h.machine}), {m.when}"
    lines = [*header(m, how),
             f"name: {quoted(f'{h.model} ({h.cores} cores, measured' + (', quick' if m.quick else '') + ')')}",
             "kind: cpu",
             f"cpu: {{cores: {h.cores}, fma_units: {h.fma_units}, vector_width: {h.vector_bits} bit, "
             f"clock: {h.clock / 1e9:.4g} GHz}}"]
    delivered = {s.precision: s.delivered for s in m.sweeps}
    lines.append("delivered: {" + ", ".join(f"{p}: {rate(r)}" for p, r in delivered.items()) + "}")
    fp32 = m.sweep("fp32")
    if fp32 is not None and h.peak(32) > 0:
        lines.append(f"efficiency: {min(1.0, fp32.delivered / h.peak(32)) * 100:.1f} %")
    lines += [f"memory: {h.memory / 1e9:.4g} GB",
              f"memory_bandwidth: {rate(bw.bandwidth, 'B/s')}",
              "bandwidth_efficiency: 100 %          # memory_bandwidth is measured: it is what is delivered",
              "deployment: [on-prem]",
              "sources:",
              f"  - {{title: {quoted('sizing measure: ' + how)}, date: {quoted(m.when[:10])}}}",
              "field_sources:"]
    for path, text in sources(m).items():
        lines.append(f"  {path}: {quoted(text)}")
    return "\n".join(lines) + "\n"


def sources(m: Measurement) -> dict[str, str]:
    h, bw = m.host, m.bandwidth
    out = {"cpu.cores": f"physical cores this process may use ({h.logical} logical), from /proc/cpuinfo and the "
                        f"process's CPU affinity",
           "cpu.fma_units": f"assumed {FMA_UNITS} per core (the OS does not report it)" if h.fma else
                            "1: the processor reports no FMA",
           "cpu.vector_width": f"widest vector extension reported: {', '.join(h.extensions) or 'none'}",
           "cpu.clock": h.clock_source}
    for s in m.sweeps:
        out[f"delivered.{s.precision}"] = (
            f"measured: the median rate of square {s.precision} numpy matmuls of n = {s.large[0].n} to "
            f"{s.large[-1].n} (the larger half of the sizes {s.points[0].n} to {s.points[-1].n}), each the median of "
            f"{len(s.best.sample.times)} timed runs after a warm-up; runs differ by up to {100 * s.spread:.0f} %; "
            f"at least 90 % of it from n = {s.saturates_at} on; peak {rate(m.host.peak(BITS[s.precision]))} from "
            f"the cpu block")
    if m.sweep("fp32") is not None:
        out["efficiency"] = "measured fp32 delivered / the cpu block's fp32 peak"
    out["memory"] = "MemTotal from /proc/meminfo"
    out["memory_bandwidth"] = (
        f"measured: STREAM-like {bw.kernel} over {m.array_bytes / 1e6:,.0f} MB arrays "
        f"(last cache {m.host.cache / 1e6:,.0f} MB), {m.threads} threads, median of {len(bw.sample.times)} runs, "
        f"spread {100 * bw.sample.spread:.0f} %; " + "; ".join(f"{s.kernel} {rate(s.bandwidth, 'B/s')}" for s in m.streams))
    return out


def chart_png(m: Measurement) -> bytes:
    """Delivered rate against matrix size per precision (the spread of the runs as bars, the delivered figure as a
    line), under the roofline of the cpu block's peak and the measured bandwidth (each matrix read once from
    memory: an upper bound; small products run from the caches). Deterministic: no date in the file."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    bw = m.bandwidth.bandwidth
    giga = 1e9
    for s in m.sweeps:
        x = [p.n for p in s.points]
        y = [p.rate / giga for p in s.points]
        low = [y_ - 2 * p.n ** 3 / max(p.sample.times) / giga for p, y_ in zip(s.points, y)]
        high = [2 * p.n ** 3 / min(p.sample.times) / giga - y_ for p, y_ in zip(s.points, y)]
        line = ax.errorbar(x, y, yerr=[low, high], fmt="o-", capsize=2, label=f"{s.precision} delivered (median, "
                           f"bars: slowest to fastest run)")[0]
        ax.axhline(s.delivered / giga, color=line.get_color(), lw=0.8, alpha=0.5)
        ax.annotate(f"{s.precision}: {rate(s.delivered)} (median of n = {s.large[0].n}-{s.large[-1].n})",
                    (x[0], s.delivered / giga), textcoords="offset points", xytext=(0, 4), fontsize=7,
                    color=line.get_color())
        peak = m.host.peak(BITS[s.precision])
        roof = [min(peak, p.intensity * bw) / giga for p in s.points]
        ax.plot(x, roof, "--", color=line.get_color(), alpha=0.6,
                label=f"{s.precision} roofline: peak {rate(peak)}, memory {rate(bw, 'B/s')}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("matrix size n (n x n times n x n)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title(f"{m.host.model}: delivered rate against size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    out = io.BytesIO()
    fig.savefig(out, format="png", metadata={"Software": None})
    plt.close(fig)
    return out.getvalue()


def accelerator_yaml(m: Measurement) -> str:
    """The accelerator's device entry: delivered rates per precision, device memory and its measured bandwidth, the
    host link fitted to bandwidth + fixed overhead, the launch overhead."""
    a = m.accelerator
    how = f"`sizing measure` {m.version} on {a.name} (host {m.host.model}), {m.when}"
    link = a.link
    lines = [*header(m, how),
             f"name: {quoted(a.name + ' (measured)')}",
             "kind: gpu",
             "delivered: {" + ", ".join(f"{p}: {rate(a.delivered(p))}" for p in a.matmul) + "}",
             f"memory: {a.memory / 1e9:.4g} GB",
             f"memory_bandwidth: {rate(a.memory_bandwidth, 'B/s')}",
             "bandwidth_efficiency: 100 %          # memory_bandwidth is measured: it is what is delivered",
             f"link: {{bandwidth: {rate(link.bandwidth, 'B/s')}, copy_overhead: {link.overhead * 1e6:.3g} us, "
             f"launch_overhead: {a.launch_overhead * 1e6:.3g} us}}",
             "sources:",
             f"  - {{title: {quoted('sizing measure: ' + how)}, date: {quoted(m.when[:10])}}}",
             "field_sources:"]
    for p in a.matmul:
        lines.append(f"  delivered.{p}: " + quoted(f"measured: best median rate of square {p} products, n = "
                                                   f"{a.matmul[p][0][0]} to {a.matmul[p][-1][0]}; saturates at n = "
                                                   f"{a.saturates_at(p)}"))
    lines.append("  memory_bandwidth: " + quoted("measured: device-to-device copy of 1 GiB (read + write)"))
    fits = "; ".join(f"{k}: {rate(f.bandwidth, 'B/s')} + {f.overhead * 1e6:.3g} us (worst miss {100 * f.worst:.0f} %)"
                     for k, f in a.links.items())
    lines.append("  link.bandwidth: " + quoted(f"measured: copies of 1 kB to 256 MB fitted to bandwidth + fixed "
                                               f"overhead; pinned to the device is used; {fits}"))
    lines.append("  link.launch_overhead: " + quoted("measured: an empty kernel, median of 100 launches"))
    return "\n".join(lines) + "\n"
