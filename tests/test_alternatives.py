"""A workload's alternatives: variants ranked as options beside it, each evaluated exactly as the workload written
with the alternative's fields would be."""

import pytest

from sizing.evaluate import evaluate
from sizing.narrative import verdict, why
from sizing.scenario import load_scenario_bytes

BASE = """\
sizing: 1
name: alternatives
devices:
  h100: {from: nvidia-h100-sxm5-80gb, price: 2.50 USD/hour}
  l40s: {from: nvidia-l40s, price: 1.00 USD/hour}
workloads:
  chat:
    kind: generate
    model: llama-3.1-70b
    precision: bf16
    batch: 16
    input_tokens: 1000
    output_tokens: 300
    devices: {h100: 2, l40s: 4}
    traffic: {peak: 4 request/s, average: 1.5 request/s, max_utilisation: 70 %}
    targets: {per_token_p95: 80 ms}
"""
ALTERNATIVES = """\
    alternatives:
      fp8: {precision: fp8}
      tp8: {devices: 8, title: Eight-way tensor parallel}
"""
DECISION = "decision: {workload: chat, objective: monthly_cost, options: [fleet]}\n"


def load(text):
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    assert scn is not None, [str(p) for p in problems]
    return scn


def problems_of(text):
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    assert scn is None
    return [str(p) for p in problems]


@pytest.fixture(scope="module")
def results():
    return evaluate(load(BASE + ALTERNATIVES + DECISION))


def test_each_alternative_is_the_workload_with_its_fields_changed(results):
    """chat-fp8 gives exactly the figures of a scenario whose chat is written in fp8 (its KV cache follows the
    precision, as a defaulted kv_precision does); chat-tp8 those of chat on 8 devices everywhere."""
    for alt, edit in (("fp8", ("precision: bf16", "precision: fp8")),
                      ("tp8", ("devices: {h100: 2, l40s: 4}", "devices: 8"))):
        assert edit[0] in BASE
        written = evaluate(load(BASE.replace(*edit) + DECISION))
        for device in ("h100", "l40s"):
            got = results.pair(f"chat-{alt}", device).values
            want = written.pair("chat", device).values
            assert got == want, (alt, device)
    assert results.scenario.workloads["chat-fp8"].get("kv_precision") == "fp8"
    assert results.scenario.workloads["chat-tp8"].get("title") == "Eight-way tensor parallel"
    assert results.scenario.workloads["chat-fp8"].get("title") == "fp8 (alternative of chat)"


def test_every_alternative_is_ranked_on_every_device(results):
    d = results.decision
    found = {o.id: o for o in d.options if results.scenario.workloads[o.workload].found}
    assert {o.id for o in d.options} - set(found) == {"h100", "l40s", "h100 fp8", "l40s fp8", "h100 tp8", "l40s tp8"}
    assert found and all(o.device in results.scenario.workloads[o.workload].found for o in found.values())
    for o in d.options:
        p = results.pair(o.workload, o.device)
        assert o.workload == ("chat" if not o.alternative else f"chat-{o.alternative}")
        assert o.value == p.values.get("monthly_cost")
    ranked = [o for o in d.options if o.rank]
    assert [o.value for o in ranked] == sorted(o.value for o in ranked)
    assert d.recommendation == ranked[0].id


def test_the_reason_says_what_a_recommended_alternative_changes(results):
    d = results.decision
    assert d.best.alternative, "the recommendation is expected to be an alternative here"
    _, reasons = why(results, d)
    given = {"fp8": "precision fp8", "tp8": "devices 8"}[d.best.alternative]
    assert f" changes workload chat: {given}; everything else is the same." in reasons[0]


def test_alternatives_are_checked_like_the_workload():
    bad = BASE + "    alternatives:\n      fp8: {precison: fp8}\n" + DECISION
    assert problems_of(bad) == ["s.yaml:18:13: error: workloads.chat.alternatives.fp8.precison: unknown key "
                                "'precison'; did you mean 'precision'?"]
    bad = BASE + "    alternatives:\n      big: {devices: {h200: 8}}\n" + DECISION
    assert problems_of(bad) == ["s.yaml:18:29: error: workloads.chat.alternatives.big.devices.h200: unknown "
                                "device 'h200'; did you mean 'h100'?"]
    bad = BASE + "    alternatives:\n      k: {kind: forward}\n" + DECISION
    assert problems_of(bad) == ["s.yaml:18:11: error: workloads.chat.alternatives.k.kind: an alternative cannot "
                                "change 'kind': it varies its workload; write another workload instead"]


