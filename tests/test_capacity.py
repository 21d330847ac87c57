"""Capacity and economics: queueing, fleets, rent vs own, make-or-buy, calibration."""

import math

import numpy as np
import pytest

from helpers import ROOT, family_figure, problems_of, results_of
from sizing.evaluate import evaluate
from sizing.formulas.interpret import _erlang_c, _fleet_search
from sizing.scenario import load_scenario_bytes


def erlang_c_by_definition(c: int, a: float) -> float:
    top = a ** c / math.factorial(c) * c / (c - a)
    return top / (sum(a ** k / math.factorial(k) for k in range(c)) + top)


@pytest.mark.parametrize("c,a,published", [
    (1, 0.5, 0.5),            # M/M/1: the chance of waiting is the utilisation
    (2, 1.0, 1 / 3),
    (3, 2.0, 4 / 9),
    (5, 4.0, 0.5541),         # Erlang C tables: 5 servers, 4 erlangs -> 55.4 %
    (10, 8.0, 0.4092),        # 10 servers, 8 erlangs -> 40.9 %
    (20, 15.0, 0.1604),       # 20 servers, 15 erlangs -> 16.0 %
])
def test_erlang_c_against_published_values(c, a, published):
    assert _erlang_c(c, a) == pytest.approx(published, abs=5e-5)
    assert _erlang_c(c, a) == pytest.approx(erlang_c_by_definition(c, a), rel=1e-12)
    arr = _erlang_c(np.array([c, c]), np.array([a, a]))
    assert arr == pytest.approx([_erlang_c(c, a)] * 2, rel=1e-10)


def test_erlang_c_is_one_when_overloaded_and_large_fleets_stay_finite():
    assert _erlang_c(3, 3.0) == 1.0 and _erlang_c(2, 5.0) == 1.0
    assert 0 <= _erlang_c(2000, 1500.0) < 1e-6
    assert _erlang_c(np.array([2000.0]), np.array([1500.0]))[0] == pytest.approx(_erlang_c(2000, 1500.0), abs=1e-12)


def test_erlang_b_skips_the_poisson_sum_only_where_it_is_one_to_the_last_bit():
    """Where the tail beyond c is below e^-40 the array form takes P(X <= c) as 1 without computing it: the
    results equal the full formula bit for bit over loads from empty to three times the servers, and the scalar
    recursion to 1e-12."""
    from scipy.special import gammaincc, gammaln

    from sizing.formulas.interpret import _erlang_b, _erlang_b_array
    rng = np.random.default_rng(7)
    c = np.floor(10 ** rng.uniform(0, 6, 100_000))
    a = c * rng.uniform(0, 3, 100_000)
    with np.errstate(all="ignore"):
        full = np.exp(c * np.log(a) - a - gammaln(c + 1)) / gammaincc(c + 1, a)
    np.testing.assert_array_equal(_erlang_b_array(c, a), full)
    for ci, ai in [(40, 10.0), (400, 300.0), (4000, 3990.0), (60, 1.0)]:
        assert _erlang_b_array(np.array([float(ci)]), np.array([ai]))[0] == pytest.approx(_erlang_b(ci, ai), rel=1e-12)


def test_fleet_search_scalar_and_array_agree():
    args = (1, 1, 0.64, 0.0172 * 78.125, 0.0172 * 50)
    assert _fleet_search(*args) == 1.0
    assert _fleet_search(*(np.array([x, x]) for x in args)).tolist() == [1.0, 1.0]


SERVICE = """\
sizing: 1
name: service
devices:
  cpu:
    kind: cpu
    delivered: {fp32: 50 GFLOP/s}
    price: 0.40 USD/hour
workloads:
  routing:
    kind: forward
    parameters: 5e6
    tokens: 64
    traffic: {peak: 50 request/s, average: 20 request/s, max_utilisation: 70 %, redundancy: 1}
    targets: {latency_p95: 30 ms}
"""


def evaluated(text: str):
    scn, problems = load_scenario_bytes(text.encode(), "s.yaml")
    assert scn is not None, problems
    return evaluate(scn)


