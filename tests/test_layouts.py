"""Another layout: where a training run would cost less laid out another way (tensor ways, recompute, more devices)
than the scenario states. A new user found 32 H100s cheaper than the tool's 16 by hand; the tool said nothing. Each
hint is checked against the engine on the scenario with the alternative the hint says to add."""

import re

import pytest
import yaml

from helpers import ROOT, results_of

from sizing.evaluate import evaluate
from sizing.narrative.layouts import another, layout_hints, layout_words, written
from sizing.render.table import render
from sizing.scenario import load_scenario_bytes


def with_alternative(name: str, workload: str, alternative: str):
    """The shipped scenario with `alternative` ('id: {fields}', as a hint writes it) added to the workload."""
    data = yaml.safe_load((ROOT / "scenarios" / f"{name}.yaml").read_text())
    data["workloads"][workload].setdefault("alternatives", {}).update(yaml.safe_load(alternative))
    scn, problems = load_scenario_bytes(yaml.safe_dump(data, sort_keys=False).encode(), "s.yaml")
    assert scn is not None and not problems, problems
    return evaluate(scn)


@pytest.mark.parametrize("name", ["pretrain-deadline", "finetune-approach"])
def test_each_hint_is_the_engine_with_the_alternative_it_says_to_add(name):
    r = results_of(name)
    hints = layout_hints(r, r.decision)
    assert hints and [h.better.value for h in hints] == sorted(h.better.value for h in hints)
    for h in hints:
        again = with_alternative(name, r.decision.workload, written(h))
        alt = written(h).split(":", 1)[0]
        option = next(o for o in again.decision.options if o.device == h.better.device and o.alternative == alt
                      and o.variant == "fleet")
        assert option.passes and option.value == pytest.approx(h.better.value, rel=1e-9)
        assert h.stated.value is None or h.better.value < 0.95 * h.stated.value
        stated = next(o for o in r.decision.options if o.device == h.better.device and o.variant == "fleet"
                      and o.alternative == h.alternative)
        assert stated.value == pytest.approx(h.stated.value, rel=1e-9)      # like with like: the same run
        # once added, the alternative is ranked, and not suggested again
        assert all(written(g) != written(h) for g in layout_hints(again, again.decision))


def test_pretrain_deadline_costs_a_quarter_less_on_one_tensor_way_without_recompute():
    """An 8B model needs neither tensor parallelism nor recompute on a 180 GB B200: the stated tensor 2 and recompute
    cost 38 % more (a third more arithmetic, and the tensor-parallel all-reduces). On the 21 devices its deadline
    needs it leaves 0.402 % of 30 days (a procurement reviewer read it offered as the better deal); on the 24 of its
    whole servers, 12.6 %: that is the layout suggested, with the devices it states."""
    r = results_of("pretrain-deadline")
    hints = {h.better.device: h for h in layout_hints(r, r.decision)}
    b200 = hints["b200"]
    assert (b200.better.tensor, b200.better.recompute, b200.better.devices) == (1, False, 24)
    assert (b200.stated.tensor, b200.stated.recompute) == (2, True)
    assert b200.better.count == 24 and b200.stated.count == 30
    assert written(b200) == "tp1-no-recompute-24-devices: {parallel: {tensor: 1}, recompute: false, devices: 24}"
    words = layout_words(r, r.decision)
    assert words.startswith("As the scenario states it, the run uses tensor 2 with recompute on. With tensor 1, "
                            "recompute off the B200 SXM 180GB would take 24 devices for 26.22 days (12.6 % of the "
                            "deadline to spare) and cost $56,637 ($21,528 less than as stated: 30 devices for 28.95 "
                            "days, $78,165);")
    # the H100 run shards its weights rather than recompute 8 % of its layers (a signer found the recompute the words
    # named missing from the cost); on whole servers too, 56 devices (49 left 2.89 % to spare)
    assert "with tensor 1, recompute off (its weights sharded to make room) the H100 SXM5 80GB would take 56 " \
        "devices for 26.36 days (12.1 % of the deadline to spare) and cost $88,563" in words
    # only the B200's beats the recommendation
    assert "The first beats the recommendation ($77,360): rank it before deciding. To rank them, add these " \
        "alternatives to the workload: alternatives: {tp1-no-recompute-24-devices: {parallel: {tensor: 1}, " \
        "recompute: false, devices: 24}, tp1-no-recompute-56-devices: " in words
    for cost, less, was in re.findall(r"cost \$([\d,]+) \(\$([\d,]+) less than as stated: [^$]*\$([\d,]+)\)", words):
        assert abs(int(cost.replace(",", "")) + int(less.replace(",", "")) - int(was.replace(",", ""))) <= 1
    for h in layout_hints(r, r.decision):          # each cost is the devices × hours × price it names
        price = {"b200": 3.75, "h100": 2.50, "tpu-v5p": 4.20}[h.better.device]
        assert h.better.value == pytest.approx(h.better.count * h.better.duration / 3600 * price, rel=1e-9)
    what, _, flip = another(r, r.decision)
    assert what == "Another layout" and flip == ("B200 SXM 180GB with tensor 1, recompute off: 24 devices for 26.22 "
                                                 "days (12.6 % of the deadline to spare), $56,637, $20,723 less "
                                                 "than the $77,360 recommended; rank it before signing.")


