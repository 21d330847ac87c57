"""The decision: ranking, default requirements, options that cannot be ranked."""

import pytest

from sizing.narrative import verdict
from sizing.results import Failure
from sizing.evaluate import evaluate
from sizing.scenario import load_scenario_bytes

TWO = """\
sizing: 1
name: two
devices:
  small: {from: nvidia-l4, price: 0.10 USD/hour}
  big: {from: nvidia-h100-sxm5-80gb, price: 2.50 USD/hour}
workloads:
  chat: {kind: generate, model: qwen2.5-32b, precision: bf16, batch: 4, devices: 1, input_tokens: 1000,
         output_tokens: 200}
"""     # devices: 1 asks about one device each (left open, a sharded setup would be ranked too)


def decided(text):
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    assert scn is not None, problems
    return evaluate(scn).decision


def test_by_default_an_option_must_fit_and_meet_its_targets():
    d = decided(TWO)
    assert d.require == ("fits_memory", "meets_targets")
    assert d.recommendation == "big"
    small = next(o for o in d.options if o.device == "small")
    assert small.passes is False and small.rank is None          # an option that fails is listed, never ranked
    assert small.failures == (Failure("fits_memory", "chat", "fits"),)


def test_explicit_requirements_replace_the_default():
    d = decided(TWO + "decision: {objective: cost_per_million_tokens, require: [meets_targets]}\n")
    assert d.require == ("meets_targets",) and d.recommendation == "big"
    small = d.option("small")     # cheaper, but it does not fit: not priced, not ranked, whatever is required
    assert small.value is None and small.rank is None
    assert [f.requirement for f in small.failures] == ["fits_memory"]


def test_a_device_without_a_rate_at_the_precision_is_never_recommended():
    text = TWO.replace("precision: bf16", "precision: fp8").replace(
        "small: {from: nvidia-l4, price: 0.10 USD/hour}", "small: {from: nvidia-a100-80gb-sxm, price: 0.10 USD/hour}"
    ).replace("qwen2.5-32b", "llama-3.1-8b")
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    r = evaluate(scn)
    a100 = r.pair("chat", "small").values
    assert "step_time" not in a100 and "ttft" not in a100 and "cost_per_million_tokens" not in a100
    assert ("the device has no rate at fp8: times and rates not computed; it has fp32, tf32, bf16, fp16, int8 (set "
            "the workload's precision, or an alternative's, to one of them) (workload chat on small)") in [
        p.message for p in r.problems]
    assert r.decision.recommendation == "big"
    small = next(o for o in r.decision.options if o.device == "small")
    assert small.value is None and Failure("computable", "chat", "cost_per_million_tokens") in small.failures
    # a training run says so too (a new user's FP8 fine-tune on an A100 only read 'fails computable')
    train = ("sizing: 1\nname: t\ndevices:\n  a100: {from: nvidia-a100-80gb-sxm, price: 1.40 USD/hour}\nworkloads:\n"
             "  ft: {kind: train, model: llama-3.1-8b, precision: fp8, tokens: 2e9, sequence: 4096, batch: 64}\n")
    scn, _ = load_scenario_bytes(train.encode(), "t.yaml")
    assert ("the device has no rate at fp8: times and rates not computed; it has fp32, tf32, bf16, fp16, int8 (set "
            "the workload's precision, or an alternative's, to one of them) (workload ft on a100)") in [
        p.message for p in evaluate(scn).problems]


def test_an_on_premises_requirement_settles_the_question_before_performance():
    text = """\
sizing: 1
name: onprem
devices:
  tpu: {from: google-tpu-v5p, price: 1.00 USD/hour}
  h200: {from: nvidia-h200-sxm-141gb, price: 3.00 USD/hour, costs: {purchase: 35000 USD}}
workloads:
  chat: {kind: generate, model: llama-3.1-8b, batch: 8, input_tokens: 1000, output_tokens: 200}
decision: {objective: cost_per_million_tokens, require: [fits_memory, on-prem]}
"""
    r = evaluate(load_scenario_bytes(text.encode(), "s.yaml")[0])
    assert r.pair("chat", "tpu").values["available_on_prem"] is False       # TPUs are cloud-only
    tpu = next(o for o in r.decision.options if o.device == "tpu")
    assert tpu.failures == (Failure("on-prem", "chat", "available_on_prem"),)
    assert r.decision.recommendation == "h200"


