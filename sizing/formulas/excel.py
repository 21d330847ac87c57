"""Expressions as Excel formula text: references by name, named constants by name, the rest as classic functions."""

from __future__ import annotations

import math
import re
from typing import Callable

from .expr import FLEET_SEARCH, PRECEDENCE, TAIL_C, TINY_C, BinOp, Call, Const, Expr, Ref, constant

Names = Callable[[Ref], str]
Constants = Callable[[Const], "str | None"]      # a named constant's name in the workbook; None: write the literal

CANDIDATES = constant("extra", tuple(range(FLEET_SEARCH)), "",
                      f"the extra replicas the fleet search tries above the fleet for the peak (0 to {FLEET_SEARCH - 1})")
EXCEL_FUNCS = {"max": "MAX", "min": "MIN", "and": "AND", "ln": "LN", "exp": "EXP"}


def excel_number(x: float) -> str:
    if isinstance(x, bool):
        return "TRUE" if x else "FALSE"
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x)).upper()      # 1e-05 -> 1E-05: the form every spreadsheet reads


def literal(c: Const, constants: Constants | None) -> str:
    named = constants(c) if constants and c.name else None
    if named:
        return named
    if isinstance(c.value, tuple):
        return "{" + ",".join(excel_number(v) for v in c.value) + "}"
    if isinstance(c.value, str):
        return '"' + c.value.replace('"', '""') + '"'
    if isinstance(c.value, float) and math.isnan(c.value):
        return '""'
    return excel_number(c.value)


def excel_erlang_b(c: str, a: str) -> str:
    """Erlang B = Poisson pmf / cdf (the spreadsheet has no loops)."""
    return f"(POISSON({c},{a},FALSE)/POISSON({c},{a},TRUE))"


def grouped(x: str) -> str:
    """An argument in parentheses unless it is one name or number."""
    return x if re.fullmatch(r"[A-Za-z0-9_.$\x01]+", x) else f"({x})"        # \x01: a sweep row to come


def excel_fleet_search(base: str, slots: str, a: str, per_server: str, arrivals: str,
                       constants: Constants | None = None) -> str:
    """Count the failing candidates with SUMPRODUCT over the offsets (an array constant, named).

    Erlang C as B / (1 − a/c × (1 − B)), which is c × B / (c − a(1 − B)) with c written once less; no load gives
    B = 0, so C = 0 (the candidates always have more slots than the load: c > a)."""
    base, slots, a, per_server, arrivals = map(grouped, (base, slots, a, per_server, arrivals))
    servers = f"({base}+{literal(CANDIDATES, constants)})"
    n = f"{servers}*{slots}"                 # as a function's argument: no parentheses needed
    b = f"POISSON({n},{a},FALSE)/POISSON({n},{a},TRUE)"
    erlang = f"({b})/(1-{a}/({n})*(1-{b}))"
    return (f"SUMPRODUCT((LN({erlang}/{literal(TAIL_C, constants)}+{literal(TINY_C, constants)})"
            f">{servers}*{per_server}-{arrivals})*1)")       # *1, not --: the formulas package reads -- as 0


def to_excel(e: Expr, name: Names, parent: int = -1, constants: Constants | None = None,
             memo: dict | None = None) -> str:
    """Excel formula text (without '=') with references rendered by `name` and named constants by `constants`.
    `memo` keeps each operation's text by identity (and the precedence around it) while `name` renders every
    reference alike: splitting a long formula measures its pieces again and again, each then in constant time."""
    if memo is None or not isinstance(e, (BinOp, Call)):
        return rendered(e, name, parent, constants, memo)
    hit = memo.get((id(e), parent))
    if hit is None or hit[0] is not e:
        hit = memo[(id(e), parent)] = (e, rendered(e, name, parent, constants, memo))     # e kept: its id not reused
    return hit[1]


def rendered(e: Expr, name: Names, parent: int, constants: Constants | None, memo: dict | None) -> str:
    if isinstance(e, Ref):
        return name(e)
    if isinstance(e, Const):
        return literal(e, constants)
    if isinstance(e, BinOp):
        if e.op in "*/" and isinstance(e.b, Const) and e.b.value == 1 and not e.b.name:
            return to_excel(e.a, name, parent, constants, memo)          # × or / a unit (one request, one token)
        if e.op == "*" and isinstance(e.a, Const) and e.a.value == 1 and not e.a.name:
            return to_excel(e.b, name, parent, constants, memo)
        p = PRECEDENCE[e.op]
        # right operand of - and / binds tighter, so parenthesise equal precedence there
        s = (f"{to_excel(e.a, name, p, constants, memo)}{e.op}"
             f"{to_excel(e.b, name, p + (e.op in '-/'), constants, memo)}")
        return f"({s})" if p < parent else s
    if isinstance(e, Call):
        args = [to_excel(a, name, -1, constants, memo) for a in e.args]
        if e.fn == "ceil":
            return f"ROUNDUP({args[0]},0)"
        if e.fn == "floor":
            return f"ROUNDDOWN({args[0]},0)"
        if e.fn == "if":
            return f"IF({','.join(args)})"
        if e.fn == "given":
            return f"ISNUMBER({args[0]})"
        if e.fn == "min_given":
            a, b = args
            return f"IF(ISNUMBER({a}),IF(ISNUMBER({b}),MIN({a},{b}),{a}),{b})"
        if e.fn == "unpriced_or" and isinstance(e.args[1], BinOp) and e.args[1].op == "<=" and e.args[1].a == e.args[0]:
            return f"N({args[0]})<={to_excel(e.args[1].b, name, PRECEDENCE['<='], constants, memo)}"  # a cap >= 0: blank passes
        if e.fn == "unpriced_or":
            return f"OR(NOT(ISNUMBER({args[0]})),{args[1]})"
        if e.fn == "blank_or":                  # a typed cell: blank passes, text fails, a number meets `cond`
            return f"OR(ISBLANK({args[0]}),AND(ISNUMBER({args[0]}),{args[1]}))"
        if e.fn == "erlang_b":
            return excel_erlang_b(*args)
        if e.fn == "fleet_search":
            return excel_fleet_search(*args, constants=constants)
        return f"{EXCEL_FUNCS[e.fn]}({','.join(args)})"
    raise TypeError(f"cannot render {e!r}")
