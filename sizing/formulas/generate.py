"""LLM serving: memory of a replica and the decode step (serving.py: the batch, the prefill, the rates)."""

from .common import (EP_ALL_TO_ALLS, after_reserve, FLOP_PER_PARAM_TOKEN, KV_TENSORS, NO_FABRIC, PREFILL_CHUNK, TOKEN,
                     TP_ALL_REDUCES, all_reduce_parts, all_to_all_parts, attention_flops, embedding, plus,
                     point_to_point_parts, roofline_time, used_parameters, weights_read, without_fabric)
from .expr import ceil, first_present, floor, maximum, minimum, Missing, sum_present, where
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
    return after_reserve(q, q.replica_devices * q.memory)


@quantity("generate", "fits", "", "memory required ≤ memory of the replica", label="Fits in memory",
          type="check", compares=("memory_required", "replica_memory"), requirement=True)
def gen_fits(q):
    return q.memory_required <= q.replica_memory


@quantity("generate", "headroom", "byte", "replica memory − memory required", display="GB", label="Memory headroom")
def gen_headroom(q):
    return q.replica_memory - q.memory_required


@quantity("generate", "max_batch", "",
          "largest batch whose KV cache and prefill workspace (min(batch × input, 8192 tokens)) fit beside the weights",
          maximise=True, label="Largest batch that fits", count=True)
def gen_max_batch(q):
    per_token = (2 * q.hidden + q.intermediate) * q.activation_bytes / TOKEN      # workspace per prompt token
    room = q.replica_memory - q.weights_bytes
    sequence = q.context_tokens * q.kv_bytes_per_token
    # the workspace is the smaller of the batch's prompts and a full chunk, so the batch fits when either bound holds
    # (each floored at 0 first: the workbook's ROUNDDOWN truncates a negative toward zero, floor does not)
    return maximum(floor(maximum(0, room) / (sequence + q.input_tokens * per_token)),
                   floor(maximum(0, room - PREFILL_CHUNK * per_token) / sequence))


@quantity("generate", "devices_to_fit", "", "devices needed to hold the weights, the KV cache and the workspace",
          label="Devices to fit", count=True)
def gen_devices_to_fit(q):
    return ceil(q.memory_required / after_reserve(q, q.memory))


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
          "embedding (vocabulary × hidden), which is a lookup (unless tied to the output projection)",
          label="Parameters doing arithmetic")
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


def linear_flops(q, tokens):
    """The weight matrices' work over `tokens` tokens: 2 × parameters doing arithmetic per token."""
    return FLOP_PER_PARAM_TOKEN * q.arithmetic_parameters * tokens


def decode_flops(q, tokens):
    """A decode step's work over `tokens` tokens (one per sequence): the weight matrices' + attention at the
    average position."""
    return sum_present(linear_flops(q, tokens), attention_flops(q, tokens, q.kv_position))


def stages(q):
    """Pipeline stages of the replica: as given, at most its devices."""
    return minimum(q.pipeline, q.replica_devices)


def in_flight(q, sequences):
    """Micro-batches a decode step keeps in its pipeline: a sequence each up to one per stage (a sequence's next
    token waits for its last, so it cannot be in two stages at once)."""
    return minimum(stages(q), sequences)


def linear_time(q, tokens):
    """The weight matrices of a decode step over `tokens` tokens (one per sequence) on the replica: max(their FLOPs
    at the delivered rate, the weights read at the delivered bandwidth). Over P pipeline stages the sequences
    advance in m micro-batches (m ≤ P); a step lasts P stage passes, each stage reading its weights once per
    micro-batch, so the weights are read at the bandwidth of a stage's devices (devices / P, not all of them) and
    the arithmetic of m micro-batches fills m of the P stages' time."""
    devices, p = q.replica_devices, stages(q)
    m = in_flight(q, tokens / TOKEN)
    return roofline_time(linear_flops(q, tokens) / (q.delivered_rate * devices) * p / m,
                         p * weights_read(q, tokens / m) / (q.delivered_bandwidth * devices))


def attention_time(q, sequences):
    """Attention of a decode step for `sequences` sequences on the replica: max(its FLOPs at the delivered rate,
    the KV cache read at the delivered bandwidth), over pipeline stages as the matrices' arithmetic; absent
    without the model's architecture."""
    devices = q.replica_devices
    if not q.has("kv_bytes_per_token"):
        return NA
    p, m = stages(q), in_flight(q, sequences)
    return roofline_time(attention_flops(q, sequences * TOKEN, q.kv_position) / (q.delivered_rate * devices) * p / m,
                         sequences * q.kv_read_per_sequence / (q.delivered_bandwidth * devices) * p / m)


def kernels_time(q, sequences):
    """A decode step's kernels: the weight matrices, then attention. They run one after the other, so their
    times add (a roofline over the whole step would let the KV reads hide behind the matrices' arithmetic)."""
    return plus(linear_time(q, sequences * TOKEN), attention_time(q, sequences))


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


@quantity("generate", "attainable_rate", "FLOP/s",
          "roofline of the decode step at the datasheet peaks: min(peak, bandwidth × intensity) (the step's times use "
          "the delivered rates)", display="TFLOP/s", label="Attainable rate at the peaks (roofline)")
def gen_attainable(q):
    return minimum(q.peak_rate, q.memory_bandwidth * q.intensity)


@quantity("generate", "step_memory_time", "s",
          "decode step bytes at the delivered bandwidth of the replica (over P pipeline stages in m micro-batches: "
          "P × the weights a micro-batch reads + the KV reads × P / m)",
          display="ms", warn="no memory bandwidth: the memory-bound decode time is not counted",
          warn_on=("memory_bandwidth",), label="Step time, memory")
def gen_step_memory_time(q):
    p, m = stages(q), in_flight(q, q.batch)          # over pipeline stages as linear_time and attention_time
    return sum_present(p * weights_read(q, q.step_tokens / m), q.kv_read_bytes * p / m) / (q.delivered_bandwidth
                                                                                         * q.replica_devices)


@quantity("generate", "step_compute_time", "s",
          "decode step FLOPs at the delivered rate of the replica (× P / m over P pipeline stages in m micro-batches)",
          display="ms", label="Step time, compute")
def gen_step_compute_time(q):
    return q.step_flops / (q.delivered_rate * q.replica_devices) * stages(q) / in_flight(q, q.batch)


@quantity("generate", "step_linear_time", "s",
          "weight matrices of the decode step: max(2 × parameters doing arithmetic × tokens at the delivered rate, "
          "weights read at the delivered bandwidth); over P pipeline stages, the sequences in m = min(P, batch) "
          "micro-batches, the arithmetic × P / m and each stage's weights read once per micro-batch (P × the weights "
          "a micro-batch reads)", display="ms", label="Step time, weight matrices")
def gen_step_linear_time(q):
    return linear_time(q, q.step_tokens)


@quantity("generate", "step_attention_time", "s",
          "attention of the decode step: max(attention FLOPs at the delivered rate, KV cache read at the delivered "
          "bandwidth)", display="ms", label="Step time, attention")
def gen_step_attention_time(q):
    return attention_time(q, q.batch)


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
           (None, point_to_point_parts(q, q.replica_devices, stages(q) - 1), token)]
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
          "decode step: weight matrices + attention (kernels one after the other, each at the slower of its "
          "arithmetic and its reads) + fixed overheads + communication", display="ms",
          label="Per-token time (decode step)")
def gen_step_time(q):
    return plus(plus(q.step_linear_time, q.step_attention_time), q.step_overhead_time, q.communication_time)


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