def test_the_objective_must_be_a_number_the_workload_computes():
    from helpers import problems_of
    base = TWO.replace("qwen2.5-32b, precision: bf16", "llama-3.1-8b, precision: bf16")
    assert problems_of(base + "decision: {objective: bound}\n")[0] == (
        "s.yaml:9:23: error: decision.objective: 'bound' is a check or a label, not a number to rank by; e.g. "
        "latency, cost or monthly_cost (`sizing evaluate` lists the quantities of each workload)")
    assert problems_of(base + "decision: {objective: cost per month}\n")[0] == (      # words, not spelling
        "s.yaml:9:23: error: decision.objective: unknown quantity 'cost per month'; did you mean 'monthly_cost'?")
    embed = base + "  embed: {kind: forward, parameters: 1e8, tokens: 16}\n"
    assert problems_of(embed + "decision: {workload: embed, objective: cost_per_million_tokens}\n")[0] == (
        "s.yaml:10:40: error: decision.objective: 'cost_per_million_tokens' is not computed for workload 'embed' "
        "(forward); e.g. cost, monthly_cost or latency")
    train = base + "  tune: {kind: train, model: llama-3.1-8b, tokens: 2e9, sequence: 4096, deadline: 5 day}\n"
    said = problems_of(train + "decision: {workload: tune, objective: monthly_cost}\n")[0]    # never the value refused
    assert said.endswith("'monthly_cost' is not computed for workload 'tune' (train); e.g. cost, duration or latency")
    assert [p for p in problems_of(embed + "decision: {workload: embed, objective: cost}\n") if "error" in p] == []


# -- make or buy, budgets, one decision per workload (issue 13) ----------------------------------------
SERVICE = """\
sizing: 1
name: service
devices:
  h100: {from: nvidia-h100-sxm5-80gb, price: 2.50 USD/hour, deployment: [cloud, on-prem]}
  l40s: {from: nvidia-l40s, price: 1.00 USD/hour, deployment: [cloud, on-prem]}
workloads:
  chat:
    kind: generate
    model: llama-3.1-8b
    batch: 32
    input_tokens: 1000
    output_tokens: 300
    traffic: {peak: 40 request/s, average: 12 request/s, max_utilisation: 70 %}
    targets: {per_token_p95: 50 ms}
    api: {output_price: 0.20 USD/Mtoken, input_price: 0.05 USD/Mtoken, per_token_p95: 30 ms}
  big:
    kind: generate
    model: qwen2.5-32b
    batch: 64
    input_tokens: 1000
    output_tokens: 200
    traffic: {peak: 2 request/s}
"""


def results(text):
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    assert scn is not None, problems
    return evaluate(scn, search=False)      # the options as written (the batches sizing finds: test_batches)


def test_the_api_and_busy_hours_are_ranked_beside_the_fleets():
    r = results(SERVICE + "decision: {workload: chat, objective: monthly_cost}\n")
    d = r.decision
    chat = {p.device: p.values for p in r.pairs if p.workload == "chat"}
    assert [o.id for o in d.options] == ["h100 busy hours", "api", "l40s busy hours", "h100", "l40s"]
    values = {o.id: o.value for o in d.options}
    assert values["api"] == chat["h100"]["api_monthly_cost"]
    assert values["h100 busy hours"] == chat["h100"]["busy_hours_monthly_cost"]
    assert values["h100"] == chat["h100"]["monthly_cost"]
    # busy hours: the replicas the average needs at the ceiling, x the on-demand price, x a month
    h = chat["h100"]
    assert h["busy_hours_devices"] == 12 / (h["requests_per_s"] * 0.7)
    assert h["busy_hours_monthly_cost"] == pytest.approx(h["busy_hours_devices"] * 2.50 * 365.25 / 12 * 24, rel=1e-12)
    assert d.recommendation == "h100 busy hours"


def test_renting_as_traffic_needs_keeps_the_spare_replicas():
    """The scenario's redundancy is a requirement of every option that serves: on demand it is rented too."""
    spare = SERVICE.replace("max_utilisation: 70 %}", "max_utilisation: 70 %, redundancy: 2}")
    assert spare != SERVICE
    r = results(spare + "decision: {workload: chat, objective: monthly_cost}\n")
    h = r.pair("chat", "h100").values
    assert h["busy_hours_devices"] == pytest.approx(12 / (h["requests_per_s"] * 0.7) + 2, rel=1e-12)
    # one replica at least before the spares, even when the average would keep less than one busy
    quiet = results(spare.replace("average: 12 request/s", "average: 0.01 request/s")
                    + "decision: {workload: chat, objective: monthly_cost}\n")
    assert quiet.pair("chat", "h100").values["busy_hours_devices"] == 3


