"""An accelerator measured through a backend: matrix products per precision, device-memory bandwidth, host<->device
copies of growing size (pinned and pageable) fitted to bandwidth + fixed overhead (the reference's link model), and
the launch overhead of an empty kernel. `TorchBackend` drives CUDA or ROCm through PyTorch where it is importable
(`pip install 'sizing[measure]'`); tests drive the same code with a fake backend of known figures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from .fit import LinkFit, fit_link, saturation
from .timing import Budget, Sample

MATMUL_SIZES = (256, 512, 1024, 2048, 4096, 8192)
COPY_SIZES = tuple(2 ** k for k in range(10, 29, 2))          # 1 kB to 256 MB
BANDWIDTH_BYTES = 1 << 30


class Backend(Protocol):
    name: str                   # the device's name as its driver reports it
    memory: float               # bytes

    def precisions(self) -> tuple[str, ...]: ...
    def matmul(self, n: int, precision: str, repeat: int) -> Sample: ...
    def device_copy(self, nbytes: int, repeat: int) -> Sample: ...
    def host_copy(self, nbytes: int, to_device: bool, pinned: bool, repeat: int) -> Sample: ...
    def launch(self, repeat: int) -> Sample: ...


@dataclass(frozen=True)
class AccelMeasurement:
    name: str
    memory: float
    matmul: dict[str, tuple[tuple[int, float], ...]]      # precision -> (n, FLOP/s) per size
    memory_bandwidth: float                                 # bytes/s, device to device copy (read + write)
    links: dict[str, LinkFit]                               # "to device, pinned" ... -> its fit
    launch_overhead: float                                  # s

    def delivered(self, precision: str) -> float:
        return max(r for _, r in self.matmul[precision])

    def saturates_at(self, precision: str) -> int:
        pts = self.matmul[precision]
        return int(saturation([n for n, _ in pts], [r for _, r in pts]))

    @property
    def link(self) -> LinkFit:
        """The host link the engine uses: pinned copies to the device (what a serving stack does)."""
        return self.links.get("to device, pinned") or next(iter(self.links.values()))


def measure_accelerator(backend: Backend, budget: Budget, repeat: int = 5,
                        progress: Callable[[str], None] = lambda s: None) -> AccelMeasurement:
    matmul = {}
    for precision in backend.precisions():
        pts = []
        for n in MATMUL_SIZES:
            s = backend.matmul(n, precision, repeat)
            pts.append((n, 2.0 * n ** 3 / s.median))
            if s.median * repeat * 8 > budget.left() / 4:             # the next size would take 8x as long
                break
        matmul[precision] = tuple(pts)
        progress(f"matmul {precision}: {max(r for _, r in pts) / 1e12:,.1f} TFLOP/s")
    dev = backend.device_copy(BANDWIDTH_BYTES, repeat)
    bandwidth = 2.0 * BANDWIDTH_BYTES / dev.median                  # read and write
    progress(f"device memory: {bandwidth / 1e9:,.0f} GB/s")
    links = {}
    for to_device in (True, False):
        for pinned in (True, False):
            times = [backend.host_copy(size, to_device, pinned, repeat).median for size in COPY_SIZES]
            key = f"{'to device' if to_device else 'to host'}, {'pinned' if pinned else 'pageable'}"
            links[key] = fit_link(COPY_SIZES, times)
            progress(f"copies {key}: {links[key].bandwidth / 1e9:,.1f} GB/s + {links[key].overhead * 1e6:,.1f} us")
    launch = backend.launch(repeat * 20).median
    return AccelMeasurement(backend.name, backend.memory, matmul, bandwidth, links, launch)


class TorchBackend:
    """CUDA or ROCm through PyTorch: timed with device events after a synchronisation (kernels launch
    asynchronously: a host timer around a call can stop before the work finishes)."""

    TYPES = {"fp32": "float32", "tf32": "float32", "bf16": "bfloat16", "fp16": "float16", "fp8": "float8_e4m3fn"}

    def __init__(self):
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("no CUDA or ROCm device visible to PyTorch")
        self.torch = torch
        self.device = torch.device("cuda")
        props = torch.cuda.get_device_properties(0)
        self.name, self.memory = props.name, float(props.total_memory)

    def precisions(self) -> tuple[str, ...]:
        major, _ = self.torch.cuda.get_device_capability(0)
        out = ["fp32", "tf32", "bf16", "fp16"]
        return tuple(out + (["fp8"] if major >= 9 and hasattr(self.torch, "_scaled_mm") else []))

    def timed(self, run: Callable[[], object], repeat: int) -> Sample:
        torch = self.torch
        run()
        torch.cuda.synchronize()
        times = []
        for _ in range(repeat):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            run()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / 1e3)
        return Sample(tuple(times))

    def matmul(self, n: int, precision: str, repeat: int) -> Sample:
        torch = self.torch
        torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
        if precision == "fp8":
            a = torch.randn(n, n, device=self.device).to(torch.float8_e4m3fn)
            b = torch.randn(n, n, device=self.device).to(torch.float8_e4m3fn).t()
            one = torch.tensor(1.0, device=self.device)
            return self.timed(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
                              repeat)
        dtype = getattr(torch, self.TYPES[precision])
        a, b = torch.randn(n, n, device=self.device, dtype=dtype), torch.randn(n, n, device=self.device, dtype=dtype)
        return self.timed(lambda: a @ b, repeat)

    def device_copy(self, nbytes: int, repeat: int) -> Sample:
        src = self.torch.empty(nbytes, dtype=self.torch.uint8, device=self.device)
        dst = self.torch.empty_like(src)
        return self.timed(lambda: dst.copy_(src), repeat)

    def host_copy(self, nbytes: int, to_device: bool, pinned: bool, repeat: int) -> Sample:
        torch = self.torch
        host = torch.empty(nbytes, dtype=torch.uint8, pin_memory=pinned)
        dev = torch.empty(nbytes, dtype=torch.uint8, device=self.device)
        return self.timed((lambda: dev.copy_(host)) if to_device else (lambda: host.copy_(dev)), repeat)

    def launch(self, repeat: int) -> Sample:
        x = self.torch.empty(1, device=self.device)
        return self.timed(lambda: x.add_(0), repeat)
