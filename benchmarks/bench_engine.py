"""Engine speed: (workload, device, batch) points per second of a vectorised sweep on one core, against
llm-analysis' rate per configuration measured in the same run; and `sizing evaluate` on the largest scenario."""

from __future__ import annotations

import logging
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.targets import SIZING, verdict, wall_seconds  # noqa: E402
from sizing.evaluate import evaluate  # noqa: E402
from sizing.scenario import load_scenario_bytes  # noqa: E402

POINTS = 1_000_000
TARGET = 2_000_000        # sweep points per second (issue 18)


def sweep_rate(runs: int = 3) -> tuple[int, float]:
    """Evaluate a batch sweep of POINTS values on every device of the 70B scenario: the points and the median
    seconds of `runs` evaluations (the first includes importing scipy's special functions)."""
    text = (ROOT / "scenarios" / "chat-70b-fp8.yaml").read_text()
    text = re.sub(r"^sweep: .*$", f"sweep: {{batch: {{from: 1, to: {POINTS}, points: {POINTS}}}}}", text, flags=re.M)
    scn, problems = load_scenario_bytes(text.encode(), "bench.yaml", base=ROOT / "scenarios")
    assert scn is not None, problems
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        r = evaluate(scn)
        times.append(time.perf_counter() - start)
    s = r.sweeps[0]
    return len(s.values) * len(s.series), statistics.median(times)


def llm_analysis_rate(configs: int = 400) -> float | None:
    """Configurations per second of llm-analysis (PyPI 0.2.2): Llama 2 7B on an A100 at batch 1..200 (twice), 512 prompt
    and 128 output tokens, its logging silenced (printing is not the computation). None when not installed."""
    try:
        import transformers  # noqa: F401  (llm-analysis imports it; imported first so that its notice is not timed)
        from llm_analysis.analysis import LLMAnalysis
        from llm_analysis.config import get_dtype_config_by_name, get_gpu_config_by_name, get_model_config_by_name
    except ImportError:
        return None
    logging.disable(logging.CRITICAL)
    a = LLMAnalysis(get_model_config_by_name("NousResearch_Llama-2-7b-hf"), get_gpu_config_by_name("a100-sxm-80gb"),
                    get_dtype_config_by_name("w16a16e16"), flops_efficiency=0.6, hbm_memory_efficiency=0.8)
    start = time.perf_counter()
    for i in range(configs):
        a.inference(batch_size_per_gpu=1 + i % 200, seq_len=512, num_tokens_to_generate=128)
    return configs / (time.perf_counter() - start)


def main() -> None:
    n, t = sweep_rate()
    rate = n / t
    print(f"sweep: {n:,} (workload, device, batch) points in {t:.2f} s (median of 3; evaluate every quantity, keep what "
          "the outputs show, find crossovers; one core)")
    print(verdict("sweep rate", rate / 1e6, TARGET / 1e6, "M points/s", higher=True))
    peer = llm_analysis_rate()
    if peer is None:
        print("llm-analysis: not installed (pip install llm-analysis==0.2.2 to compare)")
    else:
        print(f"llm-analysis 0.2.2, same run: {peer:,.0f} configurations/s; sizing's sweep is {rate / peer:,.0f}x that")
    largest = max((ROOT / "scenarios").glob("*.yaml"), key=lambda p: p.stat().st_size)
    print(f"sizing evaluate {largest.name}: {wall_seconds([*SIZING, 'evaluate', str(largest)]):.2f} s wall "
          "(median of 3, interpreter start included)")


if __name__ == "__main__":
    main()
