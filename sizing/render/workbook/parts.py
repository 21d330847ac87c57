"""Long formulas split into named parts, so that no formula a reader checks runs over LIMIT characters.

A quantity whose Excel formula is longer has its largest pieces (those that save most, repeated ones
first) moved into cells of their own, each named after the quantity (`chat.h100.servers_part1`) and
holding the engine's value of that piece; the quantity's formula then reads them by name. The
engine is unchanged: a part is a piece of the one expression, evaluated over the same values.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from ... import formulas as F
from ...formulas.expr import BinOp, Call, Expr, Ref

from .base import ROW, Book

LIMIT = 300             # characters of a formula (without '=') a reader is asked to check
WIDEST_ROW = "99999"    # a sweep row's number at its longest, where a formula template holds ROW


def pieces(e: Expr) -> Iterator[Expr]:
    """Every operation inside `e` (not `e` itself), outermost first."""
    children = (e.a, e.b) if isinstance(e, BinOp) else e.args if isinstance(e, Call) else ()
    for c in children:
        if isinstance(c, (BinOp, Call)):
            yield c
            yield from pieces(c)


def replaced(e: Expr, old: Expr, new: Expr) -> Expr:
    """`e` with every occurrence of `old` replaced by `new`; a piece without one stays the same object (its measured
    size kept)."""
    if e is old:
        return new
    if isinstance(e, BinOp):
        a, b = replaced(e.a, old, new), replaced(e.b, old, new)
        return e if a is e.a and b is e.b else BinOp(e.op, a, b)
    if isinstance(e, Call):
        args = tuple(replaced(a, old, new) for a in e.args)
        return e if all(x is y for x, y in zip(args, e.args)) else Call(e.fn, args)
    return e


def split(b: Book, e: Expr, key: str, local: dict[str, str] | None = None, env: dict[str, Any] | None = None,
          place: Callable[[str], str] | None = None) -> tuple[Expr, list[tuple[str, Expr]]]:
    """`e` with its largest pieces replaced by references to parts, and the parts (key, expression) in the order
    they are to be written. Each part gets a defined name and the engine's value (Book.names, Book.env), or, with
    `place`, the cell address `place` gives it (added to `local`) and its value in `env` (a sweep's columns)."""
    parts: list[tuple[str, Expr]] = []
    local = {} if local is None else local
    values = b.env if env is None else env or None          # an empty env: count the parts, no values

    sizes: dict[Expr, int] = {}      # by identity, as Expr compares: a piece left whole keeps its size
    memo: dict = {}

    def size(x: Expr) -> int:
        if x not in sizes:
            text = b.formula(x, local, memo)
            sizes[x] = len(text) - 1 + text.count(ROW) * (len(WIDEST_ROW) - len(ROW))   # a sweep's rows: 5 digits
        return sizes[x]

    while size(e) > LIMIT:
        pkey = f"{key}_part{len(parts) + 1}"
        name = "XX" + ROW if place else b.names.get(pkey) or b.fresh_name(pkey)
        counted: dict[Expr, int] = {}
        for p in pieces(e):
            counted[p] = counted.get(p, 0) + 1
        fits = [(n * (size(p) - len(name)), F.to_text(p), p) for p, n in counted.items()
                if len(name) < size(p) <= LIMIT]
        if not fits:
            break                 # a single operation longer than the limit: left whole
        best = max(fits, key=lambda t: t[:2])[2]
        if place:
            local[pkey] = place(pkey)
        else:
            b.names[pkey] = name
        if values is not None:
            values[pkey] = b.value(best, env)
        parts.append((pkey, best))
        e = replaced(e, best, Ref(pkey, name))
    return e, parts
