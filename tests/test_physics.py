"""The physics the second wave adds, each checked against a hand calculation on round numbers."""

import pytest

from helpers import problems_of

from sizing.evaluate import evaluate
from sizing.scenario import load_scenario_bytes

# An invented accelerator with round figures and every efficiency stated, so each number below is arithmetic.
DEVICE = """\
  acc:
    kind: gpu
    compute: {bf16: 100 TFLOP/s, fp16: 100 TFLOP/s, fp8: 200 TFLOP/s}
    memory: 100 GB
    memory_bandwidth: 1 TB/s
    efficiency: 50 %
    bandwidth_efficiency: 80 %
    layer_overhead: 10 us
    memory_reserve: 10 %
    interconnect: {bandwidth: 100 GB/s, latency: 5 us, domain: 4}
    network: {bandwidth: 10 GB/s, latency: 20 us}
"""
MODEL = """\
  dense:
    parameters: 10e9
    layers: 40
    hidden: 5000
    heads: 40
    kv_heads: 8
    head_dim: 125
    intermediate: 20000
    context: 8192
  moe:
    parameters: 40e9
    active_parameters: 12e9
    layers: 40
    hidden: 5000
    heads: 40
    kv_heads: 8
    head_dim: 125
    intermediate: 20000
    experts: 8
    experts_per_token: 2
"""


def pair(workload: str, extra: str = "", device: str = DEVICE) -> dict:
    text = f"sizing: 1\nname: physics\ndevices:\n{device}models:\n{MODEL}workloads:\n  w: {workload}\n{extra}"
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    assert scn is not None, [str(p) for p in problems]
    return evaluate(scn).pair("w", "acc").values


def test_decode_step_adds_attention_the_floor_and_nothing_for_one_device():
    p = pair("{kind: generate, model: dense, batch: 1, input_tokens: 1000, output_tokens: 200}")
    position = 1000 + 100
    flops = 2 * 10e9 + 4 * 40 * 40 * 125 * position
    assert p["step_flops"] == pytest.approx(flops)
    kv_per_token = 2 * 40 * 8 * 125 * 2
    bytes_ = 10e9 * 2 + position * kv_per_token
    assert p["step_memory_time"] == pytest.approx(bytes_ / 0.8e12)
    assert p["step_overhead_time"] == pytest.approx(40 * 10e-6)
    assert p["communication_time"] == 0                        # one device: nothing to communicate (but live)
    assert p["step_time"] == pytest.approx(bytes_ / 0.8e12 + 40 * 10e-6)
    assert p["tokens_per_s_per_user"] == pytest.approx(1 / p["step_time"])


def test_prefill_counts_causal_attention_and_throughput_counts_the_prefill():
    p = pair("{kind: generate, model: dense, batch: 4, input_tokens: 1000, output_tokens: 200}")
    flops = 2 * 10e9 * 1000 + 2 * 40 * 40 * 125 * 1000 ** 2
    assert p["prefill_flops"] == pytest.approx(flops)
    assert p["ttft"] == pytest.approx(max(flops / 50e12, 20e9 / 0.8e12) + 40 * 10e-6)
    assert p["batch_prefill_time"] == pytest.approx(4 * flops / 50e12 + 40 * 10e-6)
    sustained = 4 * 200 / (p["batch_prefill_time"] + 200 * p["step_time"])
    assert p["tokens_per_s"] == pytest.approx(sustained)
    assert p["tokens_per_s"] < p["decode_tokens_per_s"] == pytest.approx(4 / p["step_time"])


