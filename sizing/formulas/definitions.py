"""Every derived quantity of sizing, each defined once (device, matmul, generate, forward, train, benchmark)."""

from __future__ import annotations

from .expr import (TAIL, TINY, Const, Missing, all_present, nothing, ceil, erlang_c, first_present, fleet_search, floor,
                   ln, maximum, min_present, minimum, sum_present, where)
from .graph import ALL, NA, comparison, inp, quantity, text_input

# Unit factors: literals that carry a unit so that the pint check sees them.
FLOP_PER_MAC = Const(2, "FLOP")                 # one multiply-add = 2 FLOPs
FLOP_PER_PARAM_TOKEN = Const(2, "FLOP/token")   # forward pass: ~2 FLOPs per parameter per token
PASS_FLOP_PER_PARAM_TOKEN = Const(4, "FLOP/token")   # forward (2) + activation gradients (2), every parameter
WEIGHT_GRAD_FLOP_PER_PARAM_TOKEN = Const(2, "FLOP/token")  # weight gradients, trained parameters only
TOKEN = Const(1, "token")
REQUEST = Const(1, "request")
PER_MILLION = Const(1e6, "token/Mtoken")        # USD/token -> USD per million tokens
MONTH = Const(2629800, "s/month")               # one month = 1/12 of 365.25 days
HOST_COPIES = 3                                 # A in, B in, C out
REQUEST_COPIES = 2                              # input in, output out
KV_TENSORS = 2                                  # keys and values
NO_PRICE = "no price (hourly price or purchase): cost not computed"

def roofline_time(compute, memory):
    """max(compute time, memory time); without a bandwidth the memory term is left out (and warned
    about), but without a rate there is no time at all: a missing rate never looks infinitely fast."""
    return compute if isinstance(memory, Missing) else maximum(compute, memory)


# -- inputs ---------------------------------------------------------------------------------
# Each input names the scenario field it is read from (device=, model=, workload=; "{p}" is the
# workload's precision; a workload field wins over the model's), whether it is an assumption a
# sensitivity analysis may move (structure and choices are not), and whether it is a fraction.
inp("compute_rate", "FLOP/s", "peak dense rate at the workload's precision", device="compute.{p}")
inp("delivered_given", "FLOP/s", "delivered rate at the workload's precision, as given", device="delivered.{p}")
inp("efficiency", "", "delivered / peak where no delivered rate is given", device="efficiency", fraction=True)
inp("memory", "byte", "device memory capacity", device="memory")
inp("memory_bandwidth", "byte/s", "device memory bandwidth", device="memory_bandwidth")
inp("link_bandwidth", "byte/s", "host link bandwidth per direction", device="link.bandwidth")
inp("copy_overhead", "s", "fixed time per copy over the link", device="link.copy_overhead")
inp("launch_overhead", "s", "fixed time to launch a kernel", device="link.launch_overhead")
inp("matrix_unit", "", "matrix unit tile edge", device="matrix_unit", assumption=False)
inp("price", "USD/s", "rental price per device", device="price")
inp("cores", "", "CPU cores", device="cpu.cores", assumption=False)
inp("fma_units", "", "vector FMA units per core", device="cpu.fma_units", assumption=False)
inp("vector_width", "byte", "vector register width", device="cpu.vector_width", assumption=False)
inp("clock", "1/s", "CPU clock", device="cpu.clock")
inp("bandwidth_efficiency", "", "delivered / peak memory bandwidth", device="bandwidth_efficiency", fraction=True)
inp("power", "W", "power draw of the device", device="power")
inp("reserved_discount", "", "committed-use discount on the hourly price", device="costs.reserved_discount",
    fraction=True)
inp("purchase", "USD", "purchase price per device", device="costs.purchase")
inp("amortisation", "s", "period over which the purchase is written off", device="costs.amortisation")
inp("electricity", "USD/J", "electricity price", device="costs.electricity")
inp("pue", "", "power usage effectiveness of the data centre", device="costs.pue")
inp("hosting", "USD/s", "hosting cost per device", device="costs.hosting")
inp("parameters", "", "model parameters", model="parameters", workload="parameters")
inp("active_parameters", "", "parameters used per token (mixture-of-experts)", model="active_parameters")
inp("layers", "", "transformer layers", model="layers", assumption=False)
inp("kv_heads", "", "key/value heads", model="kv_heads", assumption=False)
inp("head_dim", "", "dimension per head", model="head_dim", assumption=False)
inp("kv_lora_rank", "", "latent KV rank (multi-head latent attention)", model="kv_lora_rank", assumption=False)
inp("qk_rope_head_dim", "", "decoupled RoPE key dimension (multi-head latent attention)", model="qk_rope_head_dim",
    assumption=False)
