"""How far to trust sizing's defaults: every published measurement predicted at the defaults.

    python -m sizing.accuracy              the accuracy table (markdown), as in the README
    python -m sizing.accuracy --implied    per record, the efficiency that would match it; per family the
                                           median and spread of those on the calibration records

Each record becomes a one-pair scenario (its device from the catalog, its model, precision, batch,
lengths and parallel layout) evaluated at the device family's defaults. Records whose index within
their category is 2 mod 3 are held out: they were not used to choose any default.
"""

from __future__ import annotations

import argparse
import math
import statistics
from dataclasses import dataclass

import yaml

from .catalog import measurements

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
# Per record: what the source leaves out, stated here as an assumption (shown in the table's notes).
ASSUME = {
    # llama.cpp: GGUF Q4_0 is 4.5 bits per weight; q4_K_M ~4.8 (nearest format: int4 with group 32)
    "llamacpp-a100-80gb-llama-2-70b-q4-0-tg": {"precision": "q4_0"},
    "llamacpp-h100-pcie-llama-2-70b-q4-0-tg": {"precision": "q4_0"},
    "llamacpp-m2-ultra-llama-2-70b-q4-0-tg": {"precision": "q4_0"},
    "llamacpp-gcp-c3-spr-llama-2-q4-k-m-decode": {"precision": "int4-g32"},
    # MLPerf Llama 2 70B (OpenOrca): mean output ~290 tokens (derived in the record), mean input ~300
    "mlperf-v4.1-h100x8-llama-2-70b-offline": {"input_tokens": 300, "output_tokens": 290, "replica": 2},
    "mlperf-v4.1-mi300x8-llama-2-70b-offline": {"input_tokens": 300, "output_tokens": 290, "replica": 1},
    "mlperf-v4.1-mi300x1-llama-2-70b-offline": {"input_tokens": 300, "output_tokens": 290, "replica": 1},
    "mlperf-v4.1-xeon8592-2s-bert-large-offline": {"replica": 1, "batch": 32},
    "nemo-a100-llama-2-7b-bs1-128-20-latency": {"precision": "bf16"},
    "nemo-h100-llama-2-7b-bs1-128-20-latency": {"precision": "bf16"},
    "llama2-model-card-llama-2-7b-gpu-hours": {"devices": 256, "batch": 1024, "sequence_length": 4096},
    "llama2-model-card-llama-2-70b-gpu-hours": {"devices": 2048, "batch": 1024, "sequence_length": 4096,
                                                "parallel": {"tensor": 8}},
    "llama31-model-card-llama-3.1-8b-gpu-hours": {"precision": "bf16", "devices": 1024, "batch": 2048,
                                                  "sequence_length": 8192},
    "llama31-model-card-llama-3.1-70b-gpu-hours": {"precision": "bf16", "devices": 2048, "batch": 2048,
                                                   "sequence_length": 8192, "parallel": {"tensor": 8}},
    "llama31-model-card-llama-3.1-405b-gpu-hours": {"precision": "bf16", "devices": 16384, "batch": 2048,
                                                    "sequence_length": 8192,
                                                    "parallel": {"tensor": 8, "pipeline": 16}},
}
# Records not predicted, and why.
SKIP = {
    "mlperf-v4.1-b200x1-llama-2-70b-offline": "precision not stated (FP4 by NVIDIA's account, unverified)",
    "mlperf-v4.1-h100x8-mixtral-8x7b-offline": "prompt and output lengths of the mixed dataset not stated",
}
DECODE_OUTPUT = 128          # llama.cpp tg runs: tokens generated from an empty prompt, when not stated
BATCH_CAP = 1024             # a runtime's largest batch when the record does not state it
TRAIN_STEPS = 100            # steps simulated for a training-throughput record


@dataclass
class Row:
    id: str
    category: str
    device: str
    measured: float
    predicted: float | None
    held_out: bool
    note: str = ""

    @property
    def ratio(self) -> float | None:
        return None if not self.predicted else self.predicted / self.measured