def test_the_embedding_table_is_a_lookup_unless_it_is_also_the_output_projection():
    """Prefill counted the input embedding's rows as arithmetic for every prompt token (1 % of Mixtral's prefill,
    7 % of Llama 3.1 8B's); a table tied to the output projection (Gemma 2) is read and multiplied for every
    generated token, so none of it comes off the decode step's work or bytes."""
    vocab = "    vocab: 100000\n"
    models = MODEL.replace("    context: 8192\n", "    context: 8192\n" + vocab) + \
        "  tied:\n" + MODEL.split("  moe:")[0].split("  dense:\n")[1] + vocab + "    tied_embeddings: true\n"
    table, attention = 100000 * 5000, 2 * 40 * 40 * 125 * 1000 ** 2

    def of(model: str) -> dict:
        text = (f"sizing: 1\nname: physics\ndevices:\n{DEVICE}models:\n{models}workloads:\n  w: {{kind: generate, "
                f"model: {model}, batch: 1, input_tokens: 1000, output_tokens: 200}}\n")
        scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
        assert scn is not None, [str(p) for p in problems]
        return evaluate(scn).pair("w", "acc").values
    untied, tied = of("dense"), of("tied")
    # untied: the input table is looked up, the output projection multiplies once per prompt (its last token)
    assert untied["arithmetic_parameters"] == 10e9 - table
    assert untied["prefill_flops"] == pytest.approx(2 * (10e9 - 2 * table) * 1000 + 2 * table + attention)
    assert untied["step_flops"] == pytest.approx(2 * (10e9 - table) + 4 * 40 * 40 * 125 * 1100)
    # tied: one table, the output projection's, multiplied and read every step
    assert tied["arithmetic_parameters"] == 10e9
    assert tied["prefill_flops"] == pytest.approx(2 * (10e9 - table) * 1000 + 2 * table + attention)
    assert tied["step_flops"] == pytest.approx(2 * 10e9 + 4 * 40 * 40 * 125 * 1100)
    kv = 1100 * 2 * 40 * 8 * 125 * 2
    assert tied["step_memory_time"] == pytest.approx((10e9 * 2 + kv) / 0.8e12)
    assert untied["step_memory_time"] == pytest.approx(((10e9 - table) * 2 + kv) / 0.8e12)


def test_tensor_parallel_pays_two_ring_all_reduces_per_layer():
    p = pair("{kind: generate, model: dense, batch: 8, devices: 4, input_tokens: 100, output_tokens: 100}")
    message = 8 * 5000 * 2                                     # batch x hidden x 16-bit activations
    one = 2 * 3 / 4 * message / 100e9 + 2 * 3 * 5e-6
    assert p["communication_time"] == pytest.approx(2 * 40 * one)
    assert p["communication_fixed"] == pytest.approx(2 * 40 * 2 * 3 * 5e-6)
    assert p["step_time"] == pytest.approx(max(p["step_memory_time"], p["step_compute_time"])
                                           + p["step_overhead_time"] + p["communication_time"])


def test_pipeline_stages_read_their_weights_once_per_micro_batch_and_a_prompt_passes_them_in_turn():
    """A new user found 16 devices split tensor 2 × pipeline 2 as fast per token as 4-way tensor parallel: a token
    passes the stages one after the other, so each step reads the weights at the bandwidth of one stage's devices.
    Over P stages the batch advances in min(P, batch) micro-batches; one prompt's prefill waits on each stage."""
    layout = "devices: 4, parallel: {tensor: 2, pipeline: 2}, input_tokens: 1000, output_tokens: 200"
    tp = pair("{kind: generate, model: dense, batch: 8, devices: 4, input_tokens: 1000, output_tokens: 200}")
    pp = pair(f"{{kind: generate, model: dense, batch: 8, {layout}}}")
    one = pair(f"{{kind: generate, model: dense, batch: 1, {layout}}}")
    weights, flops = 10e9 * 2, 2 * 10e9
    assert tp["step_linear_time"] == pytest.approx(max(8 * flops / 200e12, weights / 3.2e12))
    assert pp["step_linear_time"] == pytest.approx(max(8 * flops / 200e12, 2 * weights / 3.2e12))   # stage: 2 devices
    kv = 1100 * 2 * 40 * 8 * 125 * 2
    assert pp["step_attention_time"] == pytest.approx(tp["step_attention_time"]) == pytest.approx(8 * kv / 3.2e12)
    # batch 1: one micro-batch in the pipeline, its arithmetic and KV reads on one stage at a time
    assert one["step_linear_time"] == pytest.approx(weights / 1.6e12)
    assert one["step_attention_time"] == pytest.approx(kv / 1.6e12)
    assert one["step_memory_time"] == pytest.approx((2 * weights + 2 * kv) / 3.2e12)
    assert one["step_compute_time"] == pytest.approx(one["step_flops"] / 200e12 * 2)
    # prefill (compute-bound here): one prompt on each stage in turn; the batch's prompts follow each other
    prompt = 2 * 10e9 * 1000 + 2 * 40 * 40 * 125 * 1000 ** 2
    fixed = 40 * 10e-6

    def comm(p: dict, tokens: int) -> float:
        return p["communication_fixed"] + tokens * p["communication_per_token"]
    assert tp["ttft"] == pytest.approx(prompt / 200e12 + fixed + comm(tp, 1000))
    assert pp["ttft"] == pytest.approx(2 * prompt / 200e12 + fixed + comm(pp, 1000))
    assert pp["batch_prefill_time"] == pytest.approx(8 * prompt / 200e12 * 9 / 8 + fixed + comm(pp, 8000))
    assert tp["batch_prefill_time"] == pytest.approx(8 * prompt / 200e12 + fixed + comm(tp, 8000))


