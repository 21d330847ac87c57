"""Every worked number of the domain reference, out of the shipped scenarios, to its stated precision."""

import pytest

from sizing.results import Crossover

from helpers import ROOT, results_of, value


def test_matmul_1024_counts_and_intensity():
    r = results_of("ref-link-matmul")
    assert value(r, "link-demo", "accelerator", "flops") == 2_147_483_648
    assert value(r, "link-demo", "accelerator", "macs") == 1_073_741_824
    assert value(r, "link-demo", "accelerator", "bytes") == 12_582_912
    assert round(value(r, "link-demo", "accelerator", "intensity"), 1) == 170.7
    r = results_of("ref-7b-decode")
    assert round(value(r, "product-bf16", "accelerator", "intensity"), 1) == 341.3


def test_cpu_peak_from_micro_architecture():
    r = results_of("ref-link-matmul")
    assert value(r, "link-demo", "cpu-server", "cpu_peak_rate") == pytest.approx(768e9, rel=1e-12)
    assert value(r, "link-demo", "cpu-server", "peak_rate") == pytest.approx(768e9, rel=1e-12)


def test_link_table_at_1024():
    r = results_of("ref-link-matmul")
    cpu = value(r, "link-demo", "cpu-server", "total_time")
    acc = value(r, "link-demo", "accelerator", "total_time")
    assert round(cpu * 1e3, 1) == 21.5                       # 21.5 ms
    assert round(acc * 1e6, 1) == 562.8                      # 562.8 us
    assert round(value(r, "link-demo", "accelerator", "speedup_vs_cpu-server")) == 38
    assert round(value(r, "link-demo", "accelerator", "transfer_share") * 100) == 89
    assert round(value(r, "link-demo", "accelerator", "effective_rate") / 1e12, 1) == 3.8
    assert value(r, "link-demo", "accelerator", "overhead_time") == pytest.approx(38e-6)


def test_link_table_sweep():
    r = results_of("ref-link-matmul")
    (s,) = r.sweeps
    assert s.values == [128, 256, 512, 1024, 4096]
    cpu = [t * 1e6 for t in s.series["cpu-server"]["total_time"]]
    acc = [t * 1e6 for t in s.series["accelerator"]["total_time"]]
    assert round(cpu[0], 1) == 41.9 and round(acc[0], 1) == 45.9      # the CPU wins at 128
    assert acc[1] < cpu[1]                                               # the accelerator from 256 on
    assert s.series["accelerator"]["bytes"][0] == 196_608
    assert s.series["accelerator"]["flops"][0] == pytest.approx(4.194304e6)
    (cross,) = [c for c in s.crossovers if c.kind == "faster"]
    assert cross.faster == "accelerator" and cross.slower == "cpu-server"
    assert 128 < cross.at < 140


def test_roofline_ridge_and_single_token_layer():
    r = results_of("ref-7b-decode")
    assert value(r, "layer-batch-1", "accelerator", "ridge_point") == pytest.approx(100)
    assert round(value(r, "layer-batch-1", "accelerator", "intensity"), 2) == 1.00
    assert value(r, "layer-batch-1", "accelerator", "flops") == pytest.approx(33.55e6, rel=1e-3)
    assert round(value(r, "layer-batch-1", "accelerator", "attainable_rate") / 1e12) == 2
    assert value(r, "layer-batch-1", "accelerator", "bound") == "memory"


def test_batch_64_layer():
    r = results_of("ref-7b-decode")
    assert value(r, "layer-batch-64", "accelerator", "flops") == pytest.approx(2.147e9, rel=1e-3)
    assert round(value(r, "layer-batch-64", "accelerator", "bytes") / 1e6, 1) == 34.6
    assert round(value(r, "layer-batch-64", "accelerator", "intensity")) == 62
    assert round(value(r, "layer-batch-64", "accelerator", "attainable_rate") / 1e12) == 124