@pytest.mark.parametrize("alternative, message", [
    ("same: {}", "s.yaml:18:7: error: workloads.chat.alternatives.same: the alternative 'same' changes nothing; give "
                 "the fields it changes, e.g. {precision: fp8}"),
    ("same: {title: Same}", "s.yaml:18:7: error: workloads.chat.alternatives.same: the alternative 'same' changes "
                            "nothing; give the fields it changes, e.g. {precision: fp8}"),
    ("Two GPUs: {devices: 2}", "s.yaml:18:7: error: workloads.chat.alternatives.Two GPUs: expected an alternative "
                               "id of lower-case letters, digits, '.', '_' and '-', got 'Two GPUs'"),
    ("fit: {batch: 4}", "s.yaml:18:7: error: workloads.chat.alternatives.fit: 'fit' is the id of the automatic "
                        "alternative (the devices that hold a workload that does not fit); choose another id"),
    ("low: {traffic: {peak: 1 request/s}}", "s.yaml:18:29: error: workloads.chat.alternatives.low.traffic.peak: the "
                                            "average '1.5 request/s' is above the peak '1 request/s'"),
])
def test_an_alternative_that_cannot_be_is_a_located_error(alternative, message):
    assert problems_of(BASE + f"    alternatives:\n      {alternative}\n" + DECISION) == [message]


def test_an_alternative_giving_the_utilisation_replaces_the_average():
    """traffic.average and traffic.utilisation say the same thing: an alternative giving one drops the other."""
    r = evaluate(load(BASE + "    alternatives:\n      busy: {traffic: {utilisation: 80 %}}\n" + DECISION))
    w = r.scenario.workloads["chat-busy"]
    assert "traffic.average" not in w.values and w.get("traffic.utilisation") == 0.8
    assert r.pair("chat-busy", "h100").values["average_rate"] == pytest.approx(4 * 0.8)


def test_an_alternative_may_not_take_a_workload_id():
    text = BASE + ALTERNATIVES + "  chat-fp8: {kind: generate, model: llama-3.1-8b}\n" + DECISION
    got = problems_of(text)
    assert got == ["s.yaml:18:7: error: workloads.chat.alternatives.fp8: the alternative's workload id "
                   "'chat-fp8' is taken by a workload; rename the alternative"]


def test_an_alternative_changes_only_what_it_names():
    """`devices: {h100: 4}` changes the H100's count and keeps the L40S's; `traffic: {peak: ..}` keeps the average;
    a field the workload left to its default is defaulted in the alternative too."""
    text = BASE + "    alternatives:\n      wide: {devices: {h100: 4}, traffic: {peak: 3 request/s}}\n" + DECISION
    r = evaluate(load(text))
    w = r.scenario.workloads["chat-wide"]
    assert (w.get("devices.h100"), w.get("devices.l40s"), w.get("devices")) == (4, 4, 1)
    assert (w.get("traffic.peak"), w.get("traffic.average"), w.get("traffic.redundancy")) == (3, 1.5, 0)
    assert r.pair("chat-wide", "h100").values["tensor_parallel"] == 4
    assert r.pair("chat-wide", "l40s").values["tensor_parallel"] == 4


# BASE with an MI300X for the L40S, the devices left open and no latency target
FIT = BASE.replace("  l40s: {from: nvidia-l40s, price: 1.00 USD/hour}", "  mi300x: {from: amd-mi300x, price: 1.85 USD/hour}") \
    .replace("    devices: {h100: 2, l40s: 4}\n", "").replace("    targets: {per_token_p95: 80 ms}\n", "") + DECISION
# FIT with an FP8 alternative, which does not fit one H100 either
FIT_FP8 = FIT.replace("    traffic:", "    alternatives:\n      fp8: {precision: fp8}\n    traffic:")