def test_a_layout_with_little_to_spare_is_not_pressed():
    """On a B200 sold in domains of 72 (NVL72), the 21 devices of one tensor way without recompute have no whole
    servers to grow into: they leave 0.402 % of 30 days, about 3 hours, and the words say so instead of 'rank it
    before signing' (a procurement reviewer read them offered as the better deal)."""
    text = (ROOT / "scenarios" / "pretrain-deadline.yaml").read_text().replace(
        "  b200: {from: nvidia-b200-hgx, price: 3.75 USD/hour}",
        "  b200: {from: nvidia-b200-hgx, price: 3.75 USD/hour, interconnect: {bandwidth: 900 GB/s, domain: 72}}")
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    assert scn is not None and not problems, problems
    r = evaluate(scn)
    b200 = next(h for h in layout_hints(r, r.decision) if h.better.device == "b200")
    assert (b200.better.count, b200.better.devices, b200.better.whole) == (21, None, None)
    words = layout_words(r, r.decision)
    assert "The first beats the recommendation ($78,165), with under 10 % of the deadline to spare: a run a little " \
        "slower than predicted misses it: rank it only if that risk is acceptable." in words
    assert another(r, r.decision)[2] == (
        "B200 SXM 180GB with tensor 1, recompute off: 21 devices for 29.88 days (0.402 % of the deadline to spare), "
        "$56,472, $21,693 less than the $78,165 recommended; but a speed 0.402 % below the prediction misses the "
        "deadline: rank it only if that risk is acceptable.")


def test_a_layout_that_does_not_fill_whole_servers_says_what_they_cost():
    """At a 40-day deadline the H100s of one tensor way take 37 devices, 4.625 servers of 8: the words price all 40
    (a procurement reviewer read counts priced as if devices were sold one by one)."""
    text = (ROOT / "scenarios" / "pretrain-deadline.yaml").read_text().replace("deadline: 30 day", "deadline: 40 day")
    r = evaluate(load_scenario_bytes(text.encode(), "s.yaml")[0])
    h100 = next(h for h in layout_hints(r, r.decision) if h.better.device == "h100")
    assert h100.better.count == 37 and h100.better.whole is not None and h100.better.whole.count == 40
    v = r.pair("pretrain", "h100").values
    assert "devices for 38.84 days (2.89 % of the deadline to spare) and cost $86,233 ($30,763 less than as stated: " \
        "50 devices for 39 days, $116,996); on the 40 devices of whole servers, 36.07 days (9.83 % of the deadline to " \
        "spare), $86,566;" in layout_words(r, r.decision)
    assert h100.better.whole.value == pytest.approx(40 * h100.better.whole.duration / 3600 * 2.50, rel=1e-12)
    assert v["devices"] == 50


