"""LLM serving: the batch within the per-token target, the prefill, and the rate a replica sustains.

The batching model is the static batch benchmark tables measure: a replica takes `batch` requests,
prefills their prompts, then decodes `output_tokens` steps for all of them together; the output rate
counts the prefill time. Continuous batching interleaves the prefills with the decode steps, which
spends the same device time, so the sustained rate is the same to first order (the per-user rate
dips while a prompt is prefilled).
"""

from .common import (FLOP_PER_PARAM_TOKEN, REQUEST, TOKEN, all_weights_read, attention_flops, plus, roofline_time,
                     weights_read)
from .expr import floor, maximum, minimum, Missing, sum_present, where
from .generate import attention_time, kernels_time, linear_flops, pass_communication, stages
from .graph import NA, quantity


@quantity("generate", "compute_bound_batch", "",
          "batch at which the decode step's weight matrices turn compute-bound (weights read at the delivered "
          "bandwidth = their FLOPs at the delivered rate; attention's KV reads are timed apart and add to the step)",
          label="Batch where the weight matrices turn compute-bound")
def gen_compute_bound_batch(q):
    # The replica's device count cancels: both sides divide by it. Over P pipeline stages (batch ≥ P) each stage
    # reads its weights once per micro-batch: P times the weights against the same arithmetic.
    return stages(q) * q.weights_bytes / q.delivered_bandwidth / (linear_flops(q, TOKEN) / q.delivered_rate)


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
    # the step is max(batch × matrices per sequence, weights read) + batch × attention per sequence: within the
    # budget when both batch × (matrices + attention) and weights read + batch × attention are
    seq_attention = attention_time(q, 1)
    by_compute = budget / sum_present(linear_flops(q, TOKEN) / (q.delivered_rate * devices), seq_attention,
                                      seq_prefill, seq_comm)
    weights_time = stages(q) * all_weights_read(q) / (q.delivered_bandwidth * devices)   # every expert: conservative;
    # over P pipeline stages (a batch of P at least) each stage reads its weights once per micro-batch
    if not q.has("kv_bytes_per_token"):
        return where(weights_time <= budget, floor(by_compute), 0)
    by_bandwidth = (budget - weights_time) / sum_present(seq_attention, seq_prefill, seq_comm)
    return maximum(0, floor(minimum(q.max_batch, by_bandwidth, by_compute)))


@quantity("generate", "best_batch_tokens_per_s", "token/s",
          "decode tokens/s at the best batch: the decode steps alone, prefills left out (tokens_per_s, at the "
          "scenario's batch, counts them), so an upper bound on what that batch serves",
          display="token/s", maximise=True, label="Decode tokens/s at the best batch (prefills left out)")
def gen_best_batch_rate(q):
    tokens = q.best_batch * TOKEN
    step = plus(kernels_time(q, q.best_batch), q.step_overhead_time,
                pass_communication(q, tokens) if q.has("communication_fixed") else NA)
    return tokens / step


# -- prefill ------------------------------------------------------------------------------------
def prefill_work(q, sequences):
    """Prefill of `sequences` prompts: 2 × parameters doing arithmetic per prompt token (the output projection
    only for the last token where the vocabulary is known; the embedding table is a lookup) + causal attention
    (each token sees the ones before it)."""
    lm_head = q.vocab * q.hidden
    linear = (FLOP_PER_PARAM_TOKEN * (q.arithmetic_parameters - lm_head) * q.input_tokens
              + FLOP_PER_PARAM_TOKEN * lm_head * TOKEN) if q.has("vocab") and q.has("hidden") \
        else FLOP_PER_PARAM_TOKEN * q.arithmetic_parameters * q.input_tokens
    causal = attention_flops(q, q.input_tokens, q.input_tokens) / 2
    return sequences * sum_present(linear, causal)


def prefill_pass(q, flops, sequences):
    """Prefill of `sequences` prompts together: max(FLOPs at the delivered rate, weights at the bandwidth) on the
    replica + fixed overheads + communication. Over P pipeline stages each prompt passes the stages one after the
    other while the next prompts follow it: (sequences + P − 1) / sequences of the time on all devices (one prompt:
    P times, its stages waiting on each other)."""
    devices = q.replica_devices
    tokens = sequences * q.input_tokens
    return plus(roofline_time(flops / (q.delivered_rate * devices),
                              weights_read(q, tokens) / (q.delivered_bandwidth * devices))
                * (sequences + stages(q) - 1) / sequences,
                q.step_overhead_time, pass_communication(q, tokens))


@quantity("generate", "prefill_flops", "FLOP",
          "one prompt: 2 × parameters doing arithmetic × input tokens (output projection for the last token only) "
          "+ causal attention 2 × layers × heads × head_dim × input²", display="TFLOP", label="Prefill work")
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


@quantity("generate", "request_latency", "s",
          "time to first token + output tokens × step time + the other requests' prefills that interrupt its "
          "decoding ((batch − 1) / batch of the batch's prefill: continuous batching; a static batch's wait for "
          "the whole batch's prefill, to first order)", display="s", label="Request latency")
def gen_request_latency(q):
    return q.ttft + q.output_tokens / TOKEN * q.step_time + q.batch_prefill_time * (q.batch - 1) / q.batch


@quantity("generate", "requests_per_s", "request/s",
          "requests one replica completes per second at this batch, prefills included",
          display="request/s", maximise=True, label="Requests/s per replica")
def gen_requests_per_s(q):
    return q.tokens_per_s / q.output_tokens * REQUEST


@quantity("generate", "slots", "", "requests one replica serves at once: the batch",
          label="Requests served at once", count=True)
def gen_slots(q):
    return q.batch