inp("m", "", "rows of A and C", workload="m")
inp("n", "", "columns of B and C", workload="n")
inp("k", "", "inner dimension", workload="k")
inp("batch", "", "sequences decoded together", workload="batch")
inp("input_tokens", "token", "prompt tokens per request", workload="input_tokens")
inp("output_tokens", "token", "generated tokens per request", workload="output_tokens")
inp("tokens", "token", "tokens per request (forward) or training tokens (train)", workload="tokens")
inp("peak_traffic", "request/s", "peak arrival rate", workload="traffic.peak")
inp("average_traffic", "request/s", "average arrival rate", workload="traffic.average")
inp("utilisation", "", "average busy fraction of the devices", workload="traffic.utilisation", fraction=True)
inp("max_utilisation", "", "highest planned utilisation at the peak", workload="traffic.max_utilisation",
    fraction=True)
inp("redundancy", "", "extra replicas beyond the peak's need", workload="traffic.redundancy", assumption=False)
inp("per_token_target", "s", "per-token time target (p95)", workload="targets.per_token_p95")
inp("ttft_target", "s", "time to first token target (p95)", workload="targets.ttft_p95")
inp("latency_target", "s", "request latency target (p95)", workload="targets.latency_p95")
inp("job_items", "", "items in the bulk job", workload="batch_job.items")
inp("job_tokens", "token", "tokens per item of the bulk job", workload="batch_job.tokens")
inp("trainable", "", "trainable share of the parameters (LoRA)", workload="trainable", fraction=True)
inp("api_output_price", "USD/token", "hosted API price per output token", workload="api.output_price")
inp("api_input_price", "USD/token", "hosted API price per input token", workload="api.input_price")
# `devices` of a workload: the replica's devices when serving, the devices used when training (kinds.py).
inp("train_devices", "", "devices used for training", assumption=False)
inp("replica_devices", "", "devices serving one replica together (tensor parallel)", assumption=False)
# Values that follow from a choice (precision, optimizer).
inp("bytes_per_value", "byte", "bytes per value at the workload's precision", assumption=False)
inp("kv_bytes_per_value", "byte", "bytes per KV cache value", assumption=False)
inp("state_bytes_per_parameter", "byte", "training state bytes per trainable parameter", assumption=False)
# Benchmark records, and a record's tie to the scenario's prediction of it.
inp("measured_throughput", "token/s", "measured output tokens per second")
inp("measured_price", "USD/s", "price per device-hour as recorded")
inp("prediction", "token/s", "the scenario's prediction for the recorded configuration", assumption=False)
inp("efficiency_now", "", "the device's compute efficiency in the scenario", fraction=True)
inp("bandwidth_efficiency_now", "", "the device's bandwidth efficiency in the scenario", fraction=True)
# Text inputs: choices the definitions branch on.
text_input("precision", "numeric precision of the workload")
text_input("operands", "where a matrix product's operands live: host or device")
text_input("method", "training method: full or lora")
text_input("device_kind", "device class: cpu, gpu, tpu, npu or accelerator")
text_input("deployment", "where the device can be had: cloud, on-prem, edge")

# -- device ---------------------------------------------------------------------------------
@quantity(ALL, "cpu_peak_rate", "FLOP/s",
          "CPU peak from micro-architecture: cores × FMA units × lanes × 2 FLOP × clock", display="GFLOP/s",
          label="CPU peak rate")
def cpu_peak_rate(q):
    if q.text("precision") not in ("fp32", "fp64"):
        return NA
    lanes = q.vector_width / q.bytes_per_value
    return q.cores * q.fma_units * lanes * FLOP_PER_MAC * q.clock


@quantity(ALL, "peak_rate", "FLOP/s", "peak dense rate at the workload's precision", display="TFLOP/s",
          label="Peak rate")
def peak_rate(q):
    return first_present(q.compute_rate, q.cpu_peak_rate)


@quantity(ALL, "delivered_rate", "FLOP/s", "rate the workload gets: as given, else peak × efficiency",
          display="TFLOP/s", warn="the device has no rate at this precision: times and rates not computed",
          warn_on=("compute_rate", "delivered_given", "cores", "fma_units", "vector_width", "clock"),
          label="Delivered rate")
def delivered_rate(q):
    return first_present(q.delivered_given, q.peak_rate * q.efficiency)


def available(where: str):
    """Whether the device can be had `where` (a fact of its `deployment` list, not a formula)."""
    def fn(q):
        given = q.text("deployment")
        return NA if given is None else Const(where in given.split(","))
    return fn


for _where in ("cloud", "on-prem", "edge"):
    _id = f"available_{_where.replace('-', '_')}"
    quantity(ALL, _id, "", f"the device can be had {_where} (its deployment list)",
             label=f"Available {_where}", type="check")(available(_where))


