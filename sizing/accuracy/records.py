"""The published measurements as one-pair scenarios: what the source leaves out, stated, and the prediction."""

from __future__ import annotations

import yaml


# Record fields that name things the catalog calls otherwise.
DEVICES = {
    "NVIDIA A100 80GB (RunPod; SXM vs PCIe not stated)": "nvidia-a100-80gb-pcie",
    "NVIDIA A100 40GB": "nvidia-a100-40gb-sxm",
    "NVIDIA T4 16GB": "nvidia-t4",
    "NVIDIA GeForce RTX 4090 24GB": "nvidia-rtx-4090",
    "Apple M2 Ultra (76-core GPU, 192 GB)": "apple-m2-ultra",
    "Intel Gaudi 2 (HL-225H)": "intel-gaudi2",
    "Intel Xeon Platinum 8592+ (Emerald Rapids, 64 cores)": "intel-xeon-platinum-8592plus",
    "Intel Xeon W-2123 (4 cores / 8 threads)": "intel-xeon-w-2123",
    "Intel Xeon 4th gen Sapphire Rapids (GCP c3-highcpu-44, 22 threads)": "intel-xeon-sapphire-rapids-c3-22c",
}
MODELS = {"meta-llama/Llama-3.3-70B-Instruct": "llama-3.3-70b", "meta-llama/Meta-Llama-3-8B": "llama-3-8b",
          "meta-llama/Meta-Llama-3-70B": "llama-3-70b"}
# The mean real tokens of a SQuAD v1.1 sample cut at 384 tokens: 172 from Graphcore's length histogram
# (graphcore/tutorials blogs_code/packedBERT/histograms.py), 177 from "padding accounts for 54 % of the total input
# tokens" (Zhang et al., ISPASS 2021); neither names the split (MLPerf runs the dev set).
SQUAD_TOKENS = 175
# OpenVINO's synchronous (latency) runs: its latency hint runs one stream on "the number of P-cores ... on one
# socket" (docs.openvino.ai/2024 .../cpu-device/performance-hint-and-thread-scheduling.html), so one socket of the
# two-socket systems the benchmark table names.
OV_LATENCY = ("ov2024.1-xeon8580-2s-bert-base-int8-latency", "ov2024.1-xeon8580-2s-bert-large-int8-latency",
              "ov2024.3-xeon8480-2s-bert-base-int8-latency", "ov2024.3-xeon8480-2s-bert-base-bf16-latency",
              "ov2024.3-xeon8480-2s-bert-large-int8-latency", "ov2024.3-xeon8480-2s-bert-large-bf16-latency",
              "ov2024.3-xeon8580-2s-bert-base-int8-latency", "ov2024.3-xeon8580-2s-bert-large-int8-latency")
