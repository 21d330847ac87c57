"""A tiny expression type: one definition, evaluated on floats, numpy arrays and pint (interpret.py), or rendered as Excel
or text."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import reduce
from typing import Any

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
def blank_or(x, cond): return call("blank_or", x, cond)       # a blank cell passes; text typed into it fails
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
                 "unpriced_or": "unpriced_or", "blank_or": "blank or", "min_given": "min of those given"}
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
