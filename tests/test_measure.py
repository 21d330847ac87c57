"""`sizing measure` and `sizing calibrate`: the fitting code on synthetic timings with known answers, the processor
probe on given /proc texts, the accelerator path through a fake backend of the reference's figures, the CPU path for
real, device files used with `from:`, and calibration recovering a known efficiency from records."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from helpers import ROOT
from sizing.evaluate import evaluate
from sizing.measure.accel import COPY_SIZES, measure_accelerator
from sizing.measure.calibrate import calibrate
from sizing.measure.commands import checked_entry
from sizing.measure.fit import fit_link, golden, log_error, saturation
from sizing.measure.host import probe
from sizing.measure.profile import Measurement, accelerator_yaml
from sizing.measure.timing import Budget, Sample
from sizing.scenario import load_scenario, load_scenario_bytes


# -- fitting ------------------------------------------------------------------------------------------------
def test_a_link_fit_recovers_bandwidth_and_overhead_from_noisy_copies():
    rng = np.random.default_rng(3)
    sizes = np.array(COPY_SIZES, float)
    times = (10e-6 + sizes / 25e9) * rng.uniform(0.98, 1.02, len(sizes))       # the reference's link, 2 % noise
    fit = fit_link(sizes, times)
    assert fit.bandwidth == pytest.approx(25e9, rel=0.03)
    assert fit.overhead == pytest.approx(10e-6, rel=0.05)
    assert fit.worst < 0.03


def test_a_negative_overhead_is_noise_and_the_fit_goes_through_the_origin():
    sizes = np.array([1e6, 2e6, 4e6, 8e6])
    fit = fit_link(sizes, sizes / 10e9 * np.array([1.0, 1.0, 1.01, 1.02]))
    assert fit.overhead == 0.0 and fit.bandwidth == pytest.approx(10e9, rel=0.02)
    with pytest.raises(ValueError, match="two sizes"):
        fit_link([1e6], [1e-4])


def test_saturation_is_the_smallest_size_within_ninety_percent_of_the_best():
    sizes = [64, 128, 256, 512, 1024, 2048]
    rates = [1, 10, 50, 92, 100, 97]
    assert saturation(sizes, rates) == 512
    assert saturation(sizes[::-1], rates[::-1]) == 512                    # order does not matter
    assert saturation(sizes, [100, 1, 1, 1, 1, 1]) == 2048                # never levels off: the largest size
    assert saturation(sizes, [1, 10, 95, 50, 100, 97]) == 1024           # a dip after 256: it stays from 1024 on
    assert saturation(sizes, [1, 10, 50, 92, 100, 97], reference=55) == 256     # against the delivered figure


def test_golden_section_and_log_error():
    assert golden(lambda x: (np.log(x) - np.log(0.37)) ** 2, 0.01, 1.0) == pytest.approx(0.37, rel=1e-3)
    assert log_error([100, 200], [100, 200]) == 0
    assert log_error([110], [100]) == pytest.approx(np.log(1.1))


# -- the processor --------------------------------------------------------------------------------------------
CPUINFO = "\n\n".join(
    f"processor\t: {i}\nmodel name\t: Example Xeon\nphysical id\t: {i // 8}\ncore id\t\t: {i % 8 // 2}\n"
    f"cpu MHz\t\t: 3000.000\nflags\t\t: fpu sse2 avx avx2 fma" for i in range(16))       # 2 sockets x 4 cores x 2


def test_the_probe_counts_physical_cores_and_reads_the_vector_width(tmp_path):
    host = probe(CPUINFO, "MemTotal:       16384 kB\n", allowed=set(range(16)), sys_cpu=tmp_path)
    assert (host.model, host.logical, host.cores, host.vector_bits, host.fma_units) == ("Example Xeon", 16, 8, 256, 2)
    assert host.clock == 3e9 and "cpu MHz" in host.clock_source
    assert host.memory == 16384 * 1024
    # the reference's illustrative server CPU: 8 cores x 2 FMA units x 8 fp32 lanes x 2 x 3 GHz = 768 GFLOP/s
    assert host.peak(32) == pytest.approx(768e9) and host.peak(64) == pytest.approx(384e9)
    one = probe(CPUINFO, "", allowed={0, 1}, sys_cpu=tmp_path)              # the process may use one core's threads
    assert (one.logical, one.cores) == (2, 1)
    (tmp_path / "cpu0" / "cpufreq").mkdir(parents=True)
    (tmp_path / "cpu0" / "cpufreq" / "cpuinfo_max_freq").write_text("3700000\n")
    assert probe(CPUINFO, "", allowed={0}, sys_cpu=tmp_path).clock == 3.7e9


# -- the accelerator, through a fake backend of the reference's figures ----------------------------------------
class Fake:
    """An accelerator whose timings follow the reference's illustrative figures: 100 TFLOP/s fp32 delivered,
    200 bf16, 2 TB/s memory, a 25 GB/s host link with 10 us per copy (pageable at half the bandwidth), 8 us launch."""

    name, memory = "Fake accelerator", 80e9
    rates = {"fp32": 100e12, "bf16": 200e12}

    def __init__(self):
        self.rng = np.random.default_rng(7)

    def sample(self, t: float, repeat: int) -> Sample:
        return Sample(tuple(t * self.rng.uniform(0.995, 1.005, repeat)))

    def precisions(self):
        return tuple(self.rates)

    def matmul(self, n, precision, repeat):
        work = max(2.0 * n ** 3 / self.rates[precision], 3 * n * n * 4 / 2e12)
        return self.sample(8e-6 + work, repeat)

    def device_copy(self, nbytes, repeat):
        return self.sample(2.0 * nbytes / 2e12, repeat)

    def host_copy(self, nbytes, to_device, pinned, repeat):
        return self.sample(10e-6 + nbytes / (25e9 if pinned else 12.5e9), repeat)

    def launch(self, repeat):
        return self.sample(8e-6, repeat)


@pytest.fixture(scope="module")
def fake_measurement():
    from sizing.measure.cpu import Stream
    from sizing.measure.host import Host
    host = Host("Example host", 2, 2, 3e9, "given", ("avx2", "fma"), 256, True, 64e9, 32e6, "x86_64")
    accel = measure_accelerator(Fake(), Budget(60))
    return Measurement(host, "2026-12-04 12:00 UTC", 1.0, (), (Stream("copy", 2e9, Sample((0.1,))),), 2, 1e9,
                       accel, "test")


def test_the_accelerator_path_recovers_the_fake_devices_figures(fake_measurement):
    a = fake_measurement.accelerator
    assert a.delivered("fp32") == pytest.approx(100e12, rel=0.01)
    assert a.delivered("bf16") == pytest.approx(200e12, rel=0.01)
    assert a.memory_bandwidth == pytest.approx(2e12, rel=0.01)
    assert a.link.bandwidth == pytest.approx(25e9, rel=0.01) and a.link.overhead == pytest.approx(10e-6, rel=0.02)
    assert a.links["to device, pageable"].bandwidth == pytest.approx(12.5e9, rel=0.01)
    assert a.launch_overhead == pytest.approx(8e-6, rel=0.01)
    assert a.saturates_at("fp32") >= 1024                 # launch overhead dominates small products


def test_a_measured_accelerator_is_a_device_file_the_reference_example_reproduces_with(fake_measurement, tmp_path):
    text = accelerator_yaml(fake_measurement)
    assert checked_entry(text, tmp_path / "fake.yaml") == []
    (tmp_path / "fake.yaml").write_text(text)
    scenario = (ROOT / "scenarios" / "ref-link-matmul.yaml").read_text()
    given = ("    delivered: {fp32: 100 TFLOP/s}         # GPU_FLOPS = 100e12\n"
             "    link: {bandwidth: 25 GB/s, copy_overhead: 10 us, launch_overhead: 8 us}\n")
    assert given in scenario                          # the reference's figures, replaced by the measured file
    (tmp_path / "s.yaml").write_text(scenario.replace(given, "    from: fake.yaml\n"))
    scn, problems = load_scenario(tmp_path / "s.yaml")
    assert scn is not None, problems
    r = evaluate(scn)
    p = r.pair("link-demo", "accelerator")
    assert p is not None, [(q.workload, q.device) for q in r.pairs]
    # the reference: 562.8 us at n = 1024, 89 % of it on the link, 3.8 TFLOP/s effective
    assert p.values["total_time"] == pytest.approx(562.8e-6, rel=0.01)
    assert p.values["transfer_share"] == pytest.approx(0.89, abs=0.01)
    assert r.scenario.devices["accelerator"].values["link.bandwidth"].source.startswith("device file fake.yaml: ")


def test_a_bad_device_file_is_a_located_error(tmp_path):
    (tmp_path / "bad.yaml").write_text("name: x\nkind: gpu\nmemory: 80 GB/s\n")
    (tmp_path / "none.yaml").write_text("- a list\n")
    base = "sizing: 1\nname: s\ndevices:\n  d: {from: %s}\nworkloads:\n  w: {kind: matmul, m: 8, n: 8, k: 8}\n"
    _, problems = load_scenario_bytes((base % "bad.yaml").encode(), str(tmp_path / "s.yaml"), tmp_path)
    assert any(str(p).startswith(f"{tmp_path / 'bad.yaml'}:3:9: error: memory:") for p in problems), problems
    (tmp_path / "scenario.yaml").write_text(base % "bad.yaml")       # a scenario named as a device file: one line
    for name, words in (("none.yaml", "it is not a device entry"), ("missing.yaml", "cannot use 'missing.yaml'"),
                        ("scenario.yaml", "'scenario.yaml' is a scenario (it has `sizing:`, `devices:`, `workloads:`), "
                                          "not a device file; name a file `sizing measure -o` wrote")):
        _, problems = load_scenario_bytes((base % name).encode(), str(tmp_path / "s.yaml"), tmp_path)
        assert [f"{p.file}:{p.line}:{p.col}" for p in problems] == [f"{tmp_path / 's.yaml'}:4:13"], problems
        assert words in problems[0].message


# -- the processor, for real ---------------------------------------------------------------------------------------
def test_measure_quick_writes_a_device_entry_that_validates_and_a_chart(tmp_path):
    done = subprocess.run([sys.executable, "-c", "from sizing.cli import main; main()", "measure", "--quick",
                           "--no-accelerator", "-o", str(tmp_path / "me.yaml")], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert "measure: matmul fp32 n=64" in done.stderr and f"wrote {tmp_path / 'me.yaml'}" in done.stdout
    assert (tmp_path / "me.png").read_bytes()[:4] == b"\x89PNG"
    text = (tmp_path / "me.yaml").read_text()
    assert text.startswith("# Measured by `sizing measure`") and "kind: cpu" in text
    (tmp_path / "s.yaml").write_text("sizing: 1\nname: s\ndevices:\n  me: {from: me.yaml}\nworkloads:\n"
                                     "  w: {kind: matmul, m: 2048, n: 2048, k: 2048, precision: fp32}\n")
    scn, problems = load_scenario(tmp_path / "s.yaml")
    assert scn is not None and not problems, problems
    p = evaluate(scn).pair("w", "me")
    assert p.values["delivered_rate"] > 0 and p.values["total_time"] > 0
    bad = subprocess.run([sys.executable, "-c", "from sizing.cli import main; main()", "measure", "-o",
                          str(tmp_path / "me.txt")], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and "a device entry is a .yaml file" in bad.stderr and not (tmp_path / "me.txt").exists()


def test_a_matmul_sweep_reaches_a_large_product_whatever_its_budget():
    """Below n = 1,024 a product leaves the processor idle and its rate understates it: a sweep whose budget is spent
    still measures every size up to there (and stops after it)."""
    from sizing.measure.cpu import MIN_SWEPT, SIZES, matmul_sweep
    from sizing.measure.timing import Budget

    swept = matmul_sweep("fp32", Budget(0.0), 1.0, repeat=1)
    assert [p.n for p in swept.points] == [n for n in SIZES if n <= MIN_SWEPT] and MIN_SWEPT == 1024


@pytest.mark.slow
@pytest.mark.timing
def test_measured_figures_agree_with_independent_timings_in_the_same_run():
    """The issue's check: the matmul rate within 15 % of an independent numpy timing of a large product, the copy
    bandwidth within 15 % of an independent copy timing (plain threads, one per processor, as many as measure uses),
    in the same process. measure reports the faster of copy and triad, and a triad reads ~1.1x a copy (a copy's
    write allocates a line STREAM does not count: a third of its traffic against a quarter of a triad's), so the
    figure reported is held within 30 % of the copy (CI once read 1.16 for a triad against a copy). Timings on a
    machine other tests keep busy say nothing: an attempt whose runs differ by more than 20 % does not count. A shared
    machine's neighbours also change between measure's runs and the independent ones: of up to five attempts, a quiet
    one must agree within 15 % (an error of the tool's own fails every attempt) and every quiet one within 30 % (none
    quiet: skipped; a single quiet one off by 15-30 % tells neighbours from the tool no better: skipped too, as when
    the suite ran beside CI's and read 0.79 for the copy)."""
    from sizing.measure import measure

    quiet, noisy = [], []
    for _ in range(5):
        m = measure(seconds=12)
        n = 2048
        a, b = np.ones((n, n), np.float32), np.ones((n, n), np.float32)
        mm = timings(lambda: a @ b)
        src = np.ones(int(m.array_bytes // 8))
        dst = np.empty_like(src)
        cp = timings(lambda: threaded_copy(dst, src, m.threads), repeat=7)
        copy = next(s for s in m.streams if s.kernel == "copy")
        independent = 2 * src.nbytes / np.median(cp)
        got = (m.sweep("fp32").delivered / (2 * n ** 3 / np.median(mm)),       # medians, as measure reports
               copy.bandwidth / independent, m.bandwidth.bandwidth / independent)
        spreads = [m.sweep("fp32").spread, *(s.sample.spread for s in m.streams), spread(mm), spread(cp)]
        (quiet if max(spreads) <= 0.2 else noisy).append(got)
        if quiet and agree(quiet[-1][:2], 0.15):
            break
    if not quiet:
        pytest.skip(f"the machine was busy in every attempt (measured / independent: {noisy})")
    if len(quiet) == 1 and not agree(quiet[0][:2], 0.15) and agree(quiet[0], 0.30):
        pytest.skip(f"one quiet attempt of five, off by 15-30 %: neighbours or the tool? (measured / independent: "
                    f"{quiet}; busy: {noisy})")
    assert any(agree(got[:2], 0.15) for got in quiet) and all(agree(got, 0.30) for got in quiet), \
        f"measured / independent (matmul, copy, the bandwidth reported): {quiet}"


def agree(got: tuple[float, ...], within: float) -> bool:
    return all(1 - within <= x <= 1 + within for x in got)


def spread(times: list[float]) -> float:
    return (max(times) - min(times)) / float(np.median(times))


def threaded_copy(dst: np.ndarray, src: np.ndarray, threads: int) -> None:
    """A copy in `threads` plain threads, each its own slice (numpy releases the interpreter lock while copying)."""
    import threading
    cuts = np.linspace(0, len(src), threads + 1).astype(int)
    workers = [threading.Thread(target=dst.__setitem__, args=(slice(lo, hi), src[lo:hi]))
               for lo, hi in zip(cuts[:-1], cuts[1:])]
    for w in workers:
        w.start()
    for w in workers:
        w.join()


def timings(run, repeat: int = 5) -> list[float]:
    run()
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        out.append(time.perf_counter() - start)
    return out


# -- calibration -----------------------------------------------------------------------------------------------
CALIBRATE = """\
sizing: 1
name: calibrate
devices:
  h100:
    from: nvidia-h100-sxm5-80gb   # the family's default efficiencies
{extra}workloads:
{workloads}
benchmarks:
{records}
"""
BATCHES = (1, 8, 32)


def calibration_text(measured: dict[int, float] | None, extra: str = "", prompt: int = 200) -> str:
    workloads = "".join(f"  b{b}: {{kind: generate, model: llama-3.1-8b, precision: bf16, batch: {b}, "
                        f"input_tokens: {prompt}, output_tokens: 400}}\n" for b in BATCHES)
    records = "".join(
        f"  - {{id: rec-b{b}, model: llama-3.1-8b, precision: bf16, device: H100, input_tokens: {prompt}, "
        f"output_tokens: 400, batch_size: {b}, throughput_output_tokens_per_s: {measured[b]:.6g}, "
        f"hourly_cost_usd: 2.5, workload: b{b}, scenario_device: h100}}\n" for b in BATCHES) if measured else "  []\n"
    return CALIBRATE.format(extra=extra, workloads=workloads.rstrip("\n"), records=records.rstrip("\n"))


def truth(extra: str = "    bandwidth_efficiency: 62 %\n", prompt: int = 200) -> dict[int, float]:
    """What the engine predicts at a bandwidth efficiency of 62 %: the records calibration must recover it from."""
    scn, problems = load_scenario_bytes(calibration_text(None, extra, prompt).encode(), "t.yaml")
    assert scn is not None, problems
    r = evaluate(scn)
    return {b: r.pair(f"b{b}", "h100").values["tokens_per_s"] for b in BATCHES}


def test_calibration_recovers_the_efficiency_the_records_were_made_with(tmp_path):
    scn, problems = load_scenario_bytes(calibration_text(truth()).encode(), "c.yaml")
    assert scn is not None, problems
    r = evaluate(scn)
    cal = calibrate(r)
    assert [f.key for f in cal.fitted] == ["device.h100.bandwidth_efficiency"]      # decode: memory-bound
    f = cal.fitted[0]
    assert f.old == r.inputs[f.key].value.value != 0.62
    assert f.new == pytest.approx(0.62, abs=0.003) and f.records == ("rec-b1", "rec-b8", "rec-b32")
    assert cal.before > 0.05 and cal.after < 0.005 and f.after < f.before
    new, note = cal.changes(r, "2026-12-04")
    assert (new.path, new.new) == (("devices", "h100", "bandwidth_efficiency"), f"{100 * f.new:.1f} %")
    assert note.path == ("devices", "h100", "field_sources", "bandwidth_efficiency")
    assert note.new.startswith("sizing calibrate 2026-12-04: fitted to rec-b1, rec-b8, rec-b32 (log error ")


def test_long_prompts_make_the_compute_efficiency_count_and_both_are_recovered():
    """Decode is memory-bound at every batch, but 8,000-token prompts make the prefill (compute-bound) a large part
    of each request: both efficiencies move the predictions, so both are fitted, and both come back."""
    made = truth("    bandwidth_efficiency: 62 %\n    efficiency: 45 %\n", prompt=8000)
    scn, problems = load_scenario_bytes(calibration_text(made, prompt=8000).encode(), "c.yaml")
    assert scn is not None, problems
    r = evaluate(scn)
    assert {r.pair(f"b{b}", "h100").values["bound"] for b in BATCHES} == {"memory"}
    cal = calibrate(r)
    got = {f.field: f.new for f in cal.fitted}
    assert got == pytest.approx({"bandwidth_efficiency": 0.62, "efficiency": 0.45}, abs=0.005)
    assert cal.after < 0.005 < cal.before


def test_sizing_calibrate_writes_the_fit_into_the_scenario_with_its_comments(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(calibration_text(truth()))
    run = [sys.executable, "-c", "from sizing.cli import main; main()", "calibrate", str(path)]
    dry = subprocess.run(run + ["--dry-run"], capture_output=True, text=True, cwd=ROOT)
    assert dry.returncode == 0, dry.stderr
    assert "devices.h100.bandwidth_efficiency: 80.0 % -> 62.0 %  (3 records; log error" in dry.stdout
    assert path.read_text() == calibration_text(truth())                             # dry run: nothing written
    done = subprocess.run(run, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and f"wrote {path}" in done.stdout, done.stderr
    text = path.read_text()
    before = calibration_text(truth())
    assert text.startswith(before.split("workloads:")[0].rstrip("\n") + "\n    bandwidth_efficiency: 62.0 %\n"
                           "    field_sources:\n      bandwidth_efficiency: 'sizing calibrate ")
    assert text.endswith(before[before.index("workloads:"):])        # the rest as it was: comments, layout
    r = evaluate(load_scenario(path)[0])
    ratios = [p.values["measured_vs_predicted"] for p in r.pairs if p.kind == "benchmark"]
    assert ratios == pytest.approx([1, 1, 1], abs=0.005)                   # the records now agree with the scenario
    none = tmp_path / "n.yaml"
    none.write_text(calibration_text(None))
    bad = subprocess.run(run[:-1] + [str(none)], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 1 and "the scenario has no benchmark records to calibrate from" in bad.stderr
    untied = tmp_path / "u.yaml"
    untied.write_text(calibration_text(truth()).replace(", workload: b1, scenario_device: h100", "")
                      .replace(", workload: b8, scenario_device: h100", "")
                      .replace(", workload: b32, scenario_device: h100", ""))
    bad = subprocess.run(run[:-1] + [str(untied)], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 1 and "no record is tied to a prediction" in bad.stderr


def test_the_json_schema_takes_a_device_file_or_a_catalog_id():
    import jsonschema

    from sizing.schema import json_schema
    validator = jsonschema.Draft202012Validator(json_schema())

    def errors(ref: str) -> list[str]:
        doc = {"sizing": 1, "name": "s", "devices": {"d": {"from": ref}},
               "workloads": {"w": {"kind": "matmul", "m": 8, "n": 8, "k": 8}}}
        return [e.message for e in validator.iter_errors(doc)]
    assert errors("lab-server.yaml") == [] and errors("nvidia-h100-sxm5-80gb") == []
    assert errors("h100") == ["'h100' is not valid under any of the given schemas"]


def test_a_folder_of_scenarios_leaves_device_files_out_and_outputs_are_checked_first(tmp_path, fake_measurement):
    (tmp_path / "lab.yaml").write_text(accelerator_yaml(fake_measurement))
    (tmp_path / "s.yaml").write_text("sizing: 1\nname: s\ndevices:\n  d: {from: lab.yaml}\nworkloads:\n"
                                     "  w: {kind: matmul, m: 1024, n: 1024, k: 1024, precision: fp32}\n")
    cli = [sys.executable, "-c", "from sizing.cli import main; main()"]
    done = subprocess.run(cli + ["validate", str(tmp_path)], capture_output=True, text=True, cwd=ROOT)
    assert (done.returncode, done.stdout.strip()) == (0, "1 file ok"), done.stderr
    named = subprocess.run(cli + ["validate", str(tmp_path / "lab.yaml")], capture_output=True, text=True, cwd=ROOT)
    assert named.returncode == 1 and "'sizing'" in named.stderr             # named as a file: checked as a scenario
    (tmp_path / "taken.yaml").mkdir()
    start = time.perf_counter()
    out = subprocess.run(cli + ["measure", "-o", str(tmp_path / "taken.yaml")], capture_output=True, text=True,
                         cwd=ROOT)
    assert out.returncode == 2 and "is a directory" in out.stderr
    assert "measure:" not in out.stderr and time.perf_counter() - start < 10        # refused before measuring