def test_an_alternative_is_laid_out_anew_and_more_devices_are_tried():
    r = results_of("finetune-approach")
    hints = layout_hints(r, r.decision)
    # LoRA on the MI300X, recommended as written, costs 45 % less on one tensor way without recompute, its frozen
    # weights sharded over 6 devices (on the 3 the deadline count gives, their gathers are not hidden)
    lora = hints[0]
    assert (lora.alternative, lora.better.device, lora.better.tensor, lora.better.recompute, lora.better.devices) == \
        ("lora", "mi300x", 1, False, 6) and lora.better.sharded
    assert lora.given == {"method": "lora", "trainable": "1 %", "title": "LoRA adapters (1 % of the parameters trained)"}
    # the alternative's own title, with what the layout changes (without one, page one named it by the workload's
    # title, 'Full fine-tuning', for a LoRA run)
    assert written(lora) == ('lora-tp1-no-recompute-6-devices: {method: lora, trainable: 1 %, parallel: {tensor: 1}, '
                             'recompute: false, devices: 6, title: "LoRA adapters (1 % of the parameters trained), '
                             'tensor 1, recompute off, 6 devices"}')


def test_more_devices_are_tried_where_they_free_the_run_of_recomputing():
    """Full fine-tuning of a 70B model on H100s without recompute: on the 24 devices the deadline needs it must still
    recompute 96 % of its layers to keep the weights whole; on 48 it need not, and costs 22 % less."""
    text = (ROOT / "scenarios" / "finetune-approach.yaml").read_text()
    text = text.replace("  mi300x: {from: amd-mi300x, price: 1.85 USD/hour}\n", "").replace(
        "    alternatives:\n      lora: {method: lora, trainable: 1 %, title: LoRA adapters (1 % of the parameters "
        "trained)}\n", "")
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    assert scn is not None and not problems, problems
    r = evaluate(scn)
    [h] = layout_hints(r, r.decision)
    assert (h.better.tensor, h.better.recompute, h.better.devices, h.better.share) == (8, False, 48, 0.0)
    assert h.stated.count == 16 and round(h.stated.value) == 2055 and round(h.better.value) == 1609   # 6 ways: 43 of
    # the 256 sequences each, so 258 a step's time
    # a training run's devices are one count (a reviewer's pasted 'devices: {h100: 48}' was refused)
    assert written(h) == "no-recompute-48-devices: {recompute: false, devices: 48}"
    assert layout_words(r, r.decision).startswith(
        "As the scenario states it, the run uses tensor 8 with recompute on. With recompute off the H100 SXM5 80GB "
        "would take 48 devices for 13.41 h (92 % of the deadline to spare) and cost $1,609 ($446 less than as "
        "stated: 16 devices for 51.38 h, $2,055). It beats the recommendation ($2,055): rank it before deciding. To "
        "rank it, add one alternative to the workload: alternatives: {no-recompute-48-devices: {recompute: false, "
        "devices: 48}}.")
    data = yaml.safe_load(text)
    data["workloads"]["tune"]["alternatives"] = yaml.safe_load(written(h))
    scn, problems = load_scenario_bytes(yaml.safe_dump(data, sort_keys=False).encode(), "s.yaml")
    assert scn is not None and not problems, problems
    again = evaluate(scn)
    assert again.decision.best.alternative == "no-recompute-48-devices"
    assert again.decision.best.value == pytest.approx(h.better.value, rel=1e-9)