def workload_of(r: dict) -> tuple[dict, str, float]:
    """The workload that predicts record `r`, the quantity to read, and the factor turning it into the metric."""
    a = {**r, **ASSUME.get(r["id"], {})}
    model = MODELS.get(a["model"], a["model"])
    metric, cat = a["metric"], a["category"]
    precision = a.get("precision") or "bf16"
    devices = a.get("devices", 1)
    replica = a.get("replica", devices)
    par = {k: v for k, v in (a.get("parallel") or {}).items() if v}
    if cat == "training":
        w = {"kind": "train", "model": model, "precision": precision, "devices": devices,
             "sequence": a.get("sequence_length", 4096), "batch": a.get("batch", 512)}
        tp, pp = par.get("tensor", 1), par.get("pipeline", 1)
        if tp * pp > 1:
            w["parallel"] = {"tensor": tp, "pipeline": pp}
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
    if cat == "decode_batch1":
        return w, "tokens_per_s_per_user", 1.0
    return w, "tokens_per_s", devices / replica


def predict(r: dict, device_fields: dict | None = None) -> float | None:
    """The prediction of record `r` at the defaults (or with `device_fields` set on the device)."""
    from .evaluate import evaluate
    from .scenario import load_scenario_bytes

    w, qid, factor = workload_of(r)
    dev = {"from": DEVICES.get(r["device"], r["device"]), **(device_fields or {})}
    doc = {"sizing": 1, "name": "record", "devices": {"d": dev}, "workloads": {"w": w}}
    scn, problems = load_scenario_bytes(yaml.safe_dump(doc).encode(), f"{r['id']}.yaml")
    if scn is None:
        raise ValueError(f"{r['id']}: " + "; ".join(str(p) for p in problems if p.level == "error"))
    if "batch" not in w and w["kind"] == "generate":
        fit = evaluate(scn).pair("w", "d").get("max_batch") or 1
        w["batch"] = int(max(1, min(fit, BATCH_CAP)))
        return predict_with(w, dev, qid, factor, r)
    v = evaluate(scn).pair("w", "d").get(qid)
    if v is None:
        return None
    return v * factor if qid != "duration" else factor / v


def predict_with(w: dict, dev: dict, qid: str, factor: float, r: dict) -> float | None:
    from .evaluate import evaluate
    from .scenario import load_scenario_bytes

    doc = {"sizing": 1, "name": "record", "devices": {"d": dev}, "workloads": {"w": w}}
    scn, _ = load_scenario_bytes(yaml.safe_dump(doc).encode(), f"{r['id']}.yaml")
    v = evaluate(scn).pair("w", "d").get(qid)
    return None if v is None else v * factor


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


def measured(r: dict) -> float:
    return r["value"] * (100 if r["metric"] == "mfu" else 1)


def rows() -> list[Row]:
    from .scenario import catalog

    records = measurements()
    out_ = held_out(records)
    devices, _, _ = catalog()
    table = []
    for r in records:
        dev = DEVICES.get(r["device"], r["device"])
        if r["id"] in SKIP:
            table.append(Row(r["id"], r["category"], dev, r["value"], None, r["id"] in out_, SKIP[r["id"]]))
            continue
        if r["metric"] == "mfu":
            from .catalog import family_defaults
            kind = devices[dev].get("kind")
            guess = float(str(family_defaults()[kind]["train_efficiency"]["value"]).rstrip(" %"))
            table.append(Row(r["id"], r["category"], dev, measured(r), guess, r["id"] in out_,
                             "model-FLOPs utilisation: the family default against the measured"))
            continue
        table.append(Row(r["id"], r["category"], dev, r["value"], predict(r), r["id"] in out_))
    return table


