"""One matrix product C = A·B on a device, with the host link."""

from .common import FLOP_PER_MAC, HOST_COPIES, roofline_time
from .expr import ceil, minimum, sum_present, where
from .graph import NA, comparison, quantity

# -- matmul ---------------------------------------------------------------------------------
@quantity("matmul", "flops", "FLOP", "operations of C = A·B: 2 m n k", display="GFLOP", label="Work")
def mm_flops(q):
    return FLOP_PER_MAC * q.m * q.n * q.k


@quantity("matmul", "macs", "", "multiply-accumulates: m n k", label="Multiply-accumulates", count=True)
def mm_macs(q):
    return q.m * q.n * q.k


@quantity("matmul", "bytes", "byte", "bytes moved at least once: A, B and C at the precision", display="MB",
          label="Bytes moved")
def mm_bytes(q):
    return (q.m * q.k + q.k * q.n + q.m * q.n) * q.bytes_per_value


@quantity("matmul", "intensity", "FLOP/byte", "arithmetic intensity: FLOPs per byte moved",
          label="Arithmetic intensity")
def mm_intensity(q):
    return q.flops / q.bytes


@quantity("matmul", "attainable_rate", "FLOP/s", "roofline: min(peak, bandwidth × intensity)", display="TFLOP/s",
          label="Attainable rate (roofline)")
def mm_attainable(q):
    return minimum(q.peak_rate, q.memory_bandwidth * q.intensity)


@quantity("matmul", "bound", "",
          "which roof limits at the delivered rates: memory when the memory time is the longer, else compute",
          label="Bound by", type="label")
def mm_bound(q):
    return where(q.memory_time >= q.compute_time, "memory", "compute")


@quantity("matmul", "padding_efficiency", "", "share of useful work when dimensions are padded to the matrix unit",
          display="%", label="Padding efficiency")
def mm_padding(q):
    t = q.matrix_unit
    padded = ceil(q.m / t) * t * (ceil(q.n / t) * t) * (ceil(q.k / t) * t)
    return q.m * q.n * q.k / padded


@quantity("matmul", "compute_time", "s", "FLOPs at the delivered rate (padded work where a matrix unit is given)",
          display="us", label="Compute time")
def mm_compute_time(q):
    useful = q.flops / q.delivered_rate
    return useful / q.padding_efficiency if q.has("padding_efficiency") else useful


@quantity("matmul", "memory_time", "s", "bytes at the memory bandwidth", display="us",
          warn="no memory bandwidth: the memory-bound time is not counted", warn_on=("memory_bandwidth",),
          label="Memory time")
def mm_memory_time(q):
    return q.bytes / q.delivered_bandwidth


@quantity("matmul", "kernel_time", "s", "on-device time: max(compute time, memory time)", display="us",
          label="Kernel time")
def mm_kernel_time(q):
    return roofline_time(q.compute_time, q.memory_time)


@quantity("matmul", "transfer_time", "s", "bytes over the host link (operands on the host)", display="us",
          label="Host-link transfer time")
def mm_transfer_time(q):
    if q.text("operands") != "host":
        return NA
    return q.bytes / q.link_bandwidth


@quantity("matmul", "overhead_time", "s", "3 copies × copy overhead + launch overhead", display="us",
          label="Copy and launch overheads")
def mm_overhead_time(q):
    copies = HOST_COPIES * q.copy_overhead if q.text("operands") == "host" and q.has("link_bandwidth") else NA
    return sum_present(copies, q.launch_overhead)


@quantity("matmul", "total_time", "s", "elapsed: overhead + transfer + kernel", display="us", label="Elapsed time")
def mm_total_time(q):
    return sum_present(q.overhead_time, q.transfer_time, q.kernel_time)


@quantity("matmul", "transfer_share", "", "share of the elapsed time spent on the link", display="%",
          label="Share of time on the host link")
def mm_transfer_share(q):
    return q.transfer_time / q.total_time


@quantity("matmul", "effective_rate", "FLOP/s", "delivered application rate: FLOPs / elapsed time",
          display="TFLOP/s", maximise=True, label="Effective rate")
def mm_effective_rate(q):
    return q.flops / q.total_time


@comparison(("matmul",), "speedup_vs", "", "elapsed time on the other device / elapsed time here",
            base="total_time")
def mm_speedup(this, other):
    return other / this