def test_the_stated_layout_at_its_cheapest_gets_no_hint_and_served_work_gets_batches():
    text = (ROOT / "scenarios" / "pretrain-deadline.yaml").read_text()
    text = text.replace("recompute: true", "recompute: false").replace("parallel: {tensor: 2}", "parallel: {tensor: 1}")
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    r = evaluate(scn)
    assert [h for h in layout_hints(r, r.decision) if h.better.device == "b200"] == []
    chat = results_of("chat-70b-fp8")
    assert layout_hints(chat, chat.decision) == [] and another(chat, chat.decision)[0] == "Another batch"


def test_the_terminal_and_page_one_say_it():
    r = results_of("pretrain-deadline")
    out = render(r, 120)
    assert "  another layout: As the scenario states it, the run uses tensor 2 with recompute on." in out
    assert "another layout" not in out.split("recommendation: b200", 1)[0]     # under the decision it is about


def test_the_glossary_says_what_a_layout_is():
    from sizing.narrative.glossary import terms_in
    found = dict(terms_in("Another layout: B200 SXM 180GB with tensor 1, recompute off"))
    assert found["layout (of a training run)"].startswith("how a run is split over its devices: its tensor ways")
    assert "recompute (activation checkpointing)" in found


def test_the_options_table_names_the_workload_as_written_beside_its_alternative():
    """A signer found '2 Instinct MI300X' in the options table where page one said 'Instinct MI300X (method full)'."""
    from datetime import date
    from sizing.render.report.memo import options_table
    r = results_of("finetune-approach")
    table, _ = options_table(r, r.decision, date(2026, 12, 7))
    names = [row[1].split("\n")[0] for row in table.rows]
    assert names == ["Instinct MI300X (method lora, trainable 1 %)", "Instinct MI300X (method full)",
                     "H100 SXM5 80GB (method lora, trainable 1 %)", "H100 SXM5 80GB (method full)"]


def test_the_printed_snippet_pasted_as_printed_ranks_what_the_words_promised():
    """A reviewer merged the printed alternatives into finetune-approach: every promised option appeared at its
    figures, but page one named a LoRA option 'For Full fine-tuning' (the alternatives had no title), and the next
    report suggested the same 48-H100 layout twice, once against an option already ranked at its cost."""
    r = results_of("finetune-approach")
    words = layout_words(r, r.decision)
    snippet = re.search(r"alternatives: (\{.*\})\.$", words).group(1)
    data = yaml.safe_load((ROOT / "scenarios" / "finetune-approach.yaml").read_text())
    data["workloads"]["tune"]["alternatives"].update(yaml.safe_load(snippet))
    scn, problems = load_scenario_bytes(yaml.safe_dump(data, sort_keys=False).encode(), "s.yaml")
    assert scn is not None and not problems, problems
    again = evaluate(scn)
    for h in layout_hints(r, r.decision):
        alt = written(h).split(":", 1)[0]
        o = next(o for o in again.decision.options if (o.device, o.alternative, o.variant) == (h.better.device, alt,
                                                                                                 "fleet"))
        p = again.pair(o.workload, o.device).values
        assert o.value == pytest.approx(h.better.value, rel=1e-9) and int(p["devices"]) == h.better.count
        assert p["duration"] == pytest.approx(h.better.duration, rel=1e-9)
    best = again.scenario.workloads[again.decision.best.workload]
    assert best.get("title").startswith("LoRA adapters (1 % of the parameters trained), ")
    more = layout_hints(again, again.decision)
    assert len({written(h) for h in more}) == len(more)
    assert more == [] and layout_words(again, again.decision) == ""


