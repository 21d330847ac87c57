"""The built-in catalog: every entry validates and carries its sources."""

import pytest

from sizing.scenario import catalog

DEVICES, MODELS, PROBLEMS = catalog()


def test_catalog_validates():
    assert list(PROBLEMS) == []
    assert len(DEVICES) >= 15 and len(MODELS) >= 20


@pytest.mark.parametrize("entry", [*DEVICES.values(), *MODELS.values()], ids=lambda e: e.id)
def test_every_entry_has_sources_and_every_figure_a_source(entry):
    assert entry.has("sources[0].title")
    for path, v in entry.values.items():
        assert v.source.startswith(f"catalog {entry.id}: "), path


def test_reference_illustrative_devices():
    acc = DEVICES["illustrative-accelerator"]
    assert acc.get("illustrative") is True
    assert acc.get("compute.bf16") == 200e12
    assert acc.get("memory_bandwidth") == 2e12
    assert acc.get("memory") == 80e9
    assert acc.get("link.bandwidth") == 25e9
    assert acc.get("link.copy_overhead") == pytest.approx(10e-6)
    assert acc.get("link.launch_overhead") == pytest.approx(8e-6)
    assert acc.get("price") == pytest.approx(2 / 3600)
    assert "illustrative" in acc.values["memory"].source
    cpu = DEVICES["illustrative-cpu-server"]
    assert (cpu.get("cpu.cores"), cpu.get("cpu.fma_units"), cpu.get("cpu.vector_width"), cpu.get("cpu.clock")) == (
        8, 2, 32.0, 3e9)


def test_reference_illustrative_models():
    assert {m: MODELS[m].get("parameters") for m in ("illustrative-7b", "illustrative-embedding-100m",
                                                       "illustrative-classifier-5m", "illustrative-edge-3m")} == {
        "illustrative-7b": 7e9, "illustrative-embedding-100m": 1e8, "illustrative-classifier-5m": 5e6,
        "illustrative-edge-3m": 3e6}


def test_real_devices_have_no_price_and_tpus_are_cloud_only():
    for d in DEVICES.values():
        if not d.get("illustrative"):
            assert not d.has("price"), d.id
        if d.get("kind") == "tpu":
            assert d.get("deployment[0]") == "cloud" and not d.has("deployment[1]")


def test_dense_is_half_the_sparse_figure_where_both_are_recorded():
    pairs = [(d.id, p.split(".")[1], d.get(f"compute.{p.split('.')[1]}"), v.value)
             for d in DEVICES.values() for p, v in d.values.items() if p.startswith("sparse.")]
    assert len(pairs) >= 25
    for did, prec, dense, sparse in pairs:
        assert dense == pytest.approx(sparse / 2, rel=0.02), (did, prec)     # vendors round (L40S: 362 | 733)


def test_every_accelerator_has_a_sourced_interconnect():
    """Scale-up fabric figures for every GPU, TPU and accelerator, each with its own source line."""
    from sizing.scenario import catalog
    devices, _, _ = catalog()
    for did, d in devices.items():
        if d.get("illustrative") or d.get("kind") not in ("gpu", "tpu", "accelerator") or did == "apple-m2-ultra":
            continue
        for f in ("interconnect.bandwidth", "interconnect.latency", "interconnect.domain"):
            assert d.has(f), (did, f)
            assert d.has(f"field_sources.{f}"), (did, f)        # solid, inferred or unverified, with how
        if d.has("network.bandwidth"):
            assert d.has("field_sources.network.bandwidth"), did


