"""A tiny expression type: one definition, evaluated on floats, numpy arrays and pint, or rendered as Excel or text."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import reduce
from typing import Any, Callable

import numpy as np

PRECEDENCE = {"or": 0, "and": 0, "<": 1, "<=": 1, ">": 1, ">=": 1, "+": 2, "-": 2, "*": 3, "/": 3}


class Expr:
    """Base of all expressions; Python operators build trees."""

    def __add__(self, o): return binop("+", self, o)
    def __radd__(self, o): return binop("+", o, self)
    def __sub__(self, o): return binop("-", self, o)
    def __rsub__(self, o): return binop("-", o, self)
    def __mul__(self, o): return binop("*", self, o)
    def __rmul__(self, o): return binop("*", o, self)
    def __truediv__(self, o): return binop("/", self, o)
    def __rtruediv__(self, o): return binop("/", o, self)
    def __lt__(self, o): return binop("<", self, o)
    def __le__(self, o): return binop("<=", self, o)
    def __gt__(self, o): return binop(">", self, o)
    def __ge__(self, o): return binop(">=", self, o)
    __hash__ = object.__hash__


@dataclass(frozen=True, eq=False)
class Const(Expr):
    """A literal; `unit` gives it a pint unit when dimensions are checked (e.g. 2 FLOP per MAC)."""

    value: Any
    unit: str = ""
    name: str = ""          # a named constant (the workbook's `k.<name>` cell); "" for a plain literal


@dataclass(frozen=True, eq=False)
class Ref(Expr):
    """A named input or quantity; `key` indexes the environment, `label` is the readable name."""

    key: str
    label: str


@dataclass(frozen=True, eq=False)
class BinOp(Expr):
    op: str
    a: Expr
    b: Expr


@dataclass(frozen=True, eq=False)
class Call(Expr):
    fn: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, eq=False)
class Missing(Expr):
    """An absent input or inapplicable quantity; any expression using it is absent too."""

    names: frozenset

    def merge(self, other: Any) -> "Missing":
        return Missing(self.names | other.names) if isinstance(other, Missing) else self


NOTHING_TEXT = "none"


def nothing() -> Const:
    """No value (e.g. a batch that never turns compute-bound): NaN in Python, a blank in the spreadsheet."""
    return Const(math.nan)


def wrap(x: Any) -> Expr:
    return x if isinstance(x, Expr) else Const(x)


def binop(op: str, a: Any, b: Any) -> Expr:
    if isinstance(a, Missing):
        return a.merge(b)
    if isinstance(b, Missing):
        return b
    return BinOp(op, wrap(a), wrap(b))


def call(fn: str, *args: Any) -> Expr:
    missing = [a for a in args if isinstance(a, Missing)]
    if missing:
        return reduce(Missing.merge, missing)
    return Call(fn, tuple(wrap(a) for a in args))


def present(args) -> list:
    return [a for a in args if not isinstance(a, Missing)]


# -- helpers used by the definitions --------------------------------------------------------
def maximum(*args): return call("max", *args)
def minimum(*args): return call("min", *args)
def ceil(x): return call("ceil", x)
def floor(x): return call("floor", x)
def where(cond, a, b): return call("if", cond, a, b)
def all_of(*args): return call("and", *args)
def ln(x): return call("ln", x)
def exp(x): return call("exp", x)
def erlang_b(servers, load): return call("erlang_b", servers, load)


def erlang_c(servers, load):
    """Erlang C (the chance an arrival waits, M/M/c) from Erlang B: c × B / (c − a × (1 − B)) while c > a (1 when
    the load reaches the servers, 0 without load); written out, so that a long formula splits at B."""
    b = erlang_b(servers, load)
    return where(load <= 0, 0, where(servers > load, servers * b / (servers - load * (1 - b)), 1))
def unpriced_or(x, cond): return call("unpriced_or", x, cond)
def given(x): return call("given", x)
def min_given(a, b): return call("min_given", a, b)


def if_given(value, *needs):
    """`value` where every one of `needs` holds a number, else nothing (a blank cell): a device not offered on a
    basis (no price, no purchase) has no cost on it."""
    cond = given(needs[0]) if len(needs) == 1 else all_of(*(given(x) for x in needs))
    return where(cond, value, nothing())


def fleet_search(base, slots, load, per_server, arrivals):
    """Extra servers (0..FLEET_SEARCH-1) beyond `base` before the p95 wait fits the slack.

    `per_server` and `arrivals` are requests one server completes, and requests arriving, within
    the slack; a candidate fails while ln(C / 5 %) > servers x per_server - arrivals.
    """
    return call("fleet_search", base, slots, load, per_server, arrivals)


def sum_present(*args) -> Expr:
    """Sum of the terms that apply; absent when none does."""
    terms = present(args)
    if not terms:
        return reduce(Missing.merge, args)
    return reduce(lambda x, y: binop("+", x, y), terms)


def max_present(*args) -> Expr:
    terms = present(args)
    if not terms:
        return reduce(Missing.merge, args)
    return terms[0] if len(terms) == 1 else call("max", *terms)


def min_present(*args) -> Expr:
    terms = present(args)
    if not terms:
        return reduce(Missing.merge, args)
    return terms[0] if len(terms) == 1 else call("min", *terms)


def all_present(*args) -> Expr:
    terms = present(args)
    if not terms:
        return reduce(Missing.merge, args)
    return terms[0] if len(terms) == 1 else call("and", *terms)


def first_present(*args) -> Expr:
    """The first term that applies (a given value before a derived one)."""
    for a in args:
        if not isinstance(a, Missing):
            return a
    return reduce(Missing.merge, args)


# -- interpreters ---------------------------------------------------------------------------
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


NAMED: dict[str, tuple[Const, str]] = {}


def constant(name: str, value: float, unit: str = "", meaning: str = "") -> Const:
    """A literal with a name and a meaning: the workbook shows it once, on its Constants sheet, and every
    formula reads it by name."""
    c = Const(value, unit, name)
    NAMED[name] = (c, meaning)
    return c


TAIL = 0.05            # p95: the probability of waiting longer is 5 %
TINY = 1e-300          # keeps ln() finite when the chance of waiting underflows to zero
FLEET_SEARCH = 64      # candidates tried above the fleet for the peak
TAIL_C = constant("p95_tail", TAIL, "", "the share of requests allowed to wait longer than the target (p95: 5 %)")
FLEET_SEARCH_C = constant("fleet_search_limit", FLEET_SEARCH, "",
                          "extra replicas the fleet search may add above the fleet for the peak")
TINY_C = constant("tiny", TINY, "", "a tiny number that keeps LN() finite when the chance of waiting underflows")
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
                              "unpriced_or": _unpriced_or, "given": _given,
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


TEXT_OPS = {"<=": "≤", ">=": "≥", "*": "×", "/": "/", "+": "+", "-": "−", "<": "<", ">": ">"}


def to_text(e: Expr, parent: int = -1) -> str:
    """Readable formula text for the report's method section."""
    if isinstance(e, Ref):
        return e.label
    if isinstance(e, Const):
        if isinstance(e.value, str):
            return f'"{e.value}"'
        if e.name:                     # a named constant reads by name; the method lists its value once
            return e.name
        v = e.value
        if isinstance(v, float) and math.isnan(v):
            return NOTHING_TEXT
        if isinstance(v, bool):
            return "true" if v else "false"
        s = f"{v:g}" if not float(v).is_integer() or abs(v) >= 1e6 else str(int(v))
        return f"{s} {e.unit}".strip() if e.unit else s
    if isinstance(e, BinOp):
        p = PRECEDENCE[e.op]
        s = f"{to_text(e.a, p)} {TEXT_OPS[e.op]} {to_text(e.b, p + (e.op in '-/'))}"
        return f"({s})" if p < parent else s
    if isinstance(e, Call):
        names = {"if": "if", "and": "all", "ceil": "ceil", "floor": "floor", "max": "max", "min": "min",
                 "ln": "ln", "exp": "exp", "erlang_b": "erlang_b", "fleet_search": "fleet_search",
                 "unpriced_or": "unpriced_or", "min_given": "min of those given"}
        if e.fn == "given":
            return f"{to_text(e.args[0], PRECEDENCE['<'])} given"
        return f"{names[e.fn]}({', '.join(to_text(a) for a in e.args)})"
    raise TypeError(f"cannot render {e!r}")


def refs(e: Expr) -> list[Ref]:
    """Every reference in the expression, in order of appearance."""
    if isinstance(e, Ref):
        return [e]
    if isinstance(e, BinOp):
        return refs(e.a) + refs(e.b)
    if isinstance(e, Call):
        return [r for a in e.args for r in refs(a)]
    return []