def test_json_carries_what_the_sentences_say():
    from sizing.render.data import as_dict
    r = results_of("pretrain-deadline")
    doc = as_dict(r)["decision"]["another"]
    hints = layout_hints(r, r.decision)
    assert doc["kind"] == "layout" and len(doc["hints"]) == len(hints)
    first = doc["hints"][0]
    assert (first["device"], first["tensor"], first["recompute"], first["devices"]) == ("b200", 1, False, 24)
    assert first["value"] == pytest.approx(hints[0].better.value) and first["stated"]["devices"] == 30
    assert doc["alternatives"] == {
        "tp1-no-recompute-24-devices": {"parallel": {"tensor": 1}, "recompute": False, "devices": 24},
        "tp1-no-recompute-56-devices": {"parallel": {"tensor": 1}, "recompute": False, "devices": 56},
        "tp1-no-recompute": {"parallel": {"tensor": 1}, "recompute": False}}
    chat = as_dict(results_of("chat-70b-fp8"))["decision"]["another"]
    assert chat["kind"] == "batch" and chat["alternatives"] == {"b30": {"batch": 30}}      # the cheapest one's
    assert [(h["device"], h["batch"], round(h["value"]), h["stated"]["batch"], h["ranked"]["batch"])
            for h in chat["hints"]] == [("gaudi3", 9, 8081, 16, 5), ("h200", 22, 5606, 16, 16), ("mi300x", 30, 3721, 16, 21)]
    assert [(f["workload"], f["batch"], f["devices"]) for f in chat["found"]] == [
        ("chat-b5", 5, ["gaudi3"]), ("chat-b21", 21, ["mi300x"]), ("chat-b39", 39, ["h100"]), ("chat-b46", 46, ["b200"])]
    assert as_dict(results_of("ref-link-matmul"))["decision"]["another"] is None       # a latency objective


LORA_70B = """\
sizing: 1
name: lora70b
devices:
  h100: {from: nvidia-h100-sxm5-80gb, price: 2.50 USD/hour}
  mi300x: {from: amd-mi300x, price: 2.00 USD/hour}
workloads:
  train:
    kind: train
    model: llama-3.1-70b
    precision: bf16
    method: lora
    trainable: 1 %
    tokens: 1e9
    sequence: 4096
    batch: 64
    deadline: 3 day
decision:
  objective: cost
  require: [fits_memory, meets_targets]
"""


def test_the_deadline_count_weighs_the_gathers_of_sharded_weights():
    """A new user's 70B LoRA on MI300X: the deadline's count, estimated with the weights kept whole, gave 2 devices,
    where the frozen weights must be sharded and their gathers took the run to 3.5 days against 3. The second
    estimate now takes the layout a runtime would take at the first's count: 3 devices, 2.07 days (22 of the 64
    sequences a step on each)."""
    scn, problems = load_scenario_bytes(LORA_70B.encode(), "s.yaml")
    r = evaluate(scn)
    p = r.pair("train", "mi300x").values
    assert (p["devices_for_deadline_first"], p["devices_for_deadline"], p["devices"]) == (2, 3, 3)
    assert p["weights_sharded"] is True and p["reduce_for_first"] == 0 and p["overhead_for_first"] > 0
    assert p["meets_deadline"] is True and p["duration"] == pytest.approx(2.0728 * 86400, rel=1e-3)
    assert r.decision.best.id == "mi300x" and round(r.decision.best.value, 2) == 298.48


def test_a_layout_that_misses_its_deadline_is_tried_on_more_devices():
    """The same run pinned to 2 devices misses its deadline; on 4 at tensor 1 it costs $283 (the advice had been
    tensor 2 at $374)."""
    scn, problems = load_scenario_bytes(LORA_70B.replace("    tokens: 1e9\n", "    tokens: 1e9\n    devices: 2\n")
                                        .encode(), "s.yaml")
    r = evaluate(scn)
    assert r.decision.best is None
    mi300x = next(h for h in layout_hints(r, r.decision) if h.better.device == "mi300x")
    assert (mi300x.better.tensor, mi300x.better.devices, round(mi300x.better.value, 2)) == (1, 4, 283.03)
    assert mi300x.stated.value is None and mi300x.stated.count == 2
    assert written(mi300x) == "4-devices: {devices: 4}"
    assert "With more devices the Instinct MI300X would meet every requirement, on 4 devices for 1.474 days (50.9 % " \
        "of the deadline to spare), at $283.03" in layout_words(r, r.decision)