OWNED = SERVICE.replace("price: 2.50 USD/hour,", "price: 2.50 USD/hour, costs: {purchase: 30000 USD},") \
    .replace("price: 1.00 USD/hour,", "price: 1.00 USD/hour, costs: {purchase: 9000 USD},")


def test_on_premises_a_fleet_is_bought():
    """On premises a fleet must be bought: where a purchase is priced, the decided workload's devices are costed as
    bought even when renting is cheaper (a rental price cut used to turn the fleet into a rented one that failed
    on-prem, leaving no option); a fleet forced to rent, or with only a rental price, fails on-prem."""
    dearer = OWNED.replace("purchase: 30000 USD", "purchase: 90000 USD")      # buying the H100 costs more than renting
    r = results(dearer + "decision: {workload: chat, objective: monthly_cost, require: [on-prem]}\n")
    assert r.pair("chat", "h100").values["cost_basis"] == "own"
    assert r.decision.option("h100").passes
    anywhere = results(dearer + "decision: {workload: chat, objective: monthly_cost}\n")
    assert anywhere.pair("chat", "h100").values["cost_basis"] == "rent"        # no on-prem: the cheaper basis
    forced = dearer.replace("purchase: 90000 USD}", "purchase: 90000 USD, basis: rent}")
    r = results(forced + "decision: {workload: chat, objective: monthly_cost, require: [on-prem]}\n")
    h100 = r.decision.option("h100")
    assert r.pair("chat", "h100").values["cost_basis"] == "rent"
    assert h100.failures == (Failure("on-prem", "chat", "owned_fleet"),)
    assert verdict(r, r.decision, h100) == ("is costed as rented in the cloud (rent, as its costs.basis forces): on "
                                            "premises it must be bought; set costs.basis: own, or leave it out, to "
                                            "price it owned")
    # only a rental price: the fleet cannot be priced owned, so it cannot run on premises
    rented = results(SERVICE + "decision: {workload: chat, objective: monthly_cost, require: [on-prem]}\n")
    assert Failure("on-prem", "chat", "owned_fleet") in rented.decision.option("h100").failures


def test_services_are_not_on_premises():
    cheaper = OWNED.replace("purchase: 9000 USD", "purchase: 8000 USD")
    d = results(cheaper + "decision: {workload: chat, objective: monthly_cost, require: [on-prem]}\n").decision
    assert {o.id for o in d.options if o.passes} == {"h100", "l40s"}
    api = d.option("api")
    assert api.rank is None and [f.requirement for f in api.failures] == ["on-prem"]
    assert d.option("l40s").value < d.option("h100").value      # owned: 20 × 8,000 USD against 6 × 30,000
    assert d.recommendation == "l40s"


def test_options_chooses_which_kinds_are_ranked():
    d = results(SERVICE + "decision: {workload: chat, objective: monthly_cost, options: [fleet, api]}\n").decision
    assert [o.variant for o in d.options] == ["api", "fleet", "fleet"]


def test_an_option_over_the_budget_is_not_ranked():
    d = results(SERVICE + "decision: {workload: chat, objective: monthly_cost, budget: {monthly: 13000 USD}}\n"
                ).decision
    assert d.budget == {"monthly": 13000.0}
    for o in d.options:
        over = o.value > 13000
        assert (Failure("budget", "chat", o.quantity) in o.failures) == over and (o.rank is None) == over
    assert d.option("l40s").rank is None and d.option("h100").rank is not None


def test_a_capital_budget_binds_only_what_is_bought():
    text = SERVICE.replace("price: 2.50 USD/hour,", "price: 2.50 USD/hour, costs: {purchase: 30000 USD, "
                           "amortisation: 3 year, basis: own},")
    d = results(text + "decision: {workload: chat, objective: monthly_cost, budget: {capex: 100000 USD}}\n").decision
    assert Failure("budget", "chat", "capex") in d.option("h100").failures      # a fleet bought for more
    assert d.option("h100 busy hours").passes and d.option("api").passes       # renting needs no capital


def test_one_decision_per_workload_each_with_its_own_failures():
    r = results(SERVICE + """\
decision:
  - {workload: chat, objective: monthly_cost}
  - {workload: big, objective: monthly_cost, title: The 32B model}
""")
    assert [d.workload for d in r.decisions] == ["chat", "big"] and r.decision is r.decisions[0]
    assert [d.id for d in r.decisions] == ["decision-1", "decision-2"]
    big = r.decisions[1]
    assert {f.workload for o in big.options for f in o.failures} <= {"big"}     # never another workload's
    assert all(f.workload == "chat" for o in r.decisions[0].options for f in o.failures)
    l40s = big.option("l40s")                # 64 GB of weights do not fit a 48 GB L40S
    assert l40s.rank is None and l40s.failures[0].requirement == "fits_memory"