def test_catalog_filters_and_json():
    import json
    import subprocess
    import sys

    from helpers import ROOT

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", "from sizing.cli import main; main()", "catalog", *args],
                              capture_output=True, text=True, cwd=ROOT)
    devices, models, _ = catalog()
    got = json.loads(run("--kind", "gpu", "--min-memory", "141GB", "--precision", "fp8", "--format", "json").stdout)
    want = [d.id for d in devices.values() if d.get("kind") == "gpu" and d.get("memory", 0) >= 141e9
            and (d.has("compute.fp8") or d.has("delivered.fp8"))]
    assert [e["id"] for e in got["devices"]] == want and "nvidia-h200-sxm-141gb" in want and got["models"] == []
    h200 = got["devices"][want.index("nvidia-h200-sxm-141gb")]
    assert h200["figures"]["memory"] == {"value": 141e9, "unit": "byte", "text": "141 GB",
                                         "source": devices["nvidia-h200-sxm-141gb"].values["memory"].source}
    everything = json.loads(run("--format", "json").stdout)
    assert len(everything["devices"]) == len(devices) and len(everything["models"]) == len(models)
    text = run("--min-bandwidth", "5 TB/s").stdout
    assert text.startswith("devices:\n") and "models:" not in text and "nvidia-h100-sxm5-80gb" not in text
    assert run("--min-memory", "1 PB").stdout == "no catalog entry passes the filters\n"
    # a weight-only format computes at 16 bits (a CPU at 32): every device with such a rate takes it
    q4 = [e["id"] for e in json.loads(run("--precision", "q4_0", "--format", "json").stdout)["devices"]]
    assert q4 == [d.id for d in devices.values() if any(d.has(f"compute.{p}") or d.has(f"delivered.{p}")
                                                        for p in ("fp16", "bf16", "fp32")) or d.has("cpu.cores")]
    assert "nvidia-h100-sxm5-80gb" in q4 and "illustrative-cpu-server" in q4
    bad = run("--min-memory", "80 GB/s")
    assert bad.returncode == 2 and bad.stderr.startswith("sizing: error: --min-memory 80 GB/s: ")


def test_an_unknown_precision_option_is_a_usage_error_naming_the_option(tmp_path):
    """`catalog --precision fp9` printed 'no catalog entry passes the filters' and exited 0; `init --precision FP8`
    pointed at a line of a file it never wrote."""
    from click.testing import CliRunner

    from sizing.cli import main
    got = CliRunner().invoke(main, ["catalog", "--precision", "fp9"])
    assert got.exit_code == 2
    assert "Invalid value for '--precision': 'fp9' is not a precision; did you mean 'fp8'?" in got.output
    got = CliRunner().invoke(main, ["init", "chat", "--model", "llama-3.1-70b", "--devices", "h100", "--precision",
                                    "FP8", "-o", str(tmp_path / "w.yaml")])
    assert got.exit_code == 0, got.output
    assert "precision: fp8 " in (tmp_path / "w.yaml").read_text()               # read as the language spells it
    got = CliRunner().invoke(main, ["init", "chat", "--model", "llama-3.1-70b", "--precision", "int3",
                                    "-o", str(tmp_path / "x.yaml")])
    assert got.exit_code == 2 and "'--precision': 'int3' is not a precision" in got.output
    assert not (tmp_path / "x.yaml").exists()


def test_init_names_close_models_and_writes_only_yaml(tmp_path):
    from click.testing import CliRunner

    from sizing.cli import main
    got = CliRunner().invoke(main, ["init", "chat", "--model", "llama-70b", "--devices", "h100", "-o",
                                    str(tmp_path / "w.yaml")])
    assert got.exit_code == 2 and "no catalog model 'llama-70b'; did you mean " in got.output
    assert "llama-3-70b" in got.output.split("did you mean")[1]          # not a substring of any id: spelled close
    got = CliRunner().invoke(main, ["init", "chat", "--model", "llama-3.1-8b", "--devices", "h100", "-o",
                                    str(tmp_path / "w.txt")])
    assert got.exit_code == 2 and "w.txt: a scenario is a .yaml file; name it so" in got.output
    assert not (tmp_path / "w.txt").exists()


def test_init_takes_a_precision_every_device_has_and_the_warning_names_the_missing_one(tmp_path):
    """`init embed --devices xeon,l4,t4` wrote bf16, which the T4 has no rate at: its times were 'n/a' with a warning
    naming neither the precision nor the ones the device has (a new user's first scenario)."""
    from click.testing import CliRunner

    from sizing.cli import main
    from sizing.evaluate import evaluate
    from sizing.scenario import load_scenario

    def init(devices: str, *more: str) -> tuple[str, str]:
        out = tmp_path / f"{devices.replace(',', '-')}{len(more)}.yaml"
        got = CliRunner().invoke(main, ["init", "embed", "--model", "bert-base-uncased", "--devices", devices, "-o",
                                        str(out), *more])
        assert got.exit_code == 0, got.output
        return out.read_text(), got.output
    text, said = init("xeon-platinum-8480,l4,t4")
    assert "    precision: fp32 " in text and ("precision fp32: nvidia-t4 has no bf16 rate, and fp32 is the first "
                                              "precision every device has one at (--precision to choose)") in said
    text, said = init("h100,l4")
    assert "    precision: bf16 " in text and "no bf16 rate" not in said
    text, said = init("l4,t4")
    assert "    precision: fp16 " in text and "precision fp16: nvidia-t4 has no bf16 rate" in said
    text, said = init("l4,t4", "--precision", "bf16")                  # as asked: the T4 then warns which it has
    assert "    precision: bf16 " in text and "no bf16 rate" not in said
    scn, _ = load_scenario(tmp_path / "l4-t42.yaml")
    assert [p.message for p in evaluate(scn).problems if "no rate" in p.message] == [
        "the device has no rate at bf16: times and rates not computed; it has fp32, fp16, int8, int4 (set the "
        "workload's precision, or an alternative's, to one of them) (workload embed on t4)"]