def test_on_a_mesh_a_smaller_group_uses_only_its_links():
    """Gaudi and Instinct boards connect each device to every other by its own links: the catalog's 525 GB/s of a
    Gaudi 3 is 7 × 75 GB/s, so two cards talk at 75 GB/s (they were given all 525: an architect's check)."""
    mesh = DEVICE.replace("domain: 4}", "domain: 4, topology: mesh}")
    message = 8 * 5000 * 2
    for devices, links in ((2, 1), (4, 3)):
        p = pair(f"{{kind: generate, model: dense, batch: 8, devices: {devices}, input_tokens: 100, "
                 f"output_tokens: 100}}", device=mesh)
        switch = pair(f"{{kind: generate, model: dense, batch: 8, devices: {devices}, input_tokens: 100, "
                      f"output_tokens: 100}}")
        g = devices
        one = 2 * (g - 1) / g * message / (100e9 * links / 3) + 2 * (g - 1) * 5e-6
        assert p["communication_time"] == pytest.approx(2 * 40 * one)
        assert p["communication_fixed"] == switch["communication_fixed"]      # the latency is the link's either way
        assert (p["communication_time"] > switch["communication_time"]) == (links < 3)


def test_beyond_the_domain_the_network_carries_the_collective():
    p = pair("{kind: generate, model: dense, batch: 8, devices: 8, input_tokens: 100, output_tokens: 100}")
    message = 8 * 5000 * 2
    assert p["communication_time"] == pytest.approx(2 * 40 * (2 * 7 / 8 * message / 10e9 + 2 * 7 * 20e-6))


def test_a_replica_without_a_fabric_is_warned_about():
    device = DEVICE.replace("    interconnect: {bandwidth: 100 GB/s, latency: 5 us, domain: 4}\n", "")
    text = (f"sizing: 1\nname: p\ndevices:\n{device}models:\n{MODEL}workloads:\n"
            "  w: {kind: generate, model: dense, devices: 2}\n")
    assert any("no interconnect between the devices of a replica" in p for p in problems_of(text))


def test_mixture_of_experts_reads_only_the_experts_the_batch_routes_to():
    one = pair("{kind: generate, model: moe, batch: 1, input_tokens: 10, output_tokens: 10, precision: fp8}")
    experts = 8 * (40e9 - 12e9) / (8 - 2)                      # 37.33e9 in routed experts
    dense = 40e9 - experts
    assert one["step_weight_bytes"] == pytest.approx(dense + experts * 2 / 8)   # = the active parameters
    assert one["step_weight_bytes"] == pytest.approx(12e9)
    big = pair("{kind: generate, model: moe, batch: 16, input_tokens: 10, output_tokens: 10, precision: fp8}")
    share = 1 - (1 - 2 / 8) ** 16
    assert big["step_weight_bytes"] == pytest.approx(dense + experts * share)
    assert big["weights_bytes"] == 40e9                        # memory holds every expert
    assert big["step_flops"] == pytest.approx(16 * 2 * 12e9 + 16 * 4 * 40 * 40 * 125 * 15)


