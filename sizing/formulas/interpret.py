"""The interpreter of the expression type: every function and operator on floats, numpy arrays and pint
quantities (Erlang B and C, the fleet search), and `evaluate`."""

from __future__ import annotations

import math
from functools import reduce
from typing import Any, Callable

import numpy as np

from .expr import FLEET_SEARCH, TAIL, TINY, BinOp, Call, Const, Expr, Ref


def _scalar(*xs) -> bool:
    return all(isinstance(x, (int, float, bool, str)) for x in xs)


def _ceil(x):
    if _scalar(x):
        return float(math.ceil(x)) if math.isfinite(x) else float(x)     # inf and nan stay as they are
    return np.ceil(x)


def _floor(x):
    if _scalar(x):
        return float(math.floor(x)) if math.isfinite(x) else float(x)
    return np.floor(x)


def _max(*xs):
    return max(xs) if _scalar(*xs) else reduce(np.maximum, xs)


def _min(*xs):
    return min(xs) if _scalar(*xs) else reduce(np.minimum, xs)


def _if(c, a, b):
    if isinstance(c, (bool, np.bool_)):
        return a if c else b
    kinds = {_kind(a), _kind(b)}
    if len(kinds) > 1 and ("text" in kinds or kinds == {"bool", "number"}):
        return np.where(c, np.asarray(a, dtype=object), np.asarray(b, dtype=object))    # a label or a check, or none
    return np.where(c, a, b)


def _kind(x) -> str:
    """text, bool or number: what a branch of an if holds (a check or a label beside no value keeps its type)."""
    dtype = np.asarray(x).dtype
    return "text" if dtype.kind in "UO" else "bool" if dtype.kind == "b" else "number"


def _and(*xs):
    return all(xs) if _scalar(*xs) else reduce(np.logical_and, xs)


RECURSION_LIMIT = 5000  # servers up to which Erlang B is summed exactly; beyond, through scipy


def _magnitude(x):
    return getattr(x, "magnitude", x)


def erlang_b_series(most: int, a: float) -> list[float]:
    """Erlang B for 0, 1, ... `most` servers at offered load a, by its stable recursion (one pass serves every
    server count up to `most`)."""
    out, b = [1.0], 1.0
    for k in range(1, most + 1):
        b = a * b / (k + a * b)
        out.append(b)
    return out


def erlang_c_of(c: float, a: float, b: float) -> float:
    """Erlang C from Erlang B for c servers at load a: c × B / (c − a(1 − B)) while c > a (1 at or beyond it, 0
    without load: no one waits)."""
    return 0.0 if a <= 0 else c * b / (c - a * (1 - b)) if c > a else 1.0


def _erlang_b(c, a):
    """Erlang B: the probability that an arrival finds all c servers busy, for offered load a (M/M/c/c)."""
    c, a = _magnitude(c), _magnitude(a)
    if _scalar(c, a) and c <= RECURSION_LIMIT:
        return erlang_b_series(int(round(c)), a)[-1]
    out = _erlang_b_array(np.asarray(c, dtype=float), np.asarray(a, dtype=float))
    return float(out) if out.shape == () else out


def _erlang_c(c, a):
    """Erlang C: the probability that an arrival waits, for c servers and offered load a (M/M/c)."""
    c, a = _magnitude(c), _magnitude(a)
    if _scalar(c, a) and c <= RECURSION_LIMIT:
        return erlang_c_of(c, a, _erlang_b(c, a))
    out = _erlang_c_array(np.asarray(c, dtype=float), np.asarray(a, dtype=float))
    return float(out) if out.shape == () else out


def _erlang_b_array(c, a):
    from scipy.special import gammaincc, gammaln   # only sweeps need it

    c, a = np.broadcast_arrays(c, a)
    with np.errstate(all="ignore"):
        pmf = np.exp(c * np.log(a) - a - gammaln(c + 1))
        # P(X <= c) for X ~ Poisson(a). Where the Chernoff bound on the tail beyond c, exp(k − a − k ln(k/a)) for
        # k = c + 1 > a, is below e^-40 the sum is 1 to the last bit of a float: the costly function is skipped.
        k = c + 1
        whole = (k > a) & (k - a - k * np.log(k / a) < -40)
        cdf = np.ones(c.shape)
        rest = ~whole
        cdf[rest] = gammaincc(k[rest], a[rest])
        return pmf / cdf


def _erlang_c_array(c, a):
    c, a = np.broadcast_arrays(c, a)
    b = _erlang_b_array(c, a)
    with np.errstate(all="ignore"):
        return np.where(a <= 0, 0.0, np.where(c > a, c * b / (c - a * (1 - b)), 1.0))