def summary(table: list[Row]) -> list[tuple[str, int, float, float, float, float]]:
    """Per category: records, median and worst predicted/measured (worst = furthest from 1), median and
    worst on the held-out records."""
    out = []
    for cat in dict.fromkeys(r.category for r in table):
        ratios = [r.ratio for r in table if r.category == cat and r.ratio]
        held = [r.ratio for r in table if r.category == cat and r.ratio and r.held_out]
        worst = max(ratios, key=lambda x: abs(math.log(x)))
        hworst = max(held, key=lambda x: abs(math.log(x))) if held else math.nan
        out.append((cat, len(ratios), statistics.median(ratios), worst,
                    statistics.median(held) if held else math.nan, hworst))
    return out


def markdown(table: list[Row]) -> str:
    lines = ["| Category | Records | Median predicted / measured | Worst | Held out: median | Held out: worst |",
             "|---|---:|---:|---:|---:|---:|"]
    for cat, n, med, worst, hmed, hworst in summary(table):
        lines.append(f"| {cat} | {n} | {med:.2f} | {worst:.2f} | {hmed:.2f} | {hworst:.2f} |")
    lines += ["", "| Record | Device | Measured | Predicted | Ratio | |", "|---|---|---:|---:|---:|---|"]
    for r in table:
        pred = f"{r.predicted:.4g}" if r.predicted else "not predicted"
        ratio = f"{r.ratio:.2f}" if r.ratio else ""
        tag = "held out" if r.held_out else ""
        lines.append(f"| {r.id} | {r.device} | {r.measured:.4g} | {pred} | {ratio} | {tag} {r.note}".rstrip() + " |")
    return "\n".join(lines)


# The figure each category's records inform.
INFORMS = {"decode_batch1": "bandwidth_efficiency", "ttft": "efficiency", "encoder_latency": "efficiency",
           "encoder_throughput": "efficiency", "training": "train_efficiency",
           "throughput_large_batch": "bandwidth_efficiency"}
TIMES = ("ttft_ms", "ms_per_output_token", "latency_ms", "gpu_hours")


def implied(r: dict) -> float | None:
    """The value of the figure the record informs that makes the prediction match it (bisection on a log
    scale between 2 % and 100 %); None when even 100 % is too slow."""
    if r["metric"] == "mfu":
        return r["value"]
    name = INFORMS[r["category"]]
    slower = r["metric"] in TIMES

    def gap(x: float) -> float:
        p = predict(r, {name: f"{x * 100:.6g} %"})
        return math.log(p / r["value"]) * (-1 if slower else 1)

    lo, hi = 0.02, 1.0
    if gap(hi) < 0:
        return None
    for _ in range(30):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if gap(mid) < 0 else (lo, mid)
    return math.sqrt(lo * hi)


def implied_table() -> str:
    from .scenario import catalog

    devices, _, _ = catalog()
    records = [r for r in measurements() if r["id"] not in SKIP]
    out_ = held_out(records)
    by: dict[tuple[str, str], list[float]] = {}
    lines = ["| Record | Family | Figure | Implied | |", "|---|---|---|---:|---|"]
    for r in records:
        dev = DEVICES.get(r["device"], r["device"])
        family = devices[dev].get("kind")
        name = "train_efficiency" if r["metric"] == "mfu" else INFORMS[r["category"]]
        x = implied(r)
        tag = "held out" if r["id"] in out_ else ""
        lines.append(f"| {r['id']} | {family} | {name} | {'' if x is None else f'{x:.1%}'} | {tag} |")
        if x is not None and not tag:
            by.setdefault((family, name), []).append(x)
    lines += ["", "| Family | Figure | Records | Median | Low | High |", "|---|---|---:|---:|---:|---:|"]
    for (family, name), xs in sorted(by.items()):
        lines.append(f"| {family} | {name} | {len(xs)} | {statistics.median(xs):.1%} | {min(xs):.1%} | "
                     f"{max(xs):.1%} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m sizing.accuracy", description=__doc__.split("\n\n")[0])
    ap.add_argument("--implied", action="store_true", help="the efficiency each record implies, per family")
    args = ap.parse_args(argv)
    print(implied_table() if args.implied else markdown(rows()))


if __name__ == "__main__":
    main()