def test_mm1_by_hand_and_the_fleet_that_meets_the_target():
    r = evaluated(SERVICE.replace("latency_p95: 30 ms", "latency_p95: 200 ms"))
    p = r.pair("routing", "cpu").values
    assert p["latency"] == pytest.approx(12.8e-3)
    assert p["requests_per_s"] == pytest.approx(78.125)
    assert p["servers_for_peak"] == 1 and p["servers"] == 1 and p["replicas"] == 2
    assert p["utilisation_at_peak"] == pytest.approx(0.64)
    assert p["wait_probability"] == pytest.approx(0.64)
    assert p["queue_wait_p95"] == pytest.approx(math.log(0.64 / 0.05) / (78.125 - 50))   # 90.6 ms
    assert p["response_p95"] == pytest.approx(12.8e-3 + math.log(0.64 / 0.05) / 28.125)
    assert p["meets_targets"] is True
    # with a 30 ms target one server's 90.6 ms p95 wait is too long: a second server is added
    p = evaluated(SERVICE).pair("routing", "cpu").values
    assert p["servers"] == 2 and p["replicas"] == 3
    c = erlang_c_by_definition(2, 0.64)
    assert p["wait_probability"] == pytest.approx(c)
    assert p["queue_wait_p95"] == pytest.approx(max(0.0, math.log(c / 0.05)) / (2 * 78.125 - 50))
    assert p["response_p95"] <= 0.030 and p["meets_targets"] is True


def test_unreachable_target_is_reported_not_papered_over():
    r = evaluated(SERVICE.replace("latency_p95: 30 ms", "latency_p95: 10 ms"))
    p = r.pair("routing", "cpu").values
    assert p["target_slack"] < 0 and p["servers"] == p["servers_for_peak"] == 1
    assert p["meets_targets"] is False


def test_monthly_and_per_request_cost_at_the_average_utilisation():
    p = evaluated(SERVICE).pair("routing", "cpu").values
    month = 365.25 / 12 * 86400
    assert p["monthly_cost"] == pytest.approx(3 * 0.40 / 3600 * month)               # 3 replicas
    assert p["average_utilisation"] == pytest.approx(20 / (3 * 78.125))
    # the fleet's cost spread over the requests it actually serves
    per_request = 3 * 0.40 / 3600 / 20
    assert p["cost_per_million_requests"] == pytest.approx(per_request * 1e6)


def test_rent_own_breakeven_and_api():
    r = results_of("capacity-chat-8b")
    h100 = r.pair("chat", "h100").values
    hour = 3600
    own = 30000 / (3 * 365.25 * 86400) + 700 * 1.3 * 0.12 / 3.6e6 + 150 / (365.25 / 12 * 86400)
    assert h100["rent_rate"] == pytest.approx(2.50 * 0.7 / hour)
    assert h100["own_rate"] == pytest.approx(own)
    assert h100["breakeven_utilisation"] == pytest.approx(own / (2.50 / hour))
    assert h100["hourly_rate"] == pytest.approx(min(own, 2.50 * 0.7 / hour))          # owning is cheaper here
    assert h100["monthly_cost"] == pytest.approx(h100["monthly_cost_own"])
    assert h100["monthly_cost_own"] == pytest.approx(h100["replicas"] * own * 365.25 / 12 * 86400)
    assert h100["api_cost_per_million_tokens"] == pytest.approx((0.20 * 300 + 0.05 * 1000) / 300)
    assert h100["api_monthly_cost"] == pytest.approx(12 * (0.20 * 300 + 0.05 * 1000) / 1e6 * 365.25 / 12 * 86400)
    assert h100["cheaper_than_api"] is False
    assert h100["meets_targets"] is True
    # the API costs less than any fleet held all month and than renting the busy hours: it is recommended
    dec = r.decision
    assert dec.recommendation == "api" and dec.best.value == pytest.approx(h100["api_monthly_cost"])
    assert [o.id for o in dec.options if not o.alternative] == ["api", "l40s busy hours", "h100 busy hours", "h100",
                                                                 "l40s"]


def test_best_batch_meets_the_per_token_target():
    """The closed-form best batch against the full model evaluated at that batch and the next: the time between a
    user's tokens (decode step and its share of the prefills) meets the target at it and misses one above."""
    r = results_of("capacity-chat-8b")
    text = (ROOT / "scenarios" / "capacity-chat-8b.yaml").read_text()
    for dev in ("h100", "l40s"):
        p = r.pair("chat", dev).values
        b = p["best_batch"]
        assert 0 < b <= p["max_batch"]

        def at(batch):
            scn, _ = load_scenario_bytes(text.replace("batch: 32", f"batch: {batch}").encode(), "s.yaml")
            return evaluate(scn).pair("chat", dev).values

        here = at(b)
        assert here["token_interval"] <= 0.050
        assert b == p["max_batch"] or at(b + 1)["token_interval"] > 0.050 * 0.97     # within the prefill estimate
        assert p["best_batch_tokens_per_s"] == pytest.approx(here["decode_tokens_per_s"])


