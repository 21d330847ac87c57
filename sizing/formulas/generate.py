"""LLM serving: memory of a replica, the decode step, the prefill, and the rate a replica sustains.

The batching model is the static batch benchmark tables measure: a replica takes `batch` requests,
prefills their prompts, then decodes `output_tokens` steps for all of them together; the output rate
counts the prefill time. Continuous batching interleaves the prefills with the decode steps, which
spends the same device time, so the sustained rate is the same to first order (the per-user rate
dips while a prompt is prefilled).
"""

from .common import (EP_ALL_TO_ALLS, FLOP_PER_PARAM_TOKEN, KV_TENSORS, NO_FABRIC, PREFILL_CHUNK, REQUEST, TOKEN,
                     TP_ALL_REDUCES, all_reduce_parts, all_to_all_parts, all_weights_read, attention_flops, embedding, plus,
                     point_to_point_parts, roofline_time, used_parameters, weights_read, without_fabric)
from .expr import ceil, first_present, floor, maximum, minimum, Missing, nothing, sum_present, where
from .graph import NA, quantity

# -- memory -----------------------------------------------------------------------------------
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


@quantity("generate", "workspace_bytes", "byte",
          "activation workspace of the largest prefill chunk: min(batch × input, 8192 tokens) × "
          "(2 × hidden + feed-forward size) × activation bytes", display="GB", label="Activation workspace")
def gen_workspace(q):
    chunk = minimum(q.batch * q.input_tokens, PREFILL_CHUNK)
    return chunk / TOKEN * (2 * q.hidden + q.intermediate) * q.activation_bytes


@quantity("generate", "memory_required", "byte", "weights + KV cache + activation workspace", display="GB",
          label="Memory required")
def gen_memory_required(q):
    return sum_present(q.weights_bytes, q.kv_cache_bytes, q.workspace_bytes)


@quantity(("generate", "forward"), "replica_memory", "byte",
          "memory of one replica the runtime can use: devices × device memory × (1 − reserve)", display="GB",
          label="Memory available")
def replica_memory(q):
    whole = q.replica_devices * q.memory
    return whole * (1 - q.memory_reserve) if q.has("memory_reserve") else whole


@quantity("generate", "fits", "", "memory required ≤ memory of the replica", label="Fits in memory",
          type="check", compares=("memory_required", "replica_memory"), requirement=True)
def gen_fits(q):
    return q.memory_required <= q.replica_memory


@quantity("generate", "headroom", "byte", "replica memory − memory required", display="GB", label="Memory headroom")
def gen_headroom(q):
    return q.replica_memory - q.memory_required


@quantity("generate", "max_batch", "",
          "largest batch whose KV cache fits beside the weights and the workspace of a full prefill chunk",
          maximise=True, label="Largest batch that fits", count=True)
def gen_max_batch(q):
    full_chunk = PREFILL_CHUNK / TOKEN * (2 * q.hidden + q.intermediate) * q.activation_bytes
    room = q.replica_memory - sum_present(q.weights_bytes, full_chunk)
    return maximum(0, floor(room / (q.context_tokens * q.kv_bytes_per_token)))


@quantity("generate", "devices_to_fit", "", "devices needed to hold the weights, the KV cache and the workspace",
          label="Devices to fit", count=True)
def gen_devices_to_fit(q):
    usable = q.memory * (1 - q.memory_reserve) if q.has("memory_reserve") else q.memory
    return ceil(q.memory_required / usable)


# -- how the replica's devices split the model ------------------------------------------------
@quantity("generate", "tensor_parallel", "", "tensor-parallel ways: as given, else devices / pipeline stages (at "
          "least 1)", label="Tensor-parallel ways", count=True)
def gen_tensor(q):
    return first_present(q.tensor_given, maximum(1, q.replica_devices / q.pipeline))


@quantity("generate", "expert_ways", "", "expert-parallel ways: as given, at most the replica's devices",
          label="Expert-parallel ways", count=True)
def gen_expert_ways(q):
    if not q.has("experts_per_token"):
        return NA
    return minimum(q.expert_parallel, q.replica_devices)


# -- the decode step --------------------------------------------------------------------------
@quantity("generate", "arithmetic_parameters", "",
          "parameters doing arithmetic per token: parameters used (active ones for mixture-of-experts) − the input "
          "embedding (vocabulary × hidden), which is a lookup", label="Parameters doing arithmetic")
def gen_arithmetic_parameters(q):
    table = embedding(q)
    return used_parameters(q) if isinstance(table, Missing) else used_parameters(q) - table