@quantity(ALL, "delivered_ridge_point", "FLOP/byte",
          "intensity above which the workload is compute-bound at the delivered rates: "
          "delivered rate / delivered bandwidth", label="Ridge point at the delivered rates")
def delivered_ridge_point(q):
    return q.delivered_rate / q.delivered_bandwidth


@quantity(ALL, "ridge_point", "FLOP/byte", "intensity above which the device is compute-bound: peak / bandwidth",
          label="Ridge point")
def ridge_point(q):
    return q.peak_rate / q.memory_bandwidth


@quantity(ALL, "delivered_bandwidth", "byte/s", "memory bandwidth the workload gets: bandwidth × bandwidth efficiency",
          display="TB/s", label="Delivered memory bandwidth")
def delivered_bandwidth(q):
    return q.memory_bandwidth * q.bandwidth_efficiency


@quantity(ALL, "rent_rate", "USD/s", "rental cost per device: hourly price × (1 − committed-use discount)",
          display="USD/hour", label="Rental cost per device")
def rent_rate(q):
    return q.price * (1 - q.reserved_discount) if q.has("reserved_discount") else q.price


@quantity(ALL, "own_rate", "USD/s",
          "on-premises cost per device: purchase / amortisation + power × PUE × electricity + hosting",
          display="USD/hour", label="Owned cost per device")
def own_rate(q):
    return sum_present(q.purchase / q.amortisation, q.power * q.pue * q.electricity, q.hosting) \
        if q.has("purchase") else q.purchase


@quantity(ALL, "device_rate", "USD/s",
          "cost per device used for the totals: the cheaper of renting (with any commitment) and owning",
          display="USD/hour", label="Cost per device")
def device_rate(q):
    return min_present(q.rent_rate, q.own_rate)


@quantity(ALL, "breakeven_utilisation", "",
          "owning beats renting on demand (paying the hourly price only for busy hours) above this "
          "utilisation: own cost / hourly price", display="%", label="Utilisation where owning beats renting")
def breakeven_utilisation(q):
    return q.own_rate / q.price


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


# -- generate (LLM serving) -----------------------------------------------------------------
def used_parameters(q):
    """Parameters that do work per token: active ones for mixture-of-experts."""
    return first_present(q.active_parameters, q.parameters)


@quantity("generate", "weights_bytes", "byte", "weights: parameters × bytes per value", display="GB", label="Weights")
def gen_weights(q):
    return q.parameters * q.bytes_per_value


@quantity("generate", "kv_bytes_per_token", "byte/token",
          "KV cache per token: 2 × layers × kv_heads × head_dim × KV bytes (latent rank for MLA)",
          display="kB/token", warn="the model has no architecture (layers, kv_heads, head_dim): KV cache not counted",
          warn_on=("layers", "kv_heads", "head_dim"), label="KV cache per token")
def gen_kv_per_token(q):
    if q.has("kv_lora_rank"):
        width = q.kv_lora_rank + q.qk_rope_head_dim
        return q.layers * width * q.kv_bytes_per_value / TOKEN
    return KV_TENSORS * q.layers * q.kv_heads * q.head_dim * q.kv_bytes_per_value / TOKEN


@quantity("generate", "context_tokens", "token", "tokens held per sequence: input + output",
          label="Context per sequence")
def gen_context(q):
    return q.input_tokens + q.output_tokens


@quantity("generate", "kv_cache_bytes", "byte", "KV cache of the batch: batch × context × KV per token", display="GB",
          label="KV cache for the batch")
def gen_kv_cache(q):
    return q.batch * q.context_tokens * q.kv_bytes_per_token


@quantity("generate", "memory_required", "byte", "weights + KV cache", display="GB", label="Memory required")
def gen_memory_required(q):
    return sum_present(q.weights_bytes, q.kv_cache_bytes)


@quantity("generate", "replica_memory", "byte", "memory of one replica: devices × device memory", display="GB",
          label="Memory available")
def gen_replica_memory(q):
    return q.replica_devices * q.memory


@quantity("generate", "fits", "", "memory required ≤ memory of the replica", label="Fits in memory",
          type="check", compares=("memory_required", "replica_memory"), requirement=True)
def gen_fits(q):
    return q.memory_required <= q.replica_memory


@quantity("generate", "headroom", "byte", "replica memory − memory required", display="GB", label="Memory headroom")
def gen_headroom(q):
    return q.replica_memory - q.memory_required


@quantity("generate", "max_batch", "", "largest batch whose KV cache fits beside the weights", maximise=True,
          label="Largest batch that fits", count=True)
