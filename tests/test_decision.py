"""The decision: ranking, default requirements, options that cannot be ranked."""

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
  chat: {kind: generate, model: qwen2.5-32b, precision: bf16, batch: 4, input_tokens: 1000, output_tokens: 200}
"""


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
    assert any("no rate at this precision" in p.message for p in r.problems)
    assert r.decision.recommendation == "big"
    small = next(o for o in r.decision.options if o.device == "small")
    assert small.value is None and Failure("computable", "chat", "cost_per_million_tokens") in small.failures


def test_an_on_premises_requirement_settles_the_question_before_performance():
    text = """\
sizing: 1
name: onprem
devices:
  tpu: {from: google-tpu-v5p, price: 1.00 USD/hour}
  h200: {from: nvidia-h200-sxm-141gb, price: 3.00 USD/hour}
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
        "s.yaml:8:23: error: decision.objective: unknown quantity 'bound'")
    embed = base + "  embed: {kind: forward, parameters: 1e8, tokens: 16}\n"
    assert problems_of(embed + "decision: {workload: embed, objective: cost_per_million_tokens}\n")[0] == (
        "s.yaml:9:40: error: decision.objective: 'cost_per_million_tokens' is not computed for workload 'embed' "
        "(forward); e.g. latency, cost or monthly_cost")
    assert [p for p in problems_of(embed + "decision: {workload: embed, objective: cost}\n") if "error" in p] == []