# Per record: what the source leaves out, stated here as an assumption (shown in the table's notes).
ASSUME = {
    # llama.cpp: GGUF Q4_0 is 4.5 bits per weight; q4_K_M ~4.8 (nearest format: int4 with group 32)
    "llamacpp-a100-80gb-llama-2-70b-q4-0-tg": {"precision": "q4_0"},
    "llamacpp-h100-pcie-llama-2-70b-q4-0-tg": {"precision": "q4_0"},
    "llamacpp-m2-ultra-llama-2-70b-q4-0-tg": {"precision": "q4_0"},
    "llamacpp-gcp-c3-spr-llama-2-q4-k-m-decode": {"precision": "int4-g32"},
    # MLPerf Llama 2 70B (OpenOrca, 24,576 samples): ~290 output tokens a sample (derived in the record; the
    # reference gives 294.45, mlcommons/inference language/llama2-70b/README.md); 222 input tokens, the mean of the official
    # dataset's tok_input_length as extracted per sample by openshift-psap/performance-dashboard
    # (mlperf-data/summaries/llama2-70b-99.csv @ 7cd1065; the same extraction reproduces MLCommons' Mixtral
    # output mean to the digit). Mixtral's mixed dataset: 427 input tokens (mixtral-8x7b.csv @ 67033ba), output
    # derived in each record. Llama 3.1 8B (CNN-DailyMail): 871 (llama3-1-8b-datacenter.csv @ 7cd1065).
    "mlperf-v4.1-h100x8-llama-2-70b-offline": {"input_tokens": 222, "output_tokens": 290, "replica": 2},
    "mlperf-v4.1-mi300x8-llama-2-70b-offline": {"input_tokens": 222, "output_tokens": 290, "replica": 1},
    "mlperf-v4.1-mi300x1-llama-2-70b-offline": {"input_tokens": 222, "output_tokens": 290, "replica": 1},
    "mlperf-v4.1-xeon8592-2s-bert-large-offline": {"replica": 1, "batch": 32, "sequence_length": SQUAD_TOKENS},
    # MLPerf BERT (SQuAD v1.1, at most 384 tokens): the harnesses drop the padding (NVIDIA's README says so; at 384
    # tokens H100's 9,082 samples/s would exceed its int8 peak), so a sample is its real tokens on average
    **{i: {"devices": 1} for i in OV_LATENCY},
    **{i: {"sequence_length": SQUAD_TOKENS} for i in (
        "mlperf-v3.1-xeon8480-2s-bert-large-offline", "mlperf-v4.1-xeon6980p-2s-bert-large-offline",
        "mlperf-v4.0-nvidia-h100-sxm-80gb-x1-bert99-offline", "mlperf-v3.1-nvidia-l4-x1-bert99-offline",
        "mlperf-v3.0-nvidia-a100-sxm-80gb-x1-bert99-offline", "mlperf-v4.0-dell-r760xa-l40s-x4-bert99-offline-per-gpu")},
    # OCI: tokens per second = 128 output tokens / the whole request's latency (prefill included)
    "oci-mi300x8-llama-3.1-405b-fp8-bs1-128-128": {"metric": "output_tokens_per_request_s"},
    "nemo-a100-llama-2-7b-bs1-128-20-latency": {"precision": "bf16"},
    "nemo-h100-llama-2-7b-bs1-128-20-latency": {"precision": "bf16"},
    "llama2-model-card-llama-2-7b-gpu-hours": {"devices": 256, "batch": 1024, "sequence_length": 4096},
    # GPU-hour totals: the cards state neither the devices nor the layout: an assumed count, tensor parallel
    # within a server for 70B; for 405B the Llama 3 paper's TP8 x PP16 with its interleaved schedule
    # (16 micro-batches x 8 virtual stages counted as 128 micro-batches)
    "llama2-model-card-llama-2-70b-gpu-hours": {"devices": 2048, "batch": 1024, "sequence_length": 4096,
                                                "parallel": {"tensor": 8}},
    "llama31-model-card-llama-3.1-8b-gpu-hours": {"precision": "bf16", "devices": 1024, "batch": 2048,
                                                  "sequence_length": 8192},
    "llama31-model-card-llama-3.1-70b-gpu-hours": {"precision": "bf16", "devices": 2048, "batch": 2048,
                                                   "sequence_length": 8192, "parallel": {"tensor": 8}},
    "llama31-model-card-llama-3.1-405b-gpu-hours": {"precision": "bf16", "devices": 16384, "batch": 2048,
                                                    "sequence_length": 8192,
                                                    "parallel": {"tensor": 8, "pipeline": 16, "micro_batches": 128}},
}
# Records not predicted, and why (a record may also say so itself: `skip: why`).
SKIP = {
    "mlperf-v4.1-b200x1-llama-2-70b-offline": "precision not stated (FP4 by NVIDIA's account, unverified)",
    "mlperf-v4.1-h100x8-mixtral-8x7b-offline": "precision not stated in the files read",
}
FAMILIES = ("gpu", "tpu", "accelerator", "cpu", "npu")                  # the device kinds defaults are chosen for
TIMES = ("ttft_ms", "ms_per_output_token", "latency_ms", "gpu_hours")   # metrics where lower is faster
# The family figure each category's records inform (training memory informs none: it checks the memory count).
INFORMS = {"decode_batch1": "bandwidth_efficiency", "throughput_large_batch": "bandwidth_efficiency",
           "ttft": "efficiency", "encoder_latency": "efficiency", "encoder_throughput": "efficiency",
           "training": "train_efficiency"}
