"""What the operating system says about this machine: the processor's model, cores, clock and vector extensions,
its memory and last-level cache, and the peak they imply (cores x FMA units x lanes x 2 x clock)."""

from __future__ import annotations

import os
import platform
import re
from dataclasses import dataclass
from pathlib import Path

# Vector width by the widest extension the processor reports (bits a register holds).
EXTENSIONS = (("avx512f", 512), ("avx2", 256), ("avx", 256), ("asimd", 128), ("neon", 128), ("sse2", 128))
FMA_UNITS = 2           # per core: today's server and desktop cores have two; the OS does not report it (assumed)


@dataclass(frozen=True)
class Host:
    model: str
    logical: int                # processors this process may run on
    cores: int                  # physical cores among them (what the vector units belong to)
    clock: float                # Hz
    clock_source: str           # where the clock came from
    extensions: tuple[str, ...]
    vector_bits: int
    fma: bool
    memory: float               # bytes
    cache: float                # bytes of the last-level cache (0: unknown)
    machine: str                # x86_64, aarch64

    @property
    def fma_units(self) -> int:
        return FMA_UNITS if self.fma else 1

    def peak(self, bits: int) -> float:
        """The reference's ceiling: cores x FMA units x lanes x 2 FLOP (multiply and add) x clock, in FLOP/s."""
        return self.cores * self.fma_units * (self.vector_bits // bits) * 2 * self.clock


def probe(cpuinfo: str | None = None, meminfo: str | None = None, allowed: set[int] | None = None,
          sys_cpu: Path = Path("/sys/devices/system/cpu")) -> Host:
    """This machine (or, for tests, the given /proc texts)."""
    cpuinfo = read("/proc/cpuinfo") if cpuinfo is None else cpuinfo
    meminfo = read("/proc/meminfo") if meminfo is None else meminfo
    allowed = allowed if allowed is not None else (set(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                                                    else set(range(os.cpu_count() or 1)))
    blocks = [dict(field(line) for line in b.splitlines() if ":" in line) for b in cpuinfo.split("\n\n") if b.strip()]
    procs = [b for b in blocks if "processor" in b and int(b["processor"]) in allowed] or blocks or [{}]
    first = procs[0]
    flags = set((first.get("flags") or first.get("Features") or "").split())
    cores = len({(b.get("physical id", "0"), b.get("core id", b.get("processor"))) for b in procs})
    clock, source = max_clock(sys_cpu, first)
    bits = next((b for ext, b in EXTENSIONS if ext in flags), 64)
    return Host(model=first.get("model name") or first.get("Model") or platform.processor() or "unknown processor",
                logical=len(allowed), cores=max(1, min(cores, len(allowed))), clock=clock, clock_source=source,
                extensions=tuple(sorted(flags & {e for e, _ in EXTENSIONS} | flags & {"fma", "avx512_bf16",
                                                                                      "avx512_fp16", "amx_bf16"})),
                vector_bits=bits, fma="fma" in flags or "asimd" in flags, memory=mem_total(meminfo),
                cache=last_cache(sys_cpu), machine=platform.machine())


def read(path: str | Path) -> str:
    try:
        return Path(path).read_text(errors="replace")
    except OSError:
        return ""


def field(line: str) -> tuple[str, str]:
    k, _, v = line.partition(":")
    return k.strip(), v.strip()


def max_clock(sys_cpu: Path, first: dict) -> tuple[float, str]:
    """The maximum clock (cpufreq), else the clock the processor reported when read (cpuinfo's 'cpu MHz')."""
    khz = read(sys_cpu / "cpu0" / "cpufreq" / "cpuinfo_max_freq").strip()
    if khz.isdigit():
        return int(khz) * 1e3, "cpufreq cpuinfo_max_freq"
    mhz = first.get("cpu MHz", "")
    if re.fullmatch(r"[0-9.]+", mhz):
        return float(mhz) * 1e6, "/proc/cpuinfo cpu MHz (the clock when read; no cpufreq here)"
    return 2e9, "unknown: 2 GHz assumed"


def mem_total(meminfo: str) -> float:
    m = re.search(r"MemTotal:\s+(\d+)\s*kB", meminfo)
    return int(m.group(1)) * 1024.0 if m else 0.0


def last_cache(sys_cpu: Path) -> float:
    """The largest cache level's size in bytes ('32768K')."""
    best = 0.0
    for size in sorted((sys_cpu / "cpu0" / "cache").glob("index*/size")):
        m = re.fullmatch(r"(\d+)([KMG]?)", read(size).strip())
        if m:
            best = max(best, int(m.group(1)) * {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}[m.group(2)])
    return best