def test_memory_keeps_the_reserve_and_a_workspace():
    p = pair("{kind: generate, model: dense, batch: 2, input_tokens: 1000, output_tokens: 1000}")
    assert p["replica_memory"] == pytest.approx(90e9)
    workspace = 2000 * (2 * 5000 + 20000) * 2
    assert p["workspace_bytes"] == pytest.approx(workspace)
    kv = 2 * 2000 * 2 * 40 * 8 * 125 * 2
    assert p["memory_required"] == pytest.approx(20e9 + kv + workspace)
    full_chunk = 8192 * (2 * 5000 + 20000) * 2
    assert p["max_batch"] == (90e9 - 20e9 - full_chunk) // (2000 * 2 * 40 * 8 * 125 * 2)     # prompts fill a chunk


@pytest.mark.parametrize("prompt", [10, 1000, 6000, 9000])
def test_the_largest_batch_that_fits_fits_and_one_more_does_not(prompt):
    """max_batch counts the workspace of the batch's own prompts where they are shorter than a full chunk: a new user
    read 'largest batch that fits: 3' beside a batch of 4 that fit (the full chunk's workspace was counted)."""
    workload = "{kind: generate, model: dense, batch: %d, input_tokens: %d, output_tokens: 3000}"
    largest = int(pair(workload % (1, prompt))["max_batch"])
    assert largest >= 1
    assert pair(workload % (largest, prompt))["fits"] is True
    assert pair(workload % (largest + 1, prompt))["fits"] is False


def test_grouped_weight_only_formats_count_their_scales_and_compute_in_fp16():
    p = pair("{kind: generate, model: dense, batch: 1, precision: q4_0}")
    assert p["weights_bytes"] == pytest.approx(10e9 * 4.5 / 8)
    assert p["kv_bytes_per_token"] == 2 * 40 * 8 * 125 * 2   # the KV cache stays in 16 bits
    assert p["peak_rate"] == 100e12                            # the fp16 rate, not an int4 one
    g32 = pair("{kind: generate, model: dense, batch: 1, precision: int4-g32}")
    assert g32["weights_bytes"] == pytest.approx(10e9 * 4.625 / 8)


def test_forward_batches_read_the_weights_once():
    one = pair("{kind: forward, model: dense, tokens: 100, batch: 1, precision: bf16}")
    many = pair("{kind: forward, model: dense, tokens: 100, batch: 32, precision: bf16}")
    flops = 2 * 10e9 * 100 + 4 * 40 * 40 * 125 * 100 ** 2
    assert one["flops_per_request"] == pytest.approx(flops)
    assert many["compute_time"] == pytest.approx(32 * flops / 50e12)
    assert many["memory_time"] == one["memory_time"] == pytest.approx(20e9 / 0.8e12)
    assert many["latency"] == pytest.approx(max(32 * flops / 50e12, 20e9 / 0.8e12) + 40 * 10e-6)
    assert many["requests_per_s"] == pytest.approx(32 / many["latency"])
    short_one = pair("{kind: forward, model: dense, tokens: 10, batch: 1, precision: bf16}")
    short_many = pair("{kind: forward, model: dense, tokens: 10, batch: 8, precision: bf16}")
    assert short_many["requests_per_s"] > 6 * short_one["requests_per_s"]   # memory-bound: batching is ~free