DECODE_OUTPUT = 128          # llama.cpp tg runs: tokens generated from an empty prompt, when not stated
BATCH_CAP = 1024             # a runtime's largest batch when the record does not state it
TRAIN_STEPS = 100            # steps simulated for a training-throughput record


def assumed(r: dict) -> dict:
    """What record `r`'s prediction assumes where its source is silent: ASSUME's entry, or the record's own
    `assume:` block (which may also name the quantity to `read`, e.g. a continuous-batching runtime's time between
    tokens rather than the decode step)."""
    return {**ASSUME.get(r["id"], {}), **(r.get("assume") or {})}


def skipped(r: dict) -> str | None:
    """Why record `r` is not predicted, if it is not."""
    return SKIP.get(r["id"]) or r.get("skip")


def workload_of(r: dict) -> tuple[dict, str, float]:
    """The workload that predicts record `r`, the quantity to read, and the factor turning it into the metric."""
    w, qid, factor = _workload_of(r)
    read = assumed(r).get("read")
    return (w, read, factor) if read else (w, qid, factor)


def _workload_of(r: dict) -> tuple[dict, str, float]:
    a = {**r, **assumed(r)}
    model = MODELS.get(a["model"], a["model"])
    metric, cat = a["metric"], a["category"]
    precision = a.get("precision") or "bf16"
    devices = a.get("devices", 1)
    replica = a.get("replica", devices)
    par = {k: v for k, v in (a.get("parallel") or {}).items() if v}
    if cat == "training_memory":             # the memory one device uses: the run's need over its devices, in GB
        w = {"kind": "train", "model": model, "precision": precision, "devices": devices, "method": a["method"],
             "optimizer": a["optimizer"], "recompute": a["recompute"], "sequence": a["sequence_length"],
             "batch": a["batch"], "tokens": a["batch"] * a["sequence_length"] * TRAIN_STEPS,
             "parallel": {"micro_batches": 1},                # the batch in one pass (no gradient accumulation)
             **({"trainable": a["trainable"]} if "trainable" in a else {})}
        return w, "train_memory_required", 1 / (devices * 1e9)
    if cat == "training":
        w = {"kind": "train", "model": model, "precision": precision, "devices": devices,
             "sequence": a.get("sequence_length", 4096), "batch": a.get("batch", 512)}
        tp, pp = par.get("tensor", 1), par.get("pipeline", 1)
        if tp * pp > 1:
            w["parallel"] = {"tensor": tp, "pipeline": pp}
            if "micro_batches" in par:
                w["parallel"]["micro_batches"] = par["micro_batches"]
        if metric == "gpu_hours":
            w["tokens"] = a["tokens_trained"]
            return w, "device_hours", 1 / 3600
        w["tokens"] = w["batch"] * w["sequence"] * TRAIN_STEPS
        return w, "duration", w["tokens"] / devices
    if cat.startswith("encoder"):
        w = {"kind": "forward", "model": model, "precision": precision, "batch": a.get("batch", 1),
             "tokens": a.get("sequence_length", 128), "devices": replica}
        if metric == "latency_ms":
            return w, "latency", 1e3
        return w, "requests_per_s", devices / replica
    w = {"kind": "generate", "model": model, "precision": precision, "devices": replica,
         "input_tokens": a.get("input_tokens") or 1,
         "output_tokens": a.get("output_tokens") or (DECODE_OUTPUT if cat == "decode_batch1" else 1)}
    if "tensor" in par and replica == devices and par["tensor"] * par.get("pipeline", 1) == replica:
        w["parallel"] = {"tensor": par["tensor"], "pipeline": par.get("pipeline", 1)}
    if a.get("batch"):
        w["batch"] = a["batch"]
    if metric == "ttft_ms":
        return w, "ttft", 1e3
    if metric == "ms_per_output_token":
        return w, "step_time", 1e3
    if metric == "latency_ms":
        return w, "request_latency", 1e3
    if metric == "output_tokens_per_request_s":
        return w, "request_latency", -w["output_tokens"]          # negative: tokens / the time read
    if cat == "decode_batch1":
        return w, "tokens_per_s_per_user", 1.0
    return w, "tokens_per_s", devices / replica


