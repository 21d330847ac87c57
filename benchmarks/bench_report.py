"""Wall time of rendering each shipped scenario's PDF report (reported, not asserted)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(paths: list[Path]) -> None:
    t0 = time.perf_counter()
    from sizing.evaluate import evaluate
    from sizing.render.report import build_context, report_bytes
    from sizing.scenario import load_scenario
    import weasyprint  # noqa: F401  (imported here so that the first scenario's time is its own)
    print(f"{'imports':<32} {time.perf_counter() - t0:7.2f} s")
    total = 0.0
    for path in paths:
        scn, problems = load_scenario(path)
        if scn is None:
            print(f"{path.name:<32} does not load: {problems[0]}")
            continue
        t = time.perf_counter()
        results = evaluate(scn)
        t_eval = time.perf_counter() - t
        t = time.perf_counter()
        build_context(results, (path.name,))
        t_ctx = time.perf_counter() - t
        t = time.perf_counter()
        pdf = report_bytes(results)
        t_pdf = time.perf_counter() - t
        total += t_eval + t_pdf
        print(f"{path.name:<32} {t_eval + t_pdf:7.2f} s  (evaluate {t_eval:.2f}, report {t_pdf:.2f} of which "
              f"context and charts {t_ctx:.2f}; {len(pdf) / 1024:.0f} kB)")
    print(f"{'total':<32} {total:7.2f} s")


if __name__ == "__main__":
    main([Path(p) for p in sys.argv[1:]] or sorted((ROOT / "scenarios").glob("*.yaml")))