def gen_max_batch(q):
    return maximum(0, floor((q.replica_memory - q.weights_bytes) / (q.context_tokens * q.kv_bytes_per_token)))


@quantity("generate", "devices_to_fit", "", "devices needed to hold the weights and the KV cache",
          label="Devices to fit", count=True)
def gen_devices_to_fit(q):
    return ceil(q.memory_required / q.memory)


@quantity("generate", "step_tokens", "token", "tokens produced per decode step: one per sequence",
          label="Tokens per step")
def gen_step_tokens(q):
    return q.batch * TOKEN


@quantity("generate", "step_flops", "FLOP", "decode step: 2 × parameters used × tokens of the step", display="GFLOP",
          label="Work per decode step")
def gen_step_flops(q):
    return FLOP_PER_PARAM_TOKEN * used_parameters(q) * q.step_tokens


@quantity("generate", "kv_read_per_sequence", "byte",
          "KV cache one sequence reads per step at its average position: (input + output / 2) × KV per token",
          display="MB", label="KV cache read per sequence and step")
def gen_kv_read_per_sequence(q):
    return (q.input_tokens + q.output_tokens / 2) * q.kv_bytes_per_token


@quantity("generate", "kv_read_bytes", "byte", "KV cache read per step: batch × KV read per sequence",
          display="GB", label="KV cache read per step")
def gen_kv_read(q):
    return q.batch * q.kv_read_per_sequence


@quantity("generate", "step_bytes", "byte", "bytes read per decode step: weights + KV reads", display="GB",
          label="Bytes read per decode step")
def gen_step_bytes(q):
    return sum_present(q.weights_bytes, q.kv_read_bytes)


@quantity("generate", "intensity", "FLOP/byte", "decode step FLOPs per byte read", label="Arithmetic intensity")
def gen_intensity(q):
    return q.step_flops / q.step_bytes


@quantity("generate", "attainable_rate", "FLOP/s", "roofline of the decode step: min(peak, bandwidth × intensity)",
          display="TFLOP/s", label="Attainable rate (roofline)")
def gen_attainable(q):
    return minimum(q.peak_rate, q.memory_bandwidth * q.intensity)


@quantity("generate", "step_memory_time", "s", "decode step bytes at the memory bandwidth", display="ms",
          warn="no memory bandwidth: the memory-bound decode time is not counted",
          warn_on=("memory_bandwidth",), label="Step time, memory")
def gen_step_memory_time(q):
    return q.step_bytes / (q.delivered_bandwidth * q.replica_devices)


@quantity("generate", "step_compute_time", "s", "decode step FLOPs at the delivered rate", display="ms",
          label="Step time, compute")
def gen_step_compute_time(q):
    return q.step_flops / (q.delivered_rate * q.replica_devices)


@quantity("generate", "step_time", "s", "decode step: max(memory time, compute time)", display="ms",
          label="Per-token time (decode step)")
def gen_step_time(q):
    return roofline_time(q.step_compute_time, q.step_memory_time)


@quantity("generate", "bound", "", "which roof limits the decode step", label="Bound by", type="label")
def gen_bound(q):
    return where(q.step_memory_time >= q.step_compute_time, "memory", "compute")


@quantity("generate", "tokens_per_s_per_user", "token/s", "what one user sees: 1 token per step", display="token/s",
          maximise=True, label="Tokens/s per user")
def gen_tokens_per_user(q):
    return TOKEN / q.step_time


@quantity("generate", "tokens_per_s", "token/s", "aggregate output rate of one replica: batch tokens per step",
          display="token/s", maximise=True, label="Tokens/s per replica, all users")
def gen_tokens_per_s(q):
    return q.step_tokens / q.step_time


@quantity("generate", "compute_bound_batch", "",
          "batch at which the decode step turns compute-bound (memory time = compute time)",
          label="Batch where decode turns compute-bound")
def gen_compute_bound_batch(q):
    # The replica's device count cancels: both sides of memory time = compute time divide by it.
    per_seq_flops_time = FLOP_PER_PARAM_TOKEN * used_parameters(q) * TOKEN / q.delivered_rate
    if not q.has("kv_bytes_per_token"):
        return q.weights_bytes / q.delivered_bandwidth / per_seq_flops_time
    per_seq_kv_time = q.kv_read_per_sequence / q.delivered_bandwidth
    gain = per_seq_flops_time - per_seq_kv_time
    return where(gain > 0, q.weights_bytes / q.delivered_bandwidth / gain, nothing())   # none: never


@quantity("generate", "best_batch", "",
          "largest batch (most tokens/s) whose decode step meets the per-token target and whose KV cache fits",
          label="Best batch within the per-token target", count=True)