def _fleet_search(base, slots, a, per_server, arrivals):
    """Count candidates base, base + 1, ... whose p95 wait exceeds the slack, up to the first that fits.

    The wait falls as servers are added, so this equals the spreadsheet's count of failing candidates.
    """
    base, slots, a, per_server, arrivals = map(_magnitude, (base, slots, a, per_server, arrivals))

    def fails(k, c_of):
        servers = base + k
        return np.log(c_of(servers * slots, a) / TAIL + TINY) > servers * per_server - arrivals

    if _scalar(base, slots, a, per_server, arrivals):
        return float(next((k for k in range(FLEET_SEARCH) if not fails(k, _erlang_c)), FLEET_SEARCH))
    arrays = [v.ravel() for v in np.broadcast_arrays(
        *(np.asarray(x, dtype=float) for x in (base, slots, a, per_server, arrivals)))]
    shape = np.broadcast_shapes(*(np.shape(x) for x in (base, slots, a, per_server, arrivals)))
    count = np.zeros(arrays[0].shape)
    live = np.arange(len(count))            # the points still failing: only they are searched further
    for k in range(FLEET_SEARCH):
        b, s, load, per, arr = (x[live] for x in arrays)
        servers = b + k
        with np.errstate(all="ignore"):
            still = np.log(_erlang_c_array(servers * s, load) / TAIL + TINY) > servers * per - arr
        live = live[still]
        count[live] += 1
        if not len(live):
            break
    return count.reshape(shape)


def _ln(x):
    x = _plain(x)
    if _scalar(x):
        return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)
    return np.log(x)


def _exp(x):
    x = _plain(x)
    return math.exp(x) if _scalar(x) else np.exp(x)


def _plain(x):
    """A dimensionless number as a float (pint may hold it as a Fraction), arrays as they are."""
    x = _magnitude(x)
    return x if isinstance(x, np.ndarray) else float(x)


def _given(x):
    """Whether `x` holds a number (not NaN: a blank input or a result with no value)."""
    x = _magnitude(x)
    if _scalar(x):
        return x is not None and not isinstance(x, str) and not math.isnan(x)
    return ~np.isnan(np.asarray(x, dtype=float))


def _min_given(a, b):
    """The smaller of a and b where both hold a number, else the one that does (NaN where neither does)."""
    ma, mb = _magnitude(a), _magnitude(b)         # a pint quantity keeps its unit
    if _scalar(ma, mb):
        return b if math.isnan(ma) else a if math.isnan(mb) else a if ma <= mb else b
    return np.fmin(a, b)


def _unpriced_or(x, cond):
    """`cond`, or true where `x` has no number (an option not priced passes a budget it does not spend)."""
    x = _magnitude(x)
    if _scalar(x):
        return cond if x is not None and not math.isnan(x) else True
    return np.where(np.isnan(np.asarray(x, dtype=float)), True, cond)


FUNCS: dict[str, Callable] = {"max": _max, "min": _min, "ceil": _ceil, "floor": _floor, "if": _if, "and": _and,
                              "ln": _ln, "exp": _exp, "erlang_b": _erlang_b, "fleet_search": _fleet_search,
                              "unpriced_or": _unpriced_or, "blank_or": _unpriced_or, "given": _given,
                              "min_given": _min_given}
def _div(a, b):
    """a / b; dividing by zero gives inf or nan as numpy and the spreadsheet (#DIV/0!) do, never an exception."""
    if _scalar(a, b) and b == 0:
        return math.copysign(math.inf, a) * math.copysign(1, b) if a else math.nan
    return a / b


OPS: dict[str, Callable] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": _div,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def evaluate(e: Expr, env: dict[str, Any], const: Callable[[Const], Any] | None = None,
             seen: dict[int, Any] | None = None) -> Any:
    """Evaluate on floats, numpy arrays or pint quantities (`const` maps literals for pint). A function call that
    appears twice in one expression as the same object (Erlang B inside Erlang C) is evaluated once."""
    if isinstance(e, Ref):
        return env[e.key]
    if isinstance(e, Const):
        return const(e) if const else e.value
    if seen is None:
        seen = {}
    if isinstance(e, BinOp):
        return OPS[e.op](evaluate(e.a, env, const, seen), evaluate(e.b, env, const, seen))
    if isinstance(e, Call):
        if id(e) not in seen:
            seen[id(e)] = FUNCS[e.fn](*(evaluate(a, env, const, seen) for a in e.args))
        return seen[id(e)]
    raise TypeError(f"cannot evaluate {e!r}")
