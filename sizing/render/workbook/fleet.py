"""The Fleet sheet: each fleet search as a block of candidate rows a reader can follow.

The replicas that serve the peak are the fewest, from the fleet for the peak at the maximum utilisation
upwards, whose p95 wait for a slot fits the time left for queueing. On Calc that search would be one
array formula of some 2,000 characters; here each candidate is a row (replicas, Erlang B, the chance of
waiting, whether the wait is too long) and Calc adds the count of failing candidates.
"""

from __future__ import annotations

import numpy as np

from ...formulas.expr import FLEET_SEARCH, TAIL, TAIL_C, TINY, TINY_C, BinOp, Call, Expr, Ref
from ...formulas.interpret import RECURSION_LIMIT, _erlang_b, erlang_b_series, erlang_c_of

from .base import Align, Book, header, put, put_text, widths
from .parts import replaced

TITLE = "Fleet"
ARGUMENTS = ("the fleet for the peak at the maximum utilisation", "slots of one replica (sequences served together)",
             "offered load at the peak (Erlang)", "requests one replica completes within the time left for queueing",
             "requests arriving within the time left for queueing")
SUFFIXES = ("base", "slots", "load", "per_replica", "arrivals")


def searches(e: Expr) -> list[Call]:
    """The fleet searches inside an expression."""
    if isinstance(e, Call):
        own = [e] if e.fn == "fleet_search" else []
        return own + [c for a in e.args for c in searches(a)]
    if isinstance(e, BinOp):
        return searches(e.a) + searches(e.b)
    return []


def with_blocks(b: Book, e: Expr, key: str, title: str) -> Expr:
    """`e` with each fleet search replaced by a reference to the count of its block on the Fleet sheet."""
    for n, call in enumerate(searches(e)):
        e = replaced(e, call, block(b, call, f"{key}_search" + (f"{n + 1}" if n else ""), title))
    return e


def name_for(b: Book, key: str) -> str:
    b.names[key] = b.fresh_name(key)
    return b.names[key]


def block(b: Book, call: Call, key: str, title: str) -> Ref:
    """A fleet search's block: its arguments, the count of failing candidates, and one row per candidate."""
    ws = b.sheets.get(TITLE) or start(b)
    row = ws.max_row + 2
    put_text(ws, row, 1, title, "sizing section")
    args = []
    for i, (arg, words, suffix) in enumerate(zip(call.args, ARGUMENTS, SUFFIXES)):
        akey = f"{key}.{suffix}"
        put_text(ws, row + 1 + i, 1, words)
        cell = b.put_formula(ws, row + 1 + i, 2, arg, "#,##0.###")
        b.define(name_for(b, akey), cell)
        b.env[akey] = b.value(arg)
        args.append(b.names[akey])
    base, slots, load, per_replica, arrivals = args
    values = [float(b.env[f"{key}.{s}"]) for s in SUFFIXES]
    first = row + 8
    last = first + FLEET_SEARCH - 1
    count_row = row + 6
    put_text(ws, count_row, 1, "extra replicas: the candidates below whose p95 wait is too long")
    header(ws, row + 7, ["candidate", "replicas (no spare)", "Erlang B", "chance of waiting", "p95 wait too long"],
           right=range(1, 6))
    tail, tiny = b.constant(TAIL_C), b.constant(TINY_C)
    fails = []
    offered = values[2]
    most = values[0] * values[1] + values[1] * (FLEET_SEARCH - 1)       # the largest candidate's slots
    blocking = erlang_b_series(int(most), offered) if float(most).is_integer() and most <= RECURSION_LIMIT else []
    for k in range(FLEET_SEARCH):
        r = first + k
        servers = values[0] + k
        c = servers * values[1]
        erlang_b = blocking[int(c)] if float(c).is_integer() and c < len(blocking) else _erlang_b(c, offered)
        chance = erlang_c_of(c, offered, erlang_b)
        fail = bool(np.log(chance / TAIL + TINY) > servers * values[3] - values[4])
        fails.append(fail)
        put(ws, r, 1, k, "0")
        put(ws, r, 2, f"={base}+A{r}", "#,##0", value_of=servers)
        put(ws, r, 3, f"=POISSON(B{r}*{slots},{load},FALSE)/POISSON(B{r}*{slots},{load},TRUE)", "0.000E+00",
            value_of=erlang_b)
        put(ws, r, 4, f"=IF({load}<=0,0,IF(B{r}*{slots}>{load},B{r}*{slots}*C{r}/(B{r}*{slots}-{load}*(1-C{r})),1))",
            "0.000E+00", value_of=chance)
        put(ws, r, 5, f"=LN(D{r}/{tail}+{tiny})>B{r}*{per_replica}-{arrivals}", value_of=fail)
    count = put(ws, count_row, 2, f"=COUNTIF(E{first}:E{last},TRUE)", "0", value_of=float(sum(fails)))
    count.align = Align("right")
    b.define(name_for(b, key), count)
    b.env[key] = float(sum(fails))
    return Ref(key, b.names[key])


def start(b: Book):
    ws = b.sheet(TITLE)
    put_text(ws, 1, 1, "Fleet: each fleet search, one row per candidate fleet; Calc adds the extra replicas to the "
                       "fleet for the peak", "sizing title")
    put_text(ws, 2, 1, "a candidate fails while ln(chance of waiting / 5 %) > replicas x requests one completes - "
                       "requests arriving, within the time left for queueing (M/M/c, Erlang C)", "sizing note")
    widths(ws, {"A": 62, "B": 16, "C": 14, "D": 18, "E": 18})
    ws.freeze = "A3"
    return ws