def gen_best_batch(q):
    budget = q.per_token_target * q.replica_devices
    by_compute = budget * q.delivered_rate / (FLOP_PER_PARAM_TOKEN * used_parameters(q) * TOKEN)
    if not q.has("kv_bytes_per_token"):
        fits_weights = q.weights_bytes <= budget * q.delivered_bandwidth
        return where(fits_weights, floor(by_compute), 0)
    by_bandwidth = (budget * q.delivered_bandwidth - q.weights_bytes) / q.kv_read_per_sequence
    return maximum(0, floor(minimum(q.max_batch, by_bandwidth, by_compute)))


@quantity("generate", "best_batch_tokens_per_s", "token/s", "aggregate tokens/s at the best batch",
          display="token/s", maximise=True, label="Tokens/s at the best batch")
def gen_best_batch_rate(q):
    bytes_ = sum_present(q.weights_bytes, q.best_batch * q.kv_read_per_sequence)
    devices = q.replica_devices
    step = maximum(bytes_ / (q.delivered_bandwidth * devices),
                   FLOP_PER_PARAM_TOKEN * used_parameters(q) * q.best_batch * TOKEN / (q.delivered_rate * devices))
    return q.best_batch * TOKEN / step


@quantity("generate", "prefill_flops", "FLOP", "prompt processing: 2 × parameters used × input tokens",
          display="TFLOP", label="Prefill work")
def gen_prefill_flops(q):
    return FLOP_PER_PARAM_TOKEN * used_parameters(q) * q.input_tokens


@quantity("generate", "prefill_time", "s", "prefill: max(FLOPs at the delivered rate, weights at the bandwidth)",
          display="ms", label="Prefill time")
def gen_prefill_time(q):
    devices = q.replica_devices
    return roofline_time(q.prefill_flops / (q.delivered_rate * devices),
                         q.weights_bytes / (q.delivered_bandwidth * devices))


@quantity("generate", "ttft", "s", "time to first token: the prefill (no queueing)", display="ms",
          label="Time to first token")
def gen_ttft(q):
    return q.prefill_time


@quantity("generate", "request_latency", "s", "time to first token + output tokens × step time", display="s",
          label="Request latency")
def gen_request_latency(q):
    return q.ttft + q.output_tokens / TOKEN * q.step_time


@quantity("generate", "requests_per_s", "request/s", "requests one replica completes per second at this batch",
          display="request/s", maximise=True, label="Requests/s per replica")
def gen_requests_per_s(q):
    return q.tokens_per_s / q.output_tokens * REQUEST


@quantity("generate", "slots", "", "requests one replica serves at once: the batch",
          label="Requests served at once", count=True)
def gen_slots(q):
    return q.batch


TRAFFIC = ("generate", "forward")


@quantity(TRAFFIC, "servers_for_peak", "", "replicas for the peak at the maximum utilisation (no redundancy)",
          label="Replicas for the peak at the maximum utilisation", count=True)
def servers_for_peak(q):
    return ceil(q.peak_traffic / (q.requests_per_s * q.max_utilisation))


@quantity(TRAFFIC, "offered_load", "", "Erlang load at the peak: peak × slots / requests per second per replica",
          label="Offered load (Erlang)")
def offered_load(q):
    return q.peak_traffic * q.slots / q.requests_per_s


@quantity(TRAFFIC, "servers", "",
          "replicas serving the peak (without redundancy): the fewest at the maximum utilisation whose p95 wait "
          "still fits the latency target", label="Replicas for the peak", count=True)
def servers(q):
    if not q.has("target_slack"):
        return q.servers_for_peak
    slack = q.target_slack
    extra = fleet_search(q.servers_for_peak, q.slots, q.offered_load,
                         slack * q.requests_per_s / REQUEST, slack * q.peak_traffic / REQUEST)
    return where(slack > 0, q.servers_for_peak + extra, q.servers_for_peak)


@quantity(TRAFFIC, "replicas", "", "fleet for the peak: servers + redundancy (N+k)", label="Replicas", count=True)
def replicas(q):
    return q.servers + q.redundancy


@quantity("generate", "fleet_devices", "", "devices to buy or rent: replicas × devices per replica",
          label="Devices in the fleet", count=True)
def gen_fleet_devices(q):
    return q.replicas * q.replica_devices


@quantity("forward", "fleet_devices", "", "devices to buy or rent: one per replica",
          label="Devices in the fleet", count=True)
def fw_fleet_devices(q):
    return q.replicas


@quantity(TRAFFIC, "fleet_purchase", "USD", "capital to buy the fleet: devices × purchase price", display="USD",
          label="Purchase of the fleet")
def fleet_purchase(q):
    return q.fleet_devices * q.purchase


@quantity(TRAFFIC, "utilisation_at_peak", "", "busy share of the servers (without redundancy) at the peak",
          display="%", label="Utilisation at the peak")