@quantity("generate", "step_tokens", "token", "tokens produced per decode step: one per sequence",
          label="Tokens per step")
def gen_step_tokens(q):
    return q.batch * TOKEN


@quantity("generate", "kv_position", "token", "average position decoded at: input + output / 2",
          label="Average decode position")
def gen_kv_position(q):
    return q.input_tokens + q.output_tokens / 2


def decode_flops(q, tokens):
    """A decode step's work over `tokens` tokens (one per sequence): 2 × parameters doing arithmetic per token +
    attention at the average position."""
    return sum_present(FLOP_PER_PARAM_TOKEN * q.arithmetic_parameters * tokens,
                       attention_flops(q, tokens, q.kv_position))


@quantity("generate", "step_flops", "FLOP",
          "decode step: 2 × parameters used × tokens + attention (4 × layers × heads × head_dim × position per "
          "token)", display="GFLOP", label="Work per decode step")
def gen_step_flops(q):
    return decode_flops(q, q.step_tokens)


@quantity("generate", "kv_read_per_sequence", "byte",
          "KV cache one sequence reads per step at its average position: position × KV per token",
          display="MB", label="KV cache read per sequence and step")
def gen_kv_read_per_sequence(q):
    return q.kv_position * q.kv_bytes_per_token


@quantity("generate", "kv_read_bytes", "byte", "KV cache read per step: batch × KV read per sequence",
          display="GB", label="KV cache read per step")
def gen_kv_read(q):
    return q.batch * q.kv_read_per_sequence


@quantity("generate", "step_weight_bytes", "byte",
          "weights read per decode step: all dense weights, and for mixture-of-experts the experts the batch "
          "routes to (expected share 1 − (1 − k/E)^batch)", display="GB", label="Weights read per step")
def gen_step_weight_bytes(q):
    return weights_read(q, q.step_tokens)


@quantity("generate", "step_bytes", "byte", "bytes read per decode step: weights read + KV reads", display="GB",
          label="Bytes read per decode step")
def gen_step_bytes(q):
    return sum_present(q.step_weight_bytes, q.kv_read_bytes)


@quantity("generate", "intensity", "FLOP/byte", "decode step FLOPs per byte read", label="Arithmetic intensity")
def gen_intensity(q):
    return q.step_flops / q.step_bytes


@quantity("generate", "attainable_rate", "FLOP/s", "roofline of the decode step: min(peak, bandwidth × intensity)",
          display="TFLOP/s", label="Attainable rate (roofline)")
def gen_attainable(q):
    return minimum(q.peak_rate, q.memory_bandwidth * q.intensity)


@quantity("generate", "step_memory_time", "s", "decode step bytes at the delivered bandwidth of the replica",
          display="ms", warn="no memory bandwidth: the memory-bound decode time is not counted",
          warn_on=("memory_bandwidth",), label="Step time, memory")
def gen_step_memory_time(q):
    return q.step_bytes / (q.delivered_bandwidth * q.replica_devices)


@quantity("generate", "step_compute_time", "s", "decode step FLOPs at the delivered rate of the replica",
          display="ms", label="Step time, compute")
def gen_step_compute_time(q):
    return q.step_flops / (q.delivered_rate * q.replica_devices)


@quantity("generate", "step_overhead_time", "s", "latency floor of a pass: layers × overhead per layer",
          display="ms", label="Step time, fixed overheads")
def gen_step_overhead(q):
    return q.layers * q.layer_overhead


def collectives(q):
    """A pass's collectives as (count per pass, (fixed time, time per byte), bytes per token of the pass):
    tensor-parallel all-reduces (2 per layer; 1 when expert parallelism replaces the MLP's by all-to-alls),
    expert all-to-alls (2 per layer), pipeline sends."""
    token = q.hidden * q.activation_bytes
    moe = q.has("experts_per_token")
    reduces = where(q.expert_ways > 1, TP_ALL_REDUCES - 1, TP_ALL_REDUCES) if moe else TP_ALL_REDUCES
    out = [(reduces * q.layers, all_reduce_parts(q, q.tensor_parallel), token),
           (None, point_to_point_parts(q, q.replica_devices, minimum(q.pipeline, q.replica_devices) - 1), token)]
    if moe:
        out.append((EP_ALL_TO_ALLS * q.layers, all_to_all_parts(q, q.expert_ways), token * q.experts_per_token))
    return out


def times(count, x):
    return x if count is None else count * x