def test_7b_decode_batch_1():
    r = results_of("ref-7b-decode")
    assert value(r, "decode-batch-1", "accelerator", "weights_bytes") == 14e9
    assert value(r, "decode-batch-1", "accelerator", "step_time") == pytest.approx(7e-3)
    assert round(value(r, "decode-batch-1", "accelerator", "decode_tokens_per_s")) == 143
    assert value(r, "decode-batch-1", "accelerator", "step_compute_time") == pytest.approx(0.07e-3)
    assert value(r, "decode-batch-1", "accelerator", "step_flops") == pytest.approx(14e9)
    assert value(r, "decode-batch-1", "accelerator", "bound") == "memory"


def test_7b_decode_batch_64():
    r = results_of("ref-7b-decode")
    assert value(r, "decode-batch-64", "accelerator", "step_time") == pytest.approx(7e-3)
    assert round(value(r, "decode-batch-64", "accelerator", "decode_tokens_per_s"), -2) == 9100
    assert round(value(r, "decode-batch-64", "accelerator", "tokens_per_s_per_user")) == 143
    assert value(r, "decode-batch-64", "accelerator", "compute_bound_batch") == pytest.approx(100)


def test_kv_cache_not_counted_without_architecture_is_a_warning():
    r = results_of("ref-7b-decode")
    assert "kv_bytes_per_token" not in r.pair("decode-batch-1", "accelerator").values
    (w,) = [p for p in r.problems if "KV cache" in p.message]
    assert w.level == "warning" and w.path == "models.7b" and (w.line, w.col) == (17, 3)


def test_batch_sweep_turns_compute_bound():
    r = results_of("ref-7b-decode")
    s = next(s for s in r.sweeps if s.workload == "decode-batch-64")
    assert list(s.series["accelerator"]["bound"][:7]) == ["memory"] * 7
    assert [c for c in s.crossovers if c.kind == "compute_bound"] == [
        Crossover("compute_bound", "decode-batch-64", "batch", 128.0, device="accelerator")]


def test_precision_footprints():
    r = results_of("ref-precision-footprints")
    (s,) = r.sweeps
    assert s.values == ["fp32", "bf16", "fp8", "int4"]
    assert [b / 1e9 for b in s.series["accelerator"]["weights_bytes"]] == [28, 14, 7, 3.5]


def test_embedding_service():
    r = results_of("ref-embedding-service")
    assert value(r, "queries", "cpu-server", "flops_per_request") == pytest.approx(3.2e9)
    assert value(r, "queries", "cpu-server", "latency") == pytest.approx(64e-3)
    assert round(value(r, "queries", "cpu-server", "requests_per_s"), 1) == 15.6
    assert value(r, "queries", "cpu-server", "devices_needed") == 2
    assert value(r, "queries", "gpu", "compute_time") == pytest.approx(0.16e-3)
    assert round(value(r, "queries", "cpu-server", "item_time"), 2) == 2.05
    assert round(value(r, "queries", "cpu-server", "batch_job_time") / 86400, 1) == 23.7
    assert value(r, "queries", "gpu", "item_time") == pytest.approx(5.12e-3)
    assert round(value(r, "queries", "gpu", "batch_job_time") / 3600, 2) == 1.42
    assert r.decision.recommendation == "cpu-server"


def test_fine_tuning_state():
    r = results_of("ref-finetune-7b")
    assert value(r, "full", "accelerator", "state_bytes") == 112e9
    assert value(r, "full", "accelerator", "fits_one_device") is False
    assert value(r, "full", "accelerator", "devices_to_fit") == 2
    assert value(r, "full", "accelerator", "fits") is False            # the scenario asks about one device
    assert value(r, "lora", "accelerator", "frozen_bytes") == 14e9
    assert value(r, "lora", "accelerator", "fits") is True
    assert value(r, "full", "accelerator", "flops") == pytest.approx(6 * 7e9 * 1e9)


def test_classifier():
    r = results_of("ref-classifier")
    assert value(r, "routing", "cpu-server", "flops_per_request") == pytest.approx(6.4e8)
    assert value(r, "routing", "cpu-server", "latency") == pytest.approx(12.8e-3)
    assert value(r, "routing", "cpu-server", "meets_latency") is True
    assert r.decision.recommendation == "cpu-server"