def test_a_list_of_decisions_names_each_workload():
    scn, problems = load_scenario_bytes((SERVICE + "decision:\n  - {objective: monthly_cost}\n"
                                         "  - {workload: big}\n").encode(), "s.yaml")
    assert scn is None
    assert [str(p) for p in problems] == [
        "s.yaml:24:5: error: decision[0]: each decision of a list names its `workload:`"]


def test_a_misspelt_key_in_a_decision_list_is_located():
    scn, problems = load_scenario_bytes((SERVICE + "decision:\n  - {workload: chat, budjet: {monthly: 1 USD}}\n"
                                         ).encode(), "s.yaml")
    assert scn is None and "decision[0].budjet" in str(problems[0]) and "budget" in str(problems[0])


def test_asking_only_for_the_api_of_a_workload_without_api_prices_is_an_error():
    from helpers import problems_of
    text = SERVICE.replace("    api: {output_price: 0.20 USD/Mtoken, input_price: 0.05 USD/Mtoken, per_token_p95: 30 ms}\n",
                           "")
    assert problems_of(text + "decision: {workload: chat, objective: monthly_cost, options: [api]}\n") == [
        "s.yaml:22:63: error: decision.options: only the hosted API is asked for, but workload 'chat' gives no api "
        "prices; add api: {output_price: ...} to it or rank fleet or busy_hours too"]


@pytest.mark.parametrize("stated, passes, why", [
    (", per_token_p95: 30 ms", True, None),
    (", per_token_p95: 60 ms", False, "misses a latency target at the provider's stated service level: 60 ms > 50 ms"),
    ("", False, "is not shown to meet the latency targets: the provider's stated "
                                            "per_token_p95 (its service level) is not given; add it under api: to "
                                            "check it"),
])
def test_the_hosted_api_meets_the_targets_only_at_its_stated_service_level(stated, passes, why):
    text = SERVICE.replace(", per_token_p95: 30 ms}", stated + "}")
    r = results(text + "decision: {workload: chat, objective: monthly_cost}\n")
    api = r.decision.option("api")
    assert api.passes is passes
    if why:
        assert api.failures == (Failure("meets_targets", "chat", "api_meets_targets"),)
        assert verdict(r, r.decision, api) == why
        assert r.decision.recommendation != "api"


def test_an_api_without_an_input_price_is_warned_about_where_its_price_is():
    """A hosted API priced by output tokens only counted the prompt as free, silently (a new user's 2,000-token
    prompts were 87 % of the tokens)."""
    from helpers import problems_of
    text = SERVICE.replace(", input_price: 0.05 USD/Mtoken", "")
    assert [p for p in problems_of(text) if "input_price" in p] == [
        "s.yaml:15:25: warning: workloads.chat.api: no input_price: the hosted API's 1,000 input tokens a request "
        "(77 % of its tokens) are priced at nothing; give the provider's price per input token (input_price: 0.30 "
        "USD/Mtoken), or 0 USD/Mtoken if it charges none"]
    assert not [p for p in problems_of(SERVICE) if "input_price" in p]


def test_a_stated_efficiency_used_for_8_bit_arithmetic_is_warned_about():
    """A device's stated `efficiency` also sets its 8-bit rate when no `efficiency_8bit` is given (so a range on it
    moves the FP8 option too): a new user did not expect it."""
    from helpers import problems_of
    text = SERVICE.replace("price: 2.50 USD/hour,", "price: 2.50 USD/hour, efficiency: 60 %,").replace(
        "    batch: 32\n", "    batch: 32\n    alternatives: {fp8: {precision: fp8}}\n", 1)
    said = [p for p in problems_of(text) if "8-bit" in p]
    assert said == ["s.yaml:4:73: warning: devices.h100.efficiency: 60 % is also used for the 8-bit arithmetic of "
                    "chat-fp8 (no efficiency_8bit given); state efficiency_8bit for the 8-bit kernels (the gpu "
                    "family's default: 40 %)"]
    assert not [p for p in problems_of(text.replace("efficiency: 60 %,", "efficiency: 60 %, efficiency_8bit: 40 %,"))
                if "8-bit" in p]