@quantity("generate", "communication_fixed", "s",
          "latency part of a pass's communication: ring all-reduces (2 per layer, tensor parallel; 1 with expert "
          "parallelism) × 2(T−1) × latency, 2 all-to-alls per layer (expert parallel) × (E−1) × latency, a send "
          "per pipeline stage", display="us", warn=NO_FABRIC, warn_on=("interconnect_bandwidth",),
          label="Communication, fixed part")
def gen_communication_fixed(q):
    if (absent := without_fabric(q)) is not None:
        return absent
    return sum_present(*(times(count, fixed) for count, (fixed, _), _ in collectives(q)))


@quantity("generate", "communication_per_token", "s/token",
          "bandwidth part per token of the pass: the same collectives carrying hidden × activation bytes per token "
          "(× experts per token for the all-to-alls)", display="us/token", label="Communication per token")
def gen_communication_per_token(q):
    if (absent := without_fabric(q)) is not None:
        return absent
    return sum_present(*(times(count, per_byte * nbytes) for count, (_, per_byte), nbytes in collectives(q))) / TOKEN


@quantity("generate", "communication_time", "s",
          "decode step between the replica's devices: fixed part + tokens of the step × per-token part",
          display="ms", label="Step time, communication")
def gen_communication(q):
    return q.communication_fixed + q.step_tokens * q.communication_per_token


def pass_communication(q, tokens):
    return q.communication_fixed + tokens * q.communication_per_token


@quantity("generate", "step_time", "s",
          "decode step: max(memory time, compute time) + fixed overheads + communication", display="ms",
          label="Per-token time (decode step)")
def gen_step_time(q):
    return plus(roofline_time(q.step_compute_time, q.step_memory_time), q.step_overhead_time,
                q.communication_time)


@quantity("generate", "bound", "", "which roof limits the decode step", label="Bound by", type="label")
def gen_bound(q):
    return where(q.step_memory_time >= q.step_compute_time, "memory", "compute")


@quantity("generate", "tokens_per_s_per_user", "token/s", "what one user sees while decoding: 1 token per step",
          display="token/s", maximise=True, label="Tokens/s per user")
def gen_tokens_per_user(q):
    return TOKEN / q.step_time


@quantity("generate", "decode_tokens_per_s", "token/s", "decode rate of one replica: batch tokens per step "
          "(no prefill)", display="token/s", label="Decode tokens/s per replica")
def gen_decode_tokens_per_s(q):
    return q.step_tokens / q.step_time


@quantity("generate", "compute_bound_batch", "",
          "batch at which the decode step turns compute-bound (memory time = compute time)",
          label="Batch where decode turns compute-bound")
def gen_compute_bound_batch(q):
    # The replica's device count cancels: both sides of memory time = compute time divide by it.
    per_seq_flops_time = decode_flops(q, TOKEN) / q.delivered_rate
    if not q.has("kv_bytes_per_token"):
        return q.weights_bytes / q.delivered_bandwidth / per_seq_flops_time
    per_seq_kv_time = q.kv_read_per_sequence / q.delivered_bandwidth
    gain = per_seq_flops_time - per_seq_kv_time
    return where(gain > 0, q.weights_bytes / q.delivered_bandwidth / gain, nothing())   # none: never


@quantity("generate", "best_batch", "",
          "largest batch (most tokens/s) whose time between a user's tokens (the decode step and its share of the "
          "batch's prefills, the prefill taken as compute-bound) meets the per-token target and whose KV cache fits",
          label="Best batch within the per-token target", count=True)
def gen_best_batch(q):
    devices = q.replica_devices
    outputs = q.output_tokens / TOKEN
    comm = q.has("communication_per_token")
    # per sequence of the batch: its decode work, and its prefill spread over the answer's tokens
    seq_comm = q.communication_per_token * (TOKEN + q.input_tokens / outputs) if comm else NA
    seq_prefill = q.prefill_flops / (q.delivered_rate * devices) / outputs
    fixed = sum_present(q.step_overhead_time, q.communication_fixed if comm else NA)
    budget = q.per_token_target if isinstance(fixed, Missing) else q.per_token_target - fixed * (1 + 1 / outputs)
    by_compute = budget / sum_present(decode_flops(q, TOKEN) / (q.delivered_rate * devices), seq_prefill, seq_comm)
    weights_time = all_weights_read(q) / (q.delivered_bandwidth * devices)   # every expert: conservative
    if not q.has("kv_bytes_per_token"):
        return where(weights_time <= budget, floor(by_compute), 0)
    by_bandwidth = (budget - weights_time) / sum_present(q.kv_read_per_sequence / (q.delivered_bandwidth * devices),
                                                         seq_prefill, seq_comm)
    return maximum(0, floor(minimum(q.max_batch, by_bandwidth, by_compute)))