def test_a_layout_within_five_percent_of_an_option_already_ranked_on_its_device_is_not_named():
    """finetune-approach: full fine-tuning on the MI300X without recompute ($936) is 1.3 % below LoRA as written on
    the same device ($948), within the rounding of the prices."""
    r = results_of("finetune-approach")
    assert not [h for h in layout_hints(r, r.decision) if h.better.device == "mi300x" and not h.alternative]


def test_a_training_option_that_misses_its_deadline_is_said_to_and_reads_apart_from_its_alternative():
    """A new user's 70B LoRA with tensor 2 as an alternative: page one said the as-written MI300X 'answers too slowly
    for the latency targets', and its sensitivity named 'Instinct MI300X' as what would replace the Instinct
    MI300X (tensor 2) recommended."""
    from sizing.narrative.memo import apart_from
    from sizing.narrative.checked import reason
    from sizing.narrative import why
    from sizing.render.report.memo import meets
    text = LORA_70B.replace("    deadline: 3 day\n", "    deadline: 3 day\n    devices: 2\n    alternatives:\n      tp2: "
                            "{parallel: {tensor: 2}, devices: 4}\n")
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    assert scn is not None and not problems, problems
    r = evaluate(scn)
    best, root = r.decision.best, r.decision.option("mi300x")
    assert best.id == "mi300x tp2" and not root.passes
    assert meets(r, r.decision, root) == "no: misses the deadline"
    tag, _ = why(r, r.decision)
    assert tag == "deadline"
    assert reason(r, r.decision, tag) == ("The option with the lowest training cost, Instinct MI300X, does not finish "
                                          "by the deadline; Instinct MI300X (tensor 2, 4 devices) is the best that "
                                          "meets every requirement.")
    assert apart_from(r, root, best) == "Instinct MI300X (as written)"
    assert apart_from(r, r.decision.option("h100 tp2"), best) == "H100 SXM5 80GB (tensor 2, 4 devices)"


def test_a_per_device_count_on_a_training_run_says_what_to_do():
    scn, problems = load_scenario_bytes(LORA_70B.replace("    tokens: 1e9\n", "    tokens: 1e9\n    devices: {mi300x: "
                                                         "3}\n").encode(), "s.yaml")
    assert [p.message for p in problems] == [
        "expected a whole number, got a mapping; a training run's devices are one count for every compared device; "
        "to try another count, add an alternative, e.g. alternatives: {more: {devices: 16}}"]


def test_tensor_ways_that_do_not_split_the_heads_are_warned_of_and_never_suggested():
    """A new user gave parallel: {tensor: 3} to train Llama 3.1 8B (32 heads) and was told nothing; Qwen 2.5 7B's 28
    heads split 1, 2 or 4 ways, never 8."""
    text = LORA_70B.replace("llama-3.1-70b", "llama-3.1-8b").replace("    batch: 64\n", "    batch: 64\n    parallel: "
                                                                      "{tensor: 3}\n")
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    assert [(p.path, p.code, p.level) for p in problems] == [("workloads.train.parallel.tensor", "uneven-heads",
                                                              "warning")]
    assert "does not split the 32 attention heads (8 key/value heads)" in problems[0].message
    qwen = LORA_70B.replace("llama-3.1-70b", "qwen2.5-7b").replace("method: lora", "method: full").replace(
        "    trainable: 1 %\n", "").replace("    deadline: 3 day\n", "    deadline: 3 day\n    recompute: true\n")
    scn, problems = load_scenario_bytes(qwen.encode(), "s.yaml")
    assert scn is not None and not problems, problems
    r = evaluate(scn)
    from sizing.narrative import layouts
    tried = []
    real = layouts.priced
    layouts.priced = lambda *a: tried.extend(a[4]) or real(*a)
    try:
        layouts.layout_hints(r, r.decision)
    finally:
        layouts.priced = real
    assert tried and {x.tensor for x in tried} == {1, 2, 4}
