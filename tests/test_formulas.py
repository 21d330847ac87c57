"""The formula graph: one definition, interpreted as floats, numpy, Excel text, readable text and pint."""

import math

import numpy as np
import pytest

from helpers import SCENARIOS
from sizing import formulas as F
from sizing.evaluate import evaluate
from sizing.formulas.expr import Const, Ref, ceil, max_present, maximum, sum_present, where
from sizing.scenario import load_scenario
from sizing.units import ureg

A, B, C = Ref("in.a", "a"), Ref("in.b", "b"), Ref("in.c", "c")


def test_one_expression_four_ways():
    e = maximum(A / B, C * 2) + ceil(A / 3)
    env = {"in.a": 10.0, "in.b": 4.0, "in.c": 1.0}
    assert F.evaluate(e, env) == max(2.5, 2.0) + 4
    arr = F.evaluate(e, {"in.a": np.array([10.0, 30.0]), "in.b": 4.0, "in.c": np.array([1.0, 10.0])})
    assert arr.tolist() == [6.5, 30.0]
    assert F.to_excel(e, lambda r: r.label.upper()) == "MAX(A/B,C*2)+ROUNDUP(A/3,0)"
    assert F.to_text(e) == "max(a / b, c × 2) + ceil(a / 3)"


def test_excel_parenthesises_only_where_needed():
    name = lambda r: r.label  # noqa: E731
    assert F.to_excel((A + B) * C, name) == "(a+b)*c"
    assert F.to_excel(A - (B - C), name) == "a-(b-c)"
    assert F.to_excel(A / (B * C), name) == "a/(b*c)"
    assert F.to_excel(A / B * C, name) == "a/b*c"
    assert F.to_excel(where(A <= B, "memory", "compute"), name) == 'IF(a<=b,"memory","compute")'
    assert F.to_excel(Const(1e-5) * A + Const(2.5e12), name) == "1E-05*a+2500000000000"


def test_missing_inputs_propagate_and_optional_terms_drop():
    gone = F.Missing(frozenset({"link_bandwidth"}))
    assert isinstance(A / gone, F.Missing)
    assert (A * gone + B).names == frozenset({"link_bandwidth"})
    assert F.to_excel(sum_present(A, gone, B), lambda r: r.label) == "a+b"
    assert max_present(gone, C) is C


def pint_results(path):
    scn, _ = load_scenario(path)
    r = evaluate(scn)
    env = {k: ureg.Quantity(i.value.value, i.unit) for k, i in (r.inputs | r.blanks).items()}
    const = lambda c: ureg.Quantity(c.value, c.unit) if c.unit else c.value  # noqa: E731
    for stage in ("planned", "compared"):
        for p in r.pairs:
            for x in getattr(p, stage):
                if not isinstance(x.expr, F.Missing):
                    env[x.key] = F.evaluate(x.expr, env, const)
    return r, env


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_every_formula_yields_its_declared_unit(path):
    r, env = pint_results(path)
    checked = 0
    for p in r.pairs:
        for x in p.present():
            got, value = env[x.key], p.values[x.d.id]
            if isinstance(value, (bool, str)) or value is None:      # a check, a label, or no value
                continue
            q = got if isinstance(got, ureg.Quantity) else ureg.Quantity(got, "")
            converted = q.to(x.d.unit or "dimensionless").magnitude    # raises on a dimension error
            assert math.isclose(converted, value, rel_tol=1e-9), (x.key, converted, value)
            checked += 1
    assert checked > 5


def test_every_quantity_is_documented():
    for d in F.QUANTITIES:
        assert d.description and d.label and d.id.isidentifier(), d.id
        ureg.Unit(d.unit or "dimensionless")
    ids = [(d.id, d.kinds) for d in F.QUANTITIES]
    assert len(ids) == len(set(ids))