def utilisation_at_peak(q):
    return q.peak_traffic / (q.servers * q.requests_per_s)


@quantity(TRAFFIC, "wait_probability", "", "chance that a request waits at the peak (Erlang C, M/M/c)",
          display="%", label="Chance a request waits")
def wait_probability(q):
    return erlang_c(q.servers * q.slots, q.offered_load)


@quantity(TRAFFIC, "queue_wait_p95", "s", "95th percentile of the wait for a slot at the peak (M/M/c)",
          display="ms", label="Queue wait (p95)")
def queue_wait_p95(q):
    spare = q.servers * q.requests_per_s - q.peak_traffic
    return maximum(0, ln(q.wait_probability / TAIL + TINY)) * REQUEST / spare


@quantity("generate", "ttft_p95", "s", "time to first token at the p95 of the peak: prefill + queue wait",
          display="ms", label="Time to first token (p95)")
def gen_ttft_p95(q):
    return q.ttft + q.queue_wait_p95


@quantity("generate", "response_p95", "s", "whole answer at the p95 of the peak: request latency + queue wait",
          display="s", label="Response time (p95)")
def gen_response_p95(q):
    return q.request_latency + q.queue_wait_p95


@quantity("generate", "meets_per_token", "", "step time ≤ per-token target", label="Meets per-token target",
          type="check", requirement=True)
def gen_meets_per_token(q):
    return q.step_time <= q.per_token_target


@quantity("generate", "meets_ttft", "", "time to first token (with queueing at the peak) ≤ target",
          label="Meets time-to-first-token target", type="check", requirement=True)
def gen_meets_ttft(q):
    return first_present(q.ttft_p95, q.ttft) <= q.ttft_target


@quantity("generate", "meets_targets", "", "every latency target given is met", label="Meets latency targets",
          type="check", requirement=True)
def gen_meets_targets(q):
    return all_present(q.meets_per_token, q.meets_ttft)


@quantity("generate", "target_slack", "s", "time left for queueing within the time to first token target",
          display="ms", label="Time left for queueing")
def gen_target_slack(q):
    return q.ttft_target - q.ttft


@quantity(TRAFFIC, "average_utilisation", "", "busy share of the whole fleet at the average traffic",
          display="%", label="Average utilisation")
def average_utilisation(q):
    return q.average_traffic / (q.replicas * q.requests_per_s)


def utilisation_basis(q):
    """The busy share that prices idle time: from the average traffic where given, else as stated."""
    return first_present(q.average_utilisation, q.utilisation)


@quantity("generate", "cost_per_million_tokens", "USD/Mtoken",
          "device cost × devices per replica / (tokens per second × utilisation), per million output tokens",
          display="USD/Mtoken", warn=NO_PRICE, warn_on=("price", "purchase"), label="Cost per million output tokens")
def gen_cost_per_million(q):
    return q.device_rate * q.replica_devices / (q.tokens_per_s * utilisation_basis(q)) * PER_MILLION


@quantity("generate", "monthly_cost", "USD/month", "replicas × devices per replica × device cost × one month",
          display="USD/month", label="Monthly cost")
def gen_monthly_cost(q):
    return q.replicas * q.replica_devices * q.device_rate * MONTH


@quantity("generate", "monthly_cost_rent", "USD/month", "the fleet rented: replicas × devices × rental cost",
          display="USD/month", label="Monthly cost, rented")
def gen_monthly_rent(q):
    return q.replicas * q.replica_devices * q.rent_rate * MONTH


@quantity("generate", "monthly_cost_own", "USD/month", "the fleet owned: replicas × devices × on-premises cost",
          display="USD/month", label="Monthly cost, owned")
def gen_monthly_own(q):
    return q.replicas * q.replica_devices * q.own_rate * MONTH


@quantity("generate", "api_cost_per_request", "USD/request",
          "hosted API: output price × output tokens + input price × input tokens", display="USD",
          label="Hosted API per request")
def gen_api_per_request(q):
    return sum_present(q.api_output_price * q.output_tokens, q.api_input_price * q.input_tokens) / REQUEST


@quantity("generate", "api_cost_per_million_tokens", "USD/Mtoken",
          "hosted API per request / output tokens, per million output tokens",
          display="USD/Mtoken", label="Hosted API per million output tokens")
def gen_api_cost(q):
    return q.api_cost_per_request * REQUEST / q.output_tokens * PER_MILLION


@quantity("generate", "api_monthly_cost", "USD/month", "hosted API at the average traffic for one month",
          display="USD/month", label="Hosted API, monthly")
def gen_api_monthly(q):
    return q.average_traffic * q.api_cost_per_request * MONTH


