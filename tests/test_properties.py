"""Properties of the whole formula graph on every shipped scenario: the float and numpy interpreters agree,
and the physics and money move the way they must (more bandwidth is never slower, more traffic never needs
fewer replicas, a higher price never costs less)."""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import SCENARIOS, results_of
from sizing import formulas as F
from sizing.evaluate import Results, what_if

NAMES = [p.stem for p in SCENARIOS]
SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example])


@lru_cache(maxsize=None)
def results(name: str) -> Results:
    return results_of(name)


def numeric_inputs(r: Results) -> list[str]:
    return [k for k, i in r.inputs.items()
            if isinstance(i.value.value, (int, float)) and not isinstance(i.value.value, bool)]


def moved(r: Results, key: str, factor: float) -> float:
    """An input moved by a factor, kept valid: fractions at most 1, whole numbers whole and at least 1."""
    i = r.inputs[key]
    v = i.value.value * factor
    if F.INPUTS[i.role].fraction:
        v = min(v, 1.0)
    if isinstance(i.value.value, int):
        v = float(max(1, round(v)))
    return v


def same(a, b) -> bool:
    if isinstance(a, (bool, np.bool_, str, np.str_)) or isinstance(b, (bool, np.bool_, str, np.str_)):
        return a == b
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300)


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(data=st.data())
def test_float_and_numpy_interpreters_agree_on_every_quantity(name, data):
    r = results(name)
    keys = numeric_inputs(r)
    draws = 4
    factors = {k: data.draw(st.lists(st.floats(0.5, 2.0), min_size=draws, max_size=draws), label=k) for k in keys}
    columns = {k: np.array([moved(r, k, f) for f in fs]) for k, fs in factors.items()}
    vector = what_if(r, columns)
    for j in range(draws):
        scalar = what_if(r, {k: float(v[j]) for k, v in columns.items()})
        for p in r.pairs:
            for x in p.present():
                got = np.broadcast_to(vector[x.key], (draws,))[j]
                assert same(got, scalar[x.key]), (x.key, j, got, scalar[x.key])


def along(r: Results, role: str, factors: np.ndarray) -> dict[str, np.ndarray]:
    """Every input of a role moved by the same increasing factors."""
    return {k: np.array([moved(r, k, f) for f in factors]) for k, i in r.inputs.items() if i.role == role}


def series(env: dict, r: Results, qid: str, n: int) -> list[np.ndarray]:
    return [np.asarray(np.broadcast_to(env[x.key], (n,)), dtype=float)
            for p in r.pairs for x in p.present() if x.d.id == qid]


def never_decreases(values: np.ndarray) -> bool:
    finite = values[np.isfinite(values)]
    return bool(np.all(np.diff(finite) >= -1e-9 * np.abs(finite[:-1])))


def never_increases(values: np.ndarray) -> bool:
    return never_decreases(-values)


FACTORS = np.geomspace(0.25, 4, 25)


def moved_series(name: str, role: str, qids: tuple[str, ...]) -> list[np.ndarray]:
    """Every quantity of `qids` on every pair, with each input of `role` moved along FACTORS (skips without one).
    A training whose devices follow a deadline is left out of `duration`: a faster device finishes in time on
    fewer devices, which may take longer (the devices never increase: tested below)."""
    r = results(name)
    moves = along(r, role, FACTORS)
    if not moves:
        pytest.skip(f"no {role} in {name}")
    env = what_if(r, moves)
    out = []
    for p in r.pairs:
        by_deadline = "devices_for_deadline" in p.values and "train_devices" not in {
            i.role for k, i in r.inputs.items() if k.startswith(f"workload.{p.workload}.")}
        for x in p.present():
            if x.d.id in qids and not (x.d.id == "duration" and by_deadline):
                out.append(np.asarray(np.broadcast_to(env[x.key], (len(FACTORS),)), dtype=float))
    return out


@pytest.mark.parametrize("name", ["pretrain-deadline", "finetune-approach"])
@pytest.mark.parametrize("role", ["compute_rate", "train_efficiency"])
def test_a_faster_device_never_needs_more_devices_for_a_deadline(name, role):
    r = results(name)
    moves = along(r, role, FACTORS)
    assert moves
    env = what_if(r, moves)
    followed = [p for p in r.pairs if not r.scenario.workloads[p.workload].automatic]    # whole servers: a count
    kept = replace(r, pairs=followed)                                                   # kept, not a deadline's
    devices = series(env, kept, "devices", len(FACTORS))
    assert devices and all(never_increases(s) for s in devices)
    assert all(bool(np.all(s)) for s in series(env, kept, "meets_deadline", len(FACTORS)))


TIMES = ("step_time", "ttft", "total_time", "kernel_time", "latency", "prefill_time", "duration", "request_latency")
COSTS = ("monthly_cost", "cost_per_million_tokens", "cost_per_million_requests", "cost", "batch_job_cost",
         "monthly_cost_rent", "hourly_rate", "rent_rate")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("role", ["memory_bandwidth", "bandwidth_efficiency", "efficiency", "delivered_given",
                                  "compute_rate", "link_bandwidth"])
def test_more_bandwidth_or_rate_is_never_slower(name, role):
    if any(w.has("deadline") and not w.has("devices") for w in results(name).scenario.workloads.values()):
        pytest.skip("its devices follow the deadline: test_a_faster_device_never_needs_more_devices_for_a_deadline")
    checked = moved_series(name, role, TIMES)
    assert checked
    assert all(never_increases(s) for s in checked)


@pytest.mark.parametrize("name", NAMES)
def test_more_traffic_never_needs_fewer_replicas(name):
    r = results(name)
    moves = along(r, "peak_traffic", FACTORS)
    if not moves:
        pytest.skip(f"no traffic in {name}")
    # the average cannot exceed the peak: move it with the peak's lowest factor
    for k, i in r.inputs.items():
        if i.role == "average_traffic":
            moves[k] = np.full(len(FACTORS), i.value.value * FACTORS[0])
    env = what_if(r, moves)
    for qid in ("replicas", "servers", "fleet_devices", "devices_needed", "monthly_cost"):
        assert all(never_decreases(s) for s in series(env, r, qid, len(FACTORS))), qid


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("role", ["price", "purchase", "electricity", "hosting", "power"])
def test_a_higher_price_never_lowers_a_cost(name, role):
    checked = moved_series(name, role, COSTS)
    assert checked
    assert all(never_decreases(s) for s in checked)


def test_every_boolean_quantity_is_declared_a_check_and_every_word_a_label():
    seen = 0
    for name in NAMES:
        for p in results(name).pairs:
            for x in p.present():
                v = p.values[x.d.id]
                if v is None:                   # no value (a device not priced): any type
                    continue
                if isinstance(v, bool):
                    assert x.d.type == "check", x.d.id
                elif isinstance(v, str):
                    assert x.d.type == "label", x.d.id
                else:
                    assert x.d.type == "number", x.d.id
                seen += 1
    assert seen > 500