@quantity("generate", "best_batch_tokens_per_s", "token/s", "decode tokens/s at the best batch",
          display="token/s", maximise=True, label="Tokens/s at the best batch")
def gen_best_batch_rate(q):
    devices = q.replica_devices
    tokens = q.best_batch * TOKEN
    flops = decode_flops(q, tokens)
    bytes_ = sum_present(weights_read(q, tokens), q.best_batch * q.kv_read_per_sequence)
    step = plus(roofline_time(flops / (q.delivered_rate * devices), bytes_ / (q.delivered_bandwidth * devices)),
                q.step_overhead_time, pass_communication(q, tokens) if q.has("communication_fixed") else NA)
    return tokens / step


# -- prefill ------------------------------------------------------------------------------------
def prefill_work(q, sequences):
    """Prefill of `sequences` prompts: 2 × parameters used per prompt token (the output projection only for
    the last token where the vocabulary is known) + causal attention (each token sees the ones before it)."""
    lm_head = q.vocab * q.hidden
    linear = (FLOP_PER_PARAM_TOKEN * (used_parameters(q) - lm_head) * q.input_tokens
              + FLOP_PER_PARAM_TOKEN * lm_head * TOKEN) if q.has("vocab") and q.has("hidden") \
        else FLOP_PER_PARAM_TOKEN * q.arithmetic_parameters * q.input_tokens
    causal = attention_flops(q, q.input_tokens, q.input_tokens) / 2
    return sequences * sum_present(linear, causal)


def prefill_pass(q, flops, sequences):
    devices = q.replica_devices
    tokens = sequences * q.input_tokens
    return plus(roofline_time(flops / (q.delivered_rate * devices),
                              weights_read(q, tokens) / (q.delivered_bandwidth * devices)),
                q.step_overhead_time, pass_communication(q, tokens))


@quantity("generate", "prefill_flops", "FLOP",
          "one prompt: 2 × parameters used × input tokens (output projection for the last token only) + causal "
          "attention 2 × layers × heads × head_dim × input²", display="TFLOP", label="Prefill work")
def gen_prefill_flops(q):
    return prefill_work(q, 1)


@quantity("generate", "prefill_time", "s",
          "one prompt: max(FLOPs at the delivered rate, weights at the bandwidth) + fixed overheads + "
          "communication", display="ms", label="Prefill time")
def gen_prefill_time(q):
    return prefill_pass(q, q.prefill_flops, 1)


@quantity("generate", "ttft", "s", "time to first token: the prefill (no queueing)", display="ms",
          label="Time to first token")
def gen_ttft(q):
    return q.prefill_time


@quantity("generate", "batch_prefill_time", "s", "prefill of the batch's prompts together", display="ms",
          label="Prefill time of the batch")
def gen_batch_prefill_time(q):
    return prefill_pass(q, q.batch * q.prefill_flops, q.batch)


@quantity("generate", "tokens_per_s", "token/s",
          "output rate one replica sustains: batch × output tokens / (prefill of the batch + output tokens × "
          "step time)", display="token/s", maximise=True, label="Tokens/s per replica, all users")
def gen_tokens_per_s(q):
    return q.step_tokens * q.output_tokens / (q.batch_prefill_time * TOKEN + q.output_tokens * q.step_time)


@quantity("generate", "token_interval", "s",
          "time between a user's tokens with the replica also prefilling its requests (continuous batching): "
          "step time + prefill of the batch / output tokens", display="ms", label="Time between tokens")
def gen_token_interval(q):
    return q.step_time + q.batch_prefill_time / (q.output_tokens / TOKEN)


@quantity("generate", "request_latency", "s", "time to first token + output tokens × step time", display="s",
          label="Request latency")
def gen_request_latency(q):
    return q.ttft + q.output_tokens / TOKEN * q.step_time


@quantity("generate", "requests_per_s", "request/s",
          "requests one replica completes per second at this batch, prefills included",
          display="request/s", maximise=True, label="Requests/s per replica")
def gen_requests_per_s(q):
    return q.tokens_per_s / q.output_tokens * REQUEST


@quantity("generate", "slots", "", "requests one replica serves at once: the batch",
          label="Requests served at once", count=True)
def gen_slots(q):
    return q.batch