def test_an_alternative_that_does_not_fit_says_how_many_devices_would_hold_it():
    """Alternatives get no automatic `fit`: a new user's FP8 70B on one H100 printed only 'fails fits_memory'."""
    from sizing.render.table import render
    text = ("sizing: 1\nname: fit\ndevices:\n  h100: {from: nvidia-h100-sxm5-80gb, price: 2.50 USD/hour}\n"
            "workloads:\n  chat:\n    kind: generate\n    model: llama-3.1-70b\n    batch: 16\n    input_tokens: 1000\n"
            "    output_tokens: 300\n    devices: 4\n    traffic: {peak: 2 request/s}\n"
            "    alternatives:\n      fp8: {precision: fp8, devices: 1}\n"
            "decision: {workload: chat, objective: monthly_cost}\n")
    r = results(text)
    assert r.pair("chat-fp8", "h100").values["devices_to_fit"] == 2
    assert "– h100, fp8: n/a  fails fits_memory (chat-fp8); 2 devices hold it: give the alternative 'fp8' devices: " \
           "{h100: 2}" in render(r)
    # the warning names the field where the file writes it (a new user read 'workloads.chat-bf16.devices.h100')
    from sizing.scenario import load_scenario_bytes
    _, problems = load_scenario_bytes(text.replace("fp8: {precision: fp8, devices: 1}",
                                                   "bf16: {precision: bf16, devices: 3}").encode(), "s.yaml")
    assert [(p.path, p.code) for p in problems] == [("workloads.chat.alternatives.bf16.devices", "uneven-heads")]
    # bf16 on 2 H100s: 3 hold it, and 3 ways do not split the 64 heads: the hint gives 4 (a new user followed 3)
    r = results(text.replace("fp8: {precision: fp8, devices: 1}", "bf16: {precision: bf16, devices: 2}"))
    assert r.pair("chat-bf16", "h100").values["devices_to_fit"] == 3
    assert "3 devices hold it: give the alternative 'bf16' devices: {h100: 4} (a power of two: runtimes split the " \
           "attention heads evenly)" in render(r)


def test_an_alternative_that_changes_only_the_demand_is_warned_of():
    """A new user's alternative 'think' with a lower peak was ranked against the workload, and the smaller demand
    was recommended: an alternative that changes only what is asked is a located warning, said where it is
    written; one that changes how it is served too is not."""
    from sizing.scenario import load_scenario_bytes
    text = ("sizing: 1\nname: dem\ndevices:\n  h100: {from: nvidia-h100-sxm5-80gb, price: 2.50 USD/hour}\n"
            "workloads:\n  chat:\n    kind: generate\n    model: llama-3.1-8b\n    batch: 16\n"
            "    input_tokens: 1000\n    output_tokens: 300\n    traffic: {peak: 20 request/s}\n"
            "    alternatives:\n      think: {traffic: {peak: 6 request/s}, title: quieter}\n"
            "      fp8: {precision: fp8, targets: {ttft_p95: 2 s}}\n"
            "decision: {workload: chat, objective: monthly_cost}\n")
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    assert scn is not None
    assert [(p.line, p.path, p.code, p.level) for p in problems] == [
        (14, "workloads.chat.alternatives.think.traffic.peak", "alternative-changes-demand", "warning")]
    assert "the alternative 'think' changes only what is asked (traffic.peak), not how it is served" in \
        problems[0].message and "sweep: {traffic.peak: [...]}" in problems[0].message


def test_activations_that_outgrow_any_count_say_so_not_a_memory_total():
    """LoRA on Llama 3.1 70B without recompute: one 4,096-token sequence's activations (92 GB) outgrow an H100's
    usable 72 GB whatever the count; a new user read 'needs 704.6 GB, has 432 GB' and thought of more devices."""
    from sizing.evaluate import evaluate
    from sizing.narrative.decision import failure_words
    from sizing.scenario import load_scenario_bytes
    text = ("sizing: 1\nname: lora\ndevices:\n  h100: {from: nvidia-h100-sxm5-80gb, price: 2.50 USD/hour}\n"
            "workloads:\n  train:\n    kind: train\n    model: llama-3.1-70b\n    precision: bf16\n    method: lora\n"
            "    trainable: 1 %\n    tokens: 2e9\n    sequence: 4096\n    batch: 64\n    recompute: false\n"
            "    deadline: 3 day\ndecision: {objective: cost}\n")
    r = evaluate(load_scenario_bytes(text.encode(), "s.yaml")[0])
    (o,) = r.decision.options
    assert r.pair("train", "h100").values["devices_to_fit"] == 0
    assert failure_words(r, o, r.decision) == (
        "does not fit in memory: one sequence's activations (92.03 GB) outgrow a device (72 GB usable), whatever the "
        "count: set recompute: true, or more tensor-parallel ways")