def pair_values(r: dict, device_fields: dict | None = None) -> tuple[dict, str, float]:
    """Every quantity of the record's pair (at the defaults, or with `device_fields` set on the device), the
    quantity its metric is read from, and the factor that reads it."""
    from ..evaluate import evaluate
    from ..scenario import load_scenario_bytes

    w, qid, factor = workload_of(r)
    dev = {"from": device_of(r), **(device_fields or {})}

    def run() -> dict:
        doc = {"sizing": 1, "name": "record", "devices": {"d": dev}, "workloads": {"w": w}}
        text = yaml.dump(doc, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper))      # libyaml's: 3x faster
        scn, problems = load_scenario_bytes(text.encode(), f"{r['id']}.yaml")
        if scn is None:
            raise ValueError(f"{r['id']}: " + "; ".join(str(p) for p in problems if p.level == "error"))
        return evaluate(scn).pair("w", "d").values

    values = run()
    if "batch" not in w and w["kind"] == "generate":       # the runtime's batch: as large as fits, up to a cap
        w["batch"] = int(max(1, min(values.get("max_batch") or 1, BATCH_CAP)))
        values = run()
    return values, qid, factor


def predict(r: dict, device_fields: dict | None = None) -> float | None:
    """The prediction of record `r` at the defaults (or with `device_fields` set on the device)."""
    if r["metric"] == "mfu":                  # a utilisation: the prediction is the training efficiency used
        return train_efficiency(r, device_fields or {})
    values, qid, factor = pair_values(r, device_fields)
    return reading(values.get(qid), qid, factor)


def reading(v: float | None, qid: str, factor: float) -> float | None:
    """The record's metric from the quantity read: times scale, a duration or a negative factor invert."""
    if v is None:
        return None
    return factor / v if qid == "duration" else -factor / v if factor < 0 else v * factor


def held_out(records: list[dict]) -> set[str]:
    """Every third record of each category (index 2 mod 3), in file order."""
    seen: dict[str, int] = {}
    out = set()
    for r in records:
        i = seen.get(r["category"], 0)
        seen[r["category"]] = i + 1
        if i % 3 == 2:
            out.add(r["id"])
    return out


def train_efficiency(r: dict, device_fields: dict) -> float:
    from ..catalog import family_defaults
    from ..binding import figure
    text = device_fields.get("train_efficiency") or family_defaults()[family_of(r)][figure_of(r)]["value"]
    return figure("train_efficiency", str(text))[0]


def narrow(r: dict) -> bool:
    """Whether the record's arithmetic is 8-bit or narrower (a weight-only format computes in 16 bits)."""
    from ..schema import PRECISION_BYTES, compute_precision
    precision = assumed(r).get("precision") or r.get("precision") or "bf16"
    return PRECISION_BYTES[compute_precision(precision)] <= 1


def figure_of(r: dict, device_fields: dict | None = None) -> str:
    """The defaults entry the record informs: its category's figure, for the width of its arithmetic; a
    large-batch record whose decode step is compute-bound (at the defaults, or with `device_fields` set) informs
    the compute efficiency."""
    from ..catalog import default_name
    name = "train_efficiency" if r["metric"] == "mfu" else INFORMS[r["category"]]
    if r["category"] == "throughput_large_batch" and pair_values(r, device_fields)[0].get("bound") == "compute":
        name = "efficiency"
    return default_name(name, 1 if narrow(r) else 2)


def device_of(r: dict) -> str:
    return DEVICES.get(r["device"], r["device"])


def family_of(r: dict) -> str:
    return family(device_of(r))


def family(device: str) -> str:
    """A catalog device's family (its kind)."""
    from ..scenario import catalog
    return catalog()[0][device].get("kind")