def test_a_serving_option_that_does_not_fit_is_priced_on_the_devices_that_hold_it():
    """BF16 Llama 3.1 70B does not fit one H100: the engine adds the automatic alternative `fit` (4 H100s per
    replica: the 3 that hold it, rounded up to a power of two for tensor parallelism), priced and ranked exactly as
    the scenario written with those devices; the
    MI300X, which fits, gets no such option; the H100's verdict points at it."""
    r = evaluate(load(FIT))
    h100 = r.pair("chat", "h100").values
    assert h100["fits"] is False and h100["devices_to_fit"] == 3
    d = r.decision
    assert {o.id for o in d.options} == {"h100", "mi300x", "h100 fit"}
    assert r.scenario.workloads["chat-fit"].automatic
    assert r.scenario.workloads["chat-fit"].get("devices.h100") == 4
    written = evaluate(load(FIT.replace("    batch: 16\n", "    batch: 16\n    devices: {h100: 4}\n")))
    assert r.pair("chat-fit", "h100").values == written.pair("chat", "h100").values
    fit = d.option("h100 fit")
    assert fit.passes and fit.value == written.pair("chat", "h100").values["monthly_cost"]
    assert "(3 devices would hold it; ranked as h100, fit)" in verdict(r, d, d.option("h100"))
    # the scenario fixes the devices: it asks about one device, so nothing is added
    pinned = evaluate(load(FIT.replace("    batch: 16\n", "    batch: 16\n    devices: 1\n")))
    assert "chat-fit" not in pinned.scenario.workloads
    assert not pinned.decision.option("h100").passes


def test_an_alternative_that_does_not_fit_is_priced_on_the_devices_that_hold_it():
    """The FP8 alternative of the 70B needs 74.7 GB where an H100 leaves 72 GB: it gets an automatic alternative of
    its own, `fp8-fit` (2 H100s), priced exactly as the scenario written at FP8 on 2 H100s, ranked beside the
    workload's own `fit`; the FP8 option's verdict points at it."""
    r = evaluate(load(FIT_FP8))
    assert list(r.scenario.workloads) == ["chat", "chat-fit", "chat-fp8", "chat-fp8-fit"]
    fit = r.scenario.workloads["chat-fp8-fit"]
    assert (fit.automatic, fit.alternative_of, fit.alternative) == (True, "chat", "fp8-fit")
    assert (fit.get("precision"), fit.get("devices.h100"), fit.get("title")) == \
        ("fp8", 2, "fp8 (alternative of chat), sharded to fit")
    d = r.decision
    assert [o.id for o in d.options if o.rank] == ["mi300x fp8", "mi300x", "h100 fp8-fit", "h100 fit"]
    written = evaluate(load(FIT.replace("    precision: bf16\n", "    precision: fp8\n    devices: {h100: 2}\n")))
    assert r.pair("chat-fp8-fit", "h100").values == written.pair("chat", "h100").values
    assert d.option("h100 fp8-fit").value == written.pair("chat", "h100").values["monthly_cost"]
    assert verdict(r, d, d.option("h100 fp8")) == \
        "does not fit in memory: needs 74.7 GB, has 72 GB (2 devices would hold it; ranked as h100, fp8-fit)"
    # an alternative that sets its devices asks about them: nothing is added for it
    pinned = evaluate(load(FIT.replace("    traffic:", "    alternatives:\n      fp8: {precision: fp8, devices: 1}\n"
                                                         "    traffic:")))
    assert "chat-fp8-fit" not in pinned.scenario.workloads and "chat-fit" in pinned.scenario.workloads