@quantity("generate", "cheaper_than_api", "", "own fleet's cost per million tokens ≤ the API's",
          label="Cheaper than the hosted API", type="check")
def gen_cheaper_than_api(q):
    return q.cost_per_million_tokens <= q.api_cost_per_million_tokens


# -- forward (encoders, embedders, classifiers, edge models) --------------------------------
@quantity("forward", "footprint_bytes", "byte", "weights: parameters × bytes per value", display="MB", label="Weights")
def fw_footprint(q):
    return q.parameters * q.bytes_per_value


@quantity("forward", "fits", "", "footprint ≤ device memory", label="Fits in memory", type="check",
          compares=("footprint_bytes", "memory"), requirement=True)
def fw_fits(q):
    return q.footprint_bytes <= q.memory


@quantity("forward", "flops_per_request", "FLOP", "2 × parameters × tokens", display="GFLOP",
          label="Work per request")
def fw_flops(q):
    return FLOP_PER_PARAM_TOKEN * q.parameters * q.tokens


@quantity("forward", "compute_time", "s", "FLOPs at the delivered rate", display="ms", label="Compute time")
def fw_compute_time(q):
    return q.flops_per_request / q.delivered_rate


@quantity("forward", "memory_time", "s", "weights streamed once at the memory bandwidth", display="ms",
          label="Memory time")
def fw_memory_time(q):
    return q.footprint_bytes / q.delivered_bandwidth


@quantity("forward", "overhead_time", "s", "over a host link: 2 copies × copy overhead + launch overhead",
          display="us", label="Copy and launch overheads")
def fw_overhead(q):
    if not q.has("link_bandwidth"):
        return NA
    return sum_present(REQUEST_COPIES * q.copy_overhead, q.launch_overhead)


@quantity("forward", "latency", "s", "max(compute time, memory time) + link overheads", display="ms", label="Latency")
def fw_latency(q):
    return sum_present(roofline_time(q.compute_time, q.memory_time), q.overhead_time)


@quantity("forward", "requests_per_s", "request/s", "requests one device serves per second, one at a time",
          display="request/s", maximise=True, label="Requests/s per replica")
def fw_requests_per_s(q):
    return REQUEST / q.latency


@quantity("forward", "slots", "", "requests one device serves at once", label="Requests served at once", count=True)
def fw_slots(q):
    return 1


@quantity("forward", "response_p95", "s", "latency + queue wait at the p95 of the peak", display="ms",
          label="Response time (p95)")
def fw_response_p95(q):
    return q.latency + q.queue_wait_p95


@quantity("forward", "devices_needed", "", "devices for the peak (one replica is one device)",
          label="Devices for the peak", count=True)
def fw_devices_needed(q):
    return q.replicas


@quantity("forward", "monthly_cost", "USD/month", "devices needed × device cost × one month", display="USD/month",
          warn=NO_PRICE, warn_on=("price", "purchase"), label="Monthly cost")
def fw_monthly_cost(q):
    return q.devices_needed * q.device_rate * MONTH


@quantity("forward", "meets_latency", "", "latency (with queueing at the peak) ≤ target",
          label="Meets latency target", type="check", requirement=True)
def fw_meets_latency(q):
    return first_present(q.response_p95, q.latency) <= q.latency_target


@quantity("forward", "meets_targets", "", "every latency target given is met", label="Meets latency targets",
          type="check", requirement=True)
def fw_meets_targets(q):
    return q.meets_latency


@quantity("forward", "target_slack", "s", "time left for queueing within the latency target", display="ms",
          label="Time left for queueing")
def fw_target_slack(q):
    return q.latency_target - q.latency


@quantity("forward", "cost_per_million_requests", "USD",
          "device cost / (requests per second × utilisation) × one million requests", display="USD",
          label="Cost per million requests")
def fw_cost_per_million(q):
    return q.device_rate / (q.requests_per_s * utilisation_basis(q)) * REQUEST * 1e6


@quantity("forward", "item_time", "s", "bulk job: one item's FLOPs at the delivered rate", display="ms",
          label="Bulk job, time per item")
def fw_item_time(q):
    return FLOP_PER_PARAM_TOKEN * q.parameters * q.job_tokens / q.delivered_rate


@quantity("forward", "batch_job_time", "s", "bulk job: items × item time", display="h", label="Bulk job duration")
def fw_batch_job_time(q):
    return q.job_items * q.item_time


@quantity("forward", "batch_job_cost", "USD", "bulk job: time × price", display="USD", label="Bulk job cost")
def fw_batch_job_cost(q):
    return q.batch_job_time * q.device_rate


@comparison(("forward",), "speedup_vs", "", "latency on the other device / latency here", base="latency")
def fw_speedup(this, other):
    return other / this