CALIBRATE = """\
sizing: 1
name: calibrate
devices:
  acc: {from: illustrative-accelerator, bandwidth_efficiency: 100 %}
models:
  m: {parameters: 7e9}
workloads:
  chat: {kind: generate, model: m, batch: 16, input_tokens: 1, output_tokens: 300}
benchmarks:
  - {id: run-1, workload: chat, scenario_device: acc, throughput_output_tokens_per_s: MEASURED, hourly_cost_usd: 2}
"""


def test_calibration_recovers_a_known_efficiency():
    predicted = 16 * 300 / (301 * 14e9 / 2e12)              # memory-bound: 7 ms per step, and for the prefill
    measured = 0.6 * predicted                              # a device that delivers 60 % of its bandwidth
    r = evaluated(CALIBRATE.replace("MEASURED", repr(measured)))
    b = r.pair("run-1", "record").values
    assert b["predicted_tokens_per_s"] == pytest.approx(predicted)
    assert b["measured_vs_predicted"] == pytest.approx(0.6)
    assert b["calibrated_bandwidth_efficiency"] == pytest.approx(0.6)
    # evaluating again with the calibrated efficiency reproduces the measurement
    again = evaluated(CALIBRATE.replace("bandwidth_efficiency: 100 %", "bandwidth_efficiency: 60 %")
                      .replace("MEASURED", repr(measured)))
    assert again.pair("chat", "acc").values["tokens_per_s"] == pytest.approx(measured)


def test_calibration_references_are_checked():
    text = CALIBRATE.replace("MEASURED", "1500").replace("scenario_device: acc", "scenario_device: acx")
    assert problems_of(text) == [
        "s.yaml:10:50: error: benchmarks.run-1.scenario_device: unknown device 'acx'; did you mean 'acc'?"]


def test_devices_per_replica_can_differ_by_device():
    text = """\
sizing: 1
name: tp
devices:
  h100: {from: nvidia-h100-sxm5-80gb, price: 2.5 USD/hour}
  h200: {from: nvidia-h200-sxm-141gb, price: 3.5 USD/hour}
workloads:
  chat: {kind: generate, model: llama-3.1-70b, batch: 2, input_tokens: 1000, output_tokens: 200,
         devices: {h100: 2}}
"""
    r = evaluated(text)
    h100, h200 = r.pair("chat", "h100").values, r.pair("chat", "h200").values
    assert h100["replica_memory"] == pytest.approx(160e9 * (1 - family_figure("gpu", "memory_reserve")))
    assert h100["fits"] is True
    reserve = family_figure("gpu", "memory_reserve")
    assert h200["replica_memory"] == pytest.approx(141e9 * (1 - reserve)) and h200["fits"] is False
    assert h100["step_memory_time"] == pytest.approx(h100["step_bytes"] / (2 * 3.35e12 * family_figure("gpu", "bandwidth_efficiency")))
    assert h100["cost_per_million_tokens"] == pytest.approx(2 * 2.5 / 3600 / h100["tokens_per_s"] * 1e6)
    assert r.decision.recommendation == "h100"


def test_a_fleet_at_exactly_full_load_is_not_a_crash():
    text = SERVICE.replace("max_utilisation: 70 %, redundancy: 1", "max_utilisation: 100 %, redundancy: 0").replace(
        "peak: 50 request/s, average: 20 request/s", "peak: 78.125 request/s").replace("latency_p95: 30 ms",
                                                                                      "latency_p95: 1 s")
    p = evaluated(text).pair("routing", "cpu").values
    assert p["servers_for_peak"] == 1          # one server exactly at full load: its queue has no bound ...
    assert p["servers"] == 2 and p["utilisation_at_peak"] == 0.5          # ... so the fleet search adds one
    assert 0 <= p["queue_wait_p95"] < 1
    no_target = evaluated(text.replace("    targets: {latency_p95: 1 s}\n", "")).pair("routing", "cpu").values
    assert no_target["servers"] == 1 and no_target["queue_wait_p95"] == float("inf")   # said, not a crash


def test_calibration_against_the_family_defaults():
    """A record tied to a device that states no efficiency is calibrated against the family defaults it ran at."""
    text = CALIBRATE.replace("acc: {from: illustrative-accelerator, bandwidth_efficiency: 100 %}",
                             "acc: {from: nvidia-h100-sxm5-80gb}").replace("MEASURED", "1000")
    r = evaluated(text)
    b = r.pair("run-1", "record").values
    ratio = b["measured_vs_predicted"]
    assert b["calibrated_bandwidth_efficiency"] == pytest.approx(family_figure("gpu", "bandwidth_efficiency") * ratio)
    assert b["calibrated_efficiency"] == pytest.approx(family_figure("gpu", "efficiency") * ratio)