def test_the_listing_aligns_every_id_and_wraps_each_entry_under_its_own_column():
    """The longest device id pushed its figures out of the column, lines ran to 200 characters on an 80-column
    terminal, and a wrap could split '300 GB/s'; model sizes read '2.271e+07 parameters'."""
    from click.testing import CliRunner

    from sizing.cli import main
    devices, models, _ = catalog()
    got = CliRunner().invoke(main, ["catalog", "--width", "80"])
    assert got.exit_code == 0
    lines = got.output.splitlines()
    assert max(map(len, lines)) <= 80
    column = 2 + max(len(d) for d in devices) + 1
    heads = [ln for ln in lines[1:lines.index("")] if not ln.startswith(" " * column)]
    assert len(heads) == len(devices) and all(ln[column - 1] == " " and ln[column] != " " for ln in heads)
    body = [ln[column:] for ln in lines[1:lines.index("")]]
    assert not any(ln.startswith(("GB/s", "TB/s", "TFLOP/s", "TOP/s", "GB")) or ln.endswith((" 300", " 2039"))
                   for ln in body)
    lines = CliRunner().invoke(main, ["catalog", "--width", "90"]).output.splitlines()
    a100 = lines.index(next(ln for ln in lines if ln.startswith("  nvidia-a100-80gb-sxm ")))
    assert lines[a100 + 1:a100 + 3] == [" " * column + "bf16 312 TFLOP/s, fp16 312 TFLOP/s, int8 624 TOP/s;",
                                        " " * column + "80 GB; 2039 GB/s"]
    wide = CliRunner().invoke(main, ["catalog", "--width", "0"]).output.splitlines()
    assert len(wide) == 2 + len(devices) + len(models) + 1
    assert "  gpt-3-175b" in "\n".join(wide) and "174.6 B parameters" in next(ln for ln in wide if "gpt-3-175b" in ln)
    assert "22.71 M parameters" in next(ln for ln in wide if "all-minilm-l6-v2" in ln)
    assert not any("e+" in ln for ln in wide)


def test_init_train_leaves_recompute_off_and_says_when_to_turn_it_on(tmp_path):
    """A new user's LoRA run cost 48 % more because the starter turned recompute on; it is a fix for activations
    that outgrow a device, not a default."""
    from click.testing import CliRunner

    from sizing.cli import main
    out = tmp_path / "t.yaml"
    got = CliRunner().invoke(main, ["init", "train", "--model", "llama-3.1-8b", "--devices", "h100", "-o", str(out)])
    assert got.exit_code == 0, got.output
    text = out.read_text()
    assert "    recompute: false            # true: recompute activations in the backward pass" in text
    assert "for a sequence whose activations outgrow a device" in text
    assert "# an option must hold the run and finish by the deadline" in text
    from sizing.scenario import load_scenario
    scn, problems = load_scenario(out)
    assert scn is not None and not [p for p in problems if p.level == "error"]


def test_init_says_what_it_assumed_and_refuses_a_rate_for_a_training_run(tmp_path):
    """A new user's embedder failed on L4s for init's 100 ms target, which the next step never named; `init train
    --peak 2/s` was accepted and the rate dropped."""
    from click.testing import CliRunner

    from sizing.cli import main
    got = CliRunner().invoke(main, ["init", "embed", "--model", "llama-3.1-8b", "--devices", "h100", "-o",
                                    str(tmp_path / "e.yaml")])
    assert got.exit_code == 0, got.output
    assert "\nassumed (they decide the answer): 256 tokens per request, batch 8, a 100 ms latency target for 95 % " \
        "of requests\nnext: check them" in got.output
    text = (tmp_path / "e.yaml").read_text()
    assert "tokens: 256" in text and "batch: 8" in text and "latency_p95: 100 ms" in text
    got = CliRunner().invoke(main, ["init", "train", "--model", "llama-3.1-8b", "--devices", "h100", "--peak", "2/s",
                                    "-o", str(tmp_path / "t.yaml")])
    assert got.exit_code == 2 and not (tmp_path / "t.yaml").exists()
    assert "sizing: error: --peak: a training run has no request rate; leave --peak out" in got.output