# -- train ----------------------------------------------------------------------------------
@quantity("train", "trainable_parameters", "", "parameters trained: all (full) or the LoRA share",
          label="Trainable parameters")
def tr_trainable(q):
    return q.parameters * q.trainable if q.text("method") == "lora" else q.parameters


@quantity("train", "frozen_bytes", "byte", "LoRA: frozen base weights at the precision", display="GB",
          label="Frozen weights")
def tr_frozen(q):
    return q.parameters * q.bytes_per_value if q.text("method") == "lora" else NA


@quantity("train", "state_bytes", "byte",
          "training state: trainable parameters × state bytes per parameter (+ frozen weights)", display="GB",
          label="Training state")
def tr_state(q):
    return sum_present(q.frozen_bytes, q.trainable_parameters * q.state_bytes_per_parameter)


@quantity("train", "fits_one_device", "", "state ≤ one device's memory (activations not counted)",
          label="Fits on one device", type="check", compares=("state_bytes", "memory"))
def tr_fits_one_device(q):
    return q.state_bytes <= q.memory


@quantity("train", "devices_to_fit", "", "devices needed when the state is sharded", label="Devices to fit", count=True)
def tr_devices_to_fit(q):
    return ceil(q.state_bytes / q.memory)


@quantity("train", "devices", "", "devices used: as given, else the fewest that hold the state",
          label="Devices used", count=True)
def tr_devices(q):
    return first_present(q.train_devices, q.devices_to_fit)


@quantity("train", "train_memory", "byte", "memory of the devices used: devices × device memory", display="GB",
          label="Memory of the devices used")
def tr_memory(q):
    return q.memory * q.devices


@quantity("train", "fits", "", "state, sharded evenly over the devices used, ≤ their memory",
          label="Fits in memory (sharded)", type="check", compares=("state_bytes", "train_memory"), requirement=True)
def tr_fits(q):
    return q.state_bytes <= q.train_memory


@quantity("train", "flops", "FLOP",
          "(4 × parameters + 2 × trainable parameters) × tokens: 6PT for full fine-tuning, ~4PT for LoRA",
          display="PFLOP", label="Work")
def tr_flops(q):
    return (PASS_FLOP_PER_PARAM_TOKEN * q.parameters
            + WEIGHT_GRAD_FLOP_PER_PARAM_TOKEN * q.trainable_parameters) * q.tokens


@quantity("train", "duration", "s", "FLOPs / (delivered rate × devices)", display="h", label="Training time")
def tr_duration(q):
    return q.flops / (q.delivered_rate * q.devices)


@quantity("train", "cost", "USD", "duration × devices × device cost", display="USD", warn=NO_PRICE,
          warn_on=("price", "purchase"), label="Training cost")
def tr_cost(q):
    return q.duration * q.devices * q.device_rate


# -- benchmark records ----------------------------------------------------------------------
@quantity("benchmark", "cost_per_million_tokens", "USD/Mtoken",
          "recorded price / measured output tokens per second, per million tokens", display="USD/Mtoken",
          label="Cost per million output tokens")
def bm_cost(q):
    return q.measured_price / q.measured_throughput * PER_MILLION


@quantity("benchmark", "effective_throughput", "token/s", "measured throughput × utilisation", display="token/s",
          label="Effective throughput")
def bm_effective(q):
    return q.measured_throughput * q.utilisation


@quantity("benchmark", "cost_per_million_tokens_at_utilisation", "USD/Mtoken",
          "recorded price / (measured throughput × utilisation), per million tokens", display="USD/Mtoken",
          label="Cost per million output tokens at the utilisation")
def bm_cost_at_utilisation(q):
    return q.measured_price / q.effective_throughput * PER_MILLION


@quantity("benchmark", "predicted_tokens_per_s", "token/s", "the scenario's prediction for the same configuration",
          display="token/s", label="Predicted tokens/s")
def bm_predicted(q):
    return q.prediction


@quantity("benchmark", "measured_vs_predicted", "", "measured / predicted throughput", display="%",
          label="Measured / predicted")
def bm_ratio(q):
    return q.measured_throughput / q.predicted_tokens_per_s


@quantity("benchmark", "calibrated_efficiency", "",
          "compute efficiency that makes the prediction match the measurement (when compute-bound)", display="%",
          label="Calibrated compute efficiency")
def bm_calibrated_efficiency(q):
    return q.efficiency_now * q.measured_vs_predicted


@quantity("benchmark", "calibrated_bandwidth_efficiency", "",
          "bandwidth efficiency that makes the prediction match the measurement (when memory-bound)", display="%",
          label="Calibrated bandwidth efficiency")
def bm_calibrated_bandwidth(q):
    return q.bandwidth_efficiency_now * q.measured_vs_predicted