def test_training_adds_attention_recompute_bubble_and_finds_devices_for_a_deadline():
    base = "{kind: train, model: dense, tokens: 1e9, sequence: 4000, batch: 250, deadline: 10 day, precision: bf16"
    p = pair(base + "}")
    attention = 3 * 4 * 40 * 40 * 125 * 4000 / 2
    flops = (6 * 10e9 + attention) * 1e9
    assert p["flops"] == pytest.approx(flops)
    rate = 100e12 * 0.5                                        # train_efficiency follows the stated efficiency
    assert p["devices_for_deadline"] == -(-flops // (rate * 10 * 86400))
    assert p["steps"] == 1e9 / (250 * 4000)
    assert p["meets_deadline"] is True and p["meets_targets"] is True and p["duration"] <= 10 * 86400
    r = pair(base + ", recompute: true, devices: 8, parallel: {tensor: 2, pipeline: 2, micro_batches: 4}}")
    assert r["flops"] == pytest.approx((8 * 10e9 + 4 * 4 * 40 * 40 * 125 * 2000) * 1e9)
    assert r["data_parallel"] == 2
    assert r["bubble_time"] == pytest.approx(r["compute_time"] * 1 / 4)
    assert r["duration"] == pytest.approx(r["compute_time"] + r["bubble_time"] + r["steps"] * r["communication_time"])


def test_a_layout_that_does_not_multiply_to_the_devices_is_an_error():
    text = (f"sizing: 1\nname: p\ndevices:\n{DEVICE}models:\n{MODEL}workloads:\n"
            "  w: {kind: generate, model: dense, devices: 8, parallel: {tensor: 2, pipeline: 2}}\n")
    (line,) = [p for p in problems_of(text) if "error" in p]
    assert "tensor (2) × pipeline (2) is 4, but `devices` is 8" in line and "workloads.w.parallel" in line


def test_a_request_beyond_the_context_is_a_located_warning():
    text = (f"sizing: 1\nname: p\ndevices:\n{DEVICE}models:\n{MODEL}workloads:\n"
            "  w: {kind: generate, model: dense, input_tokens: 8000, output_tokens: 500}\n")
    (line,) = [p for p in problems_of(text) if "context" in p]
    assert line.startswith("s.yaml:") and ": warning: workloads.w: 8,499 tokens per sequence exceed the context " \
        "length of model 'dense' (8,192)" in line
    # the last output token is never read back: a whole-context prompt and one output token (how TensorRT-LLM
    # measures time to first token) fit; a second output token does not
    fits = text.replace("input_tokens: 8000, output_tokens: 500", "input_tokens: 8192, output_tokens: 1")
    assert not [p for p in problems_of(fits) if "context" in p]
    assert [p for p in problems_of(fits.replace("output_tokens: 1", "output_tokens: 2")) if "context" in p]
    alt = text.replace("output_tokens: 500}", "output_tokens: 500, alternatives: {fp8: {precision: fp8}}}")
    assert len([p for p in problems_of(alt) if "context" in p]) == 1          # once, not again for the alternative


def test_a_planned_utilisation_under_a_tenth_is_a_located_warning():
    """A new user typed 'max_utilisation: 0.8 %' for 80 %: validate said 'ok' and the fleet came out a hundred times
    too large. Under 10 % it is a warning naming the likely figure; 60 % is not."""
    text = (f"sizing: 1\nname: p\ndevices:\n{DEVICE}models:\n{MODEL}workloads:\n"
            "  w: {kind: generate, model: dense, traffic: {peak: 2 request/s, max_utilisation: PLAN}}\n")
    (line,) = [p for p in problems_of(text.replace("PLAN", "0.8 %")) if "max_utilisation" in p]
    where = text.index("PLAN")
    assert line.startswith(f"s.yaml:{text[:where].count(chr(10)) + 1}:{where - text.rindex(chr(10), 0, where)}: ")
    assert ": warning: workloads.w.traffic.max_utilisation: '0.8 %' plans each " \
        "replica busy under 10 % of the time at the peak, so the fleet holds about 125 times the capacity the peak " \
        "uses; did you mean 80 %? (60-85 % is usual)" in line
    assert not [p for p in problems_of(text.replace("PLAN", "60 %")) if "max_utilisation" in p]


def test_a_tensor_split_that_does_not_divide_the_heads_is_a_located_warning():
    def heads_problems(workload: str) -> list[str]:
        text = f"sizing: 1\nname: p\ndevices:\n{DEVICE}models:\n{MODEL}workloads:\n  w: {workload}\n"
        return [p for p in problems_of(text) if "attention heads" in p]
    (line,) = heads_problems("{kind: generate, model: dense, devices: 3}")        # 40 heads, 8 key/value heads
    assert line.startswith("s.yaml:") and (": warning: workloads.w.devices: tensor parallelism 3 ways does not split "
                                           "the 40 attention heads (8 key/value heads) of model 'dense' evenly, as "
                                           "runtimes need; give a tensor-parallel degree that does (e.g. 4)") in line
    assert heads_problems("{kind: generate, model: dense, devices: 8}") == []
    assert heads_problems("{kind: generate, model: dense, devices: 6, parallel: {tensor: 2, pipeline: 3}}") == []
    (line,) = heads_problems("{kind: generate, model: dense, devices: 5}")        # divides 40, not 8 nor a multiple
    assert "tensor parallelism 5 ways" in line and "(e.g. 4)" in line
    # said once, at the workload: an alternative that keeps its layout repeated it at a path not in the file
    (line,) = heads_problems("{kind: generate, model: dense, devices: 5, alternatives: {fp8: {precision: fp8}}}")
    assert "workloads.w.devices" in line
    assert len(heads_problems("{kind: generate, model: dense, devices: 8, alternatives: {five: {devices: 5}}}")) == 1


def test_more_pipeline_stages_than_layers_is_an_error():
    """A new user's `parallel: {pipeline: 40}` on a 32-layer model was ranked without a word."""
    text = (f"sizing: 1\nname: p\ndevices:\n{DEVICE}models:\n{MODEL}workloads:\n"
            "  w: {kind: train, model: dense, tokens: 1e9, sequence: 2000, batch: 64, devices: 41, "
            "parallel: {pipeline: 41}}\n")
    (line,) = [p for p in problems_of(text) if "pipeline stages" in p]
    assert ": error: workloads.w.parallel.pipeline: 41 pipeline stages exceed the 40 layers of model 'dense' (a " \
        "stage holds one layer at least); give at most 40" in line
    assert not [p for p in problems_of(text.replace("41", "40")) if "pipeline stages" in p]


def test_a_lora_share_on_a_full_training_run_is_a_located_warning():
    """A new user's `trainable: 5 %` beside `method: full` was ignored without a word."""
    text = (f"sizing: 1\nname: p\ndevices:\n{DEVICE}models:\n{MODEL}workloads:\n"
            "  w: {kind: train, model: dense, tokens: 1e9, method: full, trainable: 5 %ALT}\n")
    (line,) = [p for p in problems_of(text.replace("ALT", "")) if "trainable" in p]
    where = text.index("5 %")
    assert line.startswith(f"s.yaml:{text[:where].count(chr(10)) + 1}:{where - text.rindex(chr(10), 0, where)}: "
                           "warning: workloads.w.trainable: '5 %' "
                           "is the share of the parameters LoRA trains, but method full trains all of them, so it is "
                           "ignored; set method: lora, or remove trainable")
    lora = text.replace("method: full", "method: lora")
    full = ", alternatives: {full: {method: full}}"
    assert not [p for p in problems_of(lora.replace("ALT", full)) if "trainable" in p]   # inherited, not written
    assert len([p for p in problems_of(text.replace("ALT", ", alternatives: {lora: {method: lora}}"))
                if "trainable" in p]) == 1                                   # at the workload, not at its alternative


def test_a_lora_share_written_as_a_large_bare_number_is_a_located_warning():
    """A new user's `trainable: 0.5` trained half the parameters as 'LoRA' without a word."""
    text = (f"sizing: 1\nname: p\ndevices:\n{DEVICE}models:\n{MODEL}workloads:\n"
            "  w: {kind: train, model: dense, tokens: 1e9, method: lora, trainable: SHARE}\n")
    (line,) = [p for p in problems_of(text.replace("SHARE", "0.5")) if "trainable" in p]
    assert ": warning: workloads.w.trainable: '0.5' trains 50 % of the parameters as LoRA adapters, where LoRA " \
        "usually trains 0.1-5 %; did you mean 0.5 %? (a bare number is a share of 1)" in line
    for meant in ("50 %", "0.02", "2 %"):                  # a share written in %, and a usual share, pass
        assert not [p for p in problems_of(text.replace("SHARE", meant)) if "trainable" in p]


def test_a_commitment_discount_under_a_forced_basis_is_a_located_warning():
    """A finance reviewer typed a reserved discount on a device costed `basis: rent`: nothing moved, nothing said."""
    text = (f"sizing: 1\nname: p\ndevices:\n{DEVICE}models:\n{MODEL}workloads:\n"
            "  w: {kind: generate, model: dense}\n")
    forced = text.replace("    memory_reserve: 10 %\n", "    memory_reserve: 10 %\n    price: 2 USD/hour\n    costs: "
                          "{basis: BASIS, reserved_discount: 30 %, purchase: 20000 USD}\n")
    assert forced != text
    (line,) = [p for p in problems_of(forced.replace("BASIS", "rent")) if "reserved_discount" in p]
    assert ": warning: devices.acc.costs.reserved_discount: '30 %' is a commitment discount, but basis rent prices " \
        "the device at the hourly price on demand, so it is not used; set basis: reserved (or cheapest) to use it, " \
        "or remove it" in line
    assert [p for p in problems_of(forced.replace("BASIS", "own")) if "reserved_discount" in p]
    for used in ("reserved", "cheapest"):
        assert not [p for p in problems_of(forced.replace("BASIS", used)) if "reserved_discount" in p]


def test_eight_bit_arithmetic_has_its_own_efficiency():
    text = """\
sizing: 1
name: widths
devices:
  stated: {from: nvidia-h100-sxm5-80gb, efficiency: 50 %, efficiency_8bit: 30 %}
  one: {from: nvidia-h100-sxm5-80gb, efficiency: 50 %}
  family: {from: nvidia-h100-sxm5-80gb}
workloads:
  fp8: {kind: generate, model: llama-3.1-8b, precision: fp8}
  bf16: {kind: generate, model: llama-3.1-8b, precision: bf16}
"""
    from helpers import family_figure
    scn, _ = load_scenario_bytes(text.encode(), "s.yaml")
    r = evaluate(scn)
    share = {(w, d): r.pair(w, d).values["delivered_rate"] / r.pair(w, d).values["peak_rate"]
             for w in ("fp8", "bf16") for d in ("stated", "one", "family")}
    assert share[("fp8", "stated")] == pytest.approx(0.3) and share[("bf16", "stated")] == pytest.approx(0.5)
    assert share[("fp8", "one")] == share[("bf16", "one")] == pytest.approx(0.5)     # one figure for every width
    assert share[("fp8", "family")] == pytest.approx(family_figure("gpu", "efficiency_8bit"))
    assert share[("bf16", "family")] == pytest.approx(family_figure("gpu", "efficiency"))
    assert r.inputs["device.family.efficiency_8bit"].value.source.startswith("default for a gpu (8-bit arithmetic)")


def test_without_a_decision_a_workload_that_does_not_fit_is_a_located_warning():
    """An engineer checking published runs read throughputs of a replica that could not run: 'fits: no' was one row
    among sixty and the problems listed only a missing price."""
    text = (f"sizing: 1\nname: p\ndevices:\n{DEVICE}models:\n{MODEL}workloads:\n"
            "  w: {kind: generate, model: dense, precision: bf16, batch: 1, input_tokens: 100, output_tokens: 10}\n")
    small = text.replace("memory: 100 GB", "memory: 10 GB")
    (line,) = [p for p in problems_of(small) if "does not fit" in p]
    assert line.startswith(f"s.yaml:{small.count(chr(10))}:3: warning: workloads.w: does not fit device acc in memory: its speeds and "
                           "costs are for a replica that cannot run; 3 devices or more hold it (`devices` on the "
                           "workload)")
    assert not [p for p in problems_of(text) if "does not fit" in p]
    decided = small + "decision: {objective: tokens_per_s}\n"
    assert not [p for p in problems_of(decided) if "does not fit" in p]          # the decision says why instead