def test_edge_model_footprints():
    r = results_of("ref-edge-model")
    (s,) = r.sweeps
    assert s.values == ["fp32", "int8"]
    assert [b / 1e6 for b in s.series["phone-npu"]["footprint_bytes"]] == [12, 3]


def test_benchmark_record_economics():
    r = results_of("ref-benchmark-economics")
    assert round(value(r, "record-7b-a", "accelerator-A (placeholder)", "cost_per_million_tokens"), 2) == 0.37
    at = value(r, "record-7b-a", "accelerator-A (placeholder)", "cost_per_million_tokens_at_utilisation")
    assert round(at, 2) == 0.93
    assert value(r, "record-7b-a", "accelerator-A (placeholder)", "effective_throughput") == pytest.approx(600)


def test_70b_on_real_devices():
    r = results_of("chat-70b-fp8")
    assert value(r, "chat", "h100", "weights_bytes") == pytest.approx(70553706496)
    # 2 (K, V) x 80 layers x 8 kv heads x 128 x 1 byte (fp8)
    assert value(r, "chat", "h100", "kv_bytes_per_token") == 163840
    # one H100 keeps a 10 % reserve: 72 GB is less than the weights and the batch's KV cache, so a replica is two
    assert value(r, "chat", "h100", "replica_memory") == pytest.approx(2 * 80e9 * 0.9)
    assert value(r, "chat", "h100", "fits") is True
    kv = 2300 * 163840                                       # context x KV bytes per token
    chunk = 8192 * (2 * 8192 + 28672) * 2                    # workspace of a full prefill chunk
    assert value(r, "chat", "h100", "max_batch") == (144e9 - 70553706496 - chunk) // kv
    assert value(r, "chat", "h100", "communication_time") > 0
    # the MI300X fleet is the cheapest held all month; renting its busy hours only costs less still
    fleets = [o for o in r.decision.options if o.variant == "fleet" and o.passes]
    assert fleets[0].device == "mi300x" and r.written.decision.recommendation == "mi300x busy hours"
    assert r.decision.recommendation == "mi300x b21 busy hours"      # at the batch sizing found for it


def test_crossover_size_without_a_sweep():
    from sizing.evaluate import evaluate
    from sizing.scenario import load_scenario_bytes
    text = (ROOT / "scenarios" / "ref-link-matmul.yaml").read_text().replace(
        "sweep: {size: [128, 256, 512, 1024, 4096]}\n", "")
    scn, _ = load_scenario_bytes(text.encode(), "s.yaml", base=ROOT / "scenarios")
    r = evaluate(scn)
    assert r.sweeps == []
    (c,) = r.crossovers
    swept = next(x for x in results_of("ref-link-matmul").sweeps[0].crossovers if x.kind == "faster")
    assert c.workload == "link-demo" and c.faster == "accelerator" and c.parameter == "size"
    assert c.at == pytest.approx(swept.at, rel=1e-3)


def test_lora_skips_the_frozen_weight_gradients():
    r = results_of("ref-finetune-7b")
    assert value(r, "lora", "accelerator", "flops") == pytest.approx((4 * 7e9 + 2 * 7e7) * 1e9)


def test_a_precision_sweep_keeps_an_explicit_kv_precision():
    from sizing.evaluate import evaluate
    from sizing.scenario import load_scenario_bytes
    text = """\
sizing: 1
name: kv
devices:
  acc: {from: illustrative-accelerator, compute: {fp8: 400 TFLOP/s}}
workloads:
  chat: {kind: generate, model: llama-3.1-8b, precision: bf16, kv_precision: fp8, batch: 4}
sweep: {precision: [bf16, fp8]}
"""
    r = evaluate(load_scenario_bytes(text.encode(), "s.yaml")[0])
    assert r.pair("chat", "acc").values["kv_bytes_per_token"] == 65536
    assert r.sweeps[0].series["acc"]["kv_bytes_per_token"] == [65536, 65536]