def test_a_forward_workload_that_does_not_fit_is_priced_on_the_devices_that_hold_it():
    """A 70B embedder in BF16 (141 GB of weights) fits neither an L4 nor an H100: each was left 'n/a, fails
    fits_memory' with no count. Like a served LLM it now gets `fit`: 8 L4s (the 7 that hold it, rounded up to a
    power of two), 2 H100s, priced exactly as the scenario written with those devices; the fallback line says the
    fleet's devices are a replica's ('6 × H100 (2 devices)' was read as 2 of the 6)."""
    text = """\
sizing: 1
name: embed
devices:
  l4: {from: nvidia-l4, price: 0.8 USD/hour}
  h100: {from: nvidia-h100-sxm5-80gb, price: 2.50 USD/hour}
workloads:
  embed: {kind: forward, model: llama-3.1-70b, precision: bf16, tokens: 512, batch: 8, traffic: {peak: 50 request/s}}
decision: {objective: monthly_cost}
"""
    r = evaluate(load(text))
    assert [r.pair("embed", d).values["devices_to_fit"] for d in ("l4", "h100")] == [7, 2]
    fit = r.scenario.workloads["embed-fit"]
    assert fit.automatic and (fit.get("devices.l4"), fit.get("devices.h100")) == (8, 2)
    written = evaluate(load(text.replace("batch: 8,", "batch: 8, devices: {l4: 8, h100: 2},")))
    for d in ("l4", "h100"):
        assert r.pair("embed-fit", d).values == written.pair("embed", d).values
    dec = r.decision
    assert dec.best.id == "h100 fit busy hours" and dec.option("h100 fit").passes
    assert dec.option("h100 fit").value == written.pair("embed", "h100").values["monthly_cost"]
    assert verdict(r, dec, dec.option("h100")).endswith("(2 devices would hold it; ranked as h100, fit)")
    from sizing.narrative.memo import fallback
    assert "rent 6 × H100 SXM5 80GB by the hour, all month (2 devices a replica), $10,958/month" in fallback(r, dec)


def test_a_what_if_on_the_workload_moves_its_alternatives():
    """The sensitivity moves the workload's tokens; the LoRA alternative, which does not set them, moves too (as
    its workbook cell follows the workload's): the what-if equals the scenario written with fewer tokens."""
    from helpers import ROOT, results_of
    from sizing.evaluate import decide_each
    r = results_of("finetune-approach")
    moved = decide_each(r, [("workload.tune.tokens", 1.5e9)])[0]
    text = (ROOT / "scenarios" / "finetune-approach.yaml").read_text()
    assert "tokens: 2e9" in text
    written = evaluate(load(text.replace("tokens: 2e9", "tokens: 1.5e9"))).decision
    for oid in ("mi300x", "mi300x lora", "h100 lora"):
        assert moved.option(oid).value == pytest.approx(written.option(oid).value, rel=1e-12), oid
    assert moved.option("mi300x lora").value < r.decision.option("mi300x lora").value


def test_the_terminal_names_the_target_an_option_misses():
    """'fails meets_targets' alone left a new user searching the sweep: the line says which target, by how much."""
    from sizing.render.table import render
    r = evaluate(load(BASE.replace("    traffic:", ALTERNATIVES + "    traffic:").replace("80 ms", "30 ms") + DECISION))
    lines = [ln.strip() for ln in render(r).splitlines() if "fails" in ln]
    assert "– l40s, fp8: n/a  fails meets_targets (chat-fp8): time between tokens 48.55 ms > 30 ms" in lines
    h100 = next(ln for ln in lines if ln.startswith("– h100:"))
    assert h100.startswith("– h100: n/a  fails fits_memory (chat); fails meets_targets (chat): time between tokens "
                           "37.69 ms > 30 ms;")


def test_an_alternative_that_sets_the_tensor_ways_is_named_by_them():
    """A new user's two alternatives, recompute and tensor 8 with recompute, were both named 'H100 (recompute
    true)'."""
    from sizing.narrative.memo import option_words
    text = ("sizing: 1\nname: alt\ndevices:\n  h100: {from: nvidia-h100-sxm5-80gb, price: 2.50 USD/hour}\n"
            "workloads:\n  tune:\n    kind: train\n    model: llama-3.1-70b\n    tokens: 1e9\n    deadline: 5 day\n"
            "    alternatives:\n      rc: {recompute: true}\n      tp8rc: {parallel: {tensor: 8}, recompute: true}\n"
            "decision: {objective: cost}\n")
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    assert scn is not None, problems
    r = evaluate(scn)
    names = {o.id: option_words(r, o) for o in r.decision.options}
    assert names["h100 tp8rc"] == "H100 SXM5 80GB (tensor 8, recompute true)"
    assert names["h100 rc"] == "H100 SXM5 80GB (recompute true)"
