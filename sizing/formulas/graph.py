"""The registry of inputs and quantities, and the planner that binds them for one (workload, device) pair."""

from __future__ import annotations

import functools
import heapq
from dataclasses import dataclass
from typing import Callable

from .expr import Const, Expr, Missing, Ref

ALL = "*"


@dataclass(frozen=True)
class InputDef:
    """An input role the formulas read: its SI unit, meaning, and the scenario fields it is read from."""

    role: str
    unit: str
    description: str
    fields: tuple[tuple[str, str], ...] = ()   # (entity kind, field path); later ones win; "{p}" = precision
    assumption: bool = True                     # an estimate a sensitivity analysis may move
    fraction: bool = False                      # between 0 and 1 (capped at 100 % when moved up)
    display: str | None = None                  # how a sentence shows it, where the unit alone would mislead

    def path(self, entity: str) -> str | None:
        """The field path this input is read from on an entity of that kind (None: not read from it)."""
        return next((p for e, p in self.fields if e == entity), None)


@dataclass(frozen=True)
class QuantityDef:
    """A derived quantity: defined once, with its unit, meaning and preferred display unit."""

    id: str
    unit: str
    description: str
    kinds: tuple[str, ...]
    fn: Callable
    display: str | None = None
    warn: str | None = None       # said when the quantity is absent for want of an input ...
    warn_on: tuple[str, ...] = () # ... of one of these
    maximise: bool = False        # larger is better when ranking
    label: str | None = None      # what a person calls it, for reports
    type: str = "number"          # number | check (true/false) | label (a word, e.g. memory or compute)
    compares: tuple[str, str] | None = None   # a memory check: (the need, the capacity it is held against);
                                               # a capacity that is not a quantity is the device input `memory`
    requirement: bool = False     # a check an option must pass to run as planned (fits, meets a target)
    count: bool = False           # a whole number (replicas, devices, a batch): an integer in JSON

    @property
    def check(self) -> bool:
        return self.type == "check"


@dataclass(frozen=True)
class Comparison:
    """A quantity relating a pair to another device's pair of the same workload."""

    id: str
    unit: str
    description: str
    kinds: tuple[str, ...]
    base: str
    fn: Callable


INPUTS: dict[str, InputDef] = {}
TEXT_INPUTS: dict[str, str] = {}             # text inputs (choices the definitions branch on) and their meaning
QUANTITIES: list[QuantityDef] = []
COMPARISONS: list[Comparison] = []
NA = Missing(frozenset())        # "does not apply here", as opposed to a missing input


def inp(role: str, unit: str, description: str, *, device: str | None = None, model: str | None = None,
        workload: str | None = None, assumption: bool = True, fraction: bool = False,
        display: str | None = None) -> None:
    """Declare an input role; device/model/workload name the field it is read from on that entity."""
    fields = tuple((e, p) for e, p in (("device", device), ("model", model), ("workload", workload)) if p)
    INPUTS[role] = InputDef(role, unit, description, fields, assumption, fraction, display)


def read_from(entity: str) -> tuple[tuple[str, str], ...]:
    """(role, field path) of every input read from an entity of that kind, in declaration order."""
    return _read_from(entity, len(INPUTS))


@functools.lru_cache(maxsize=16)
def _read_from(entity: str, declared: int) -> tuple[tuple[str, str], ...]:   # `declared`: a later inp() misses
    return tuple((role, path) for role, i in INPUTS.items() if (path := i.path(entity)) is not None)


def text_input(name: str, description: str) -> None:
    TEXT_INPUTS[name] = description


def quantity(kinds, id: str, unit: str, description: str, *, display: str | None = None,
             warn: str | None = None, warn_on: tuple[str, ...] = (), maximise: bool = False,
             label: str | None = None, type: str = "number", compares: tuple[str, str] | None = None,
             requirement: bool = False, count: bool = False):
    """Register the decorated function as the definition of quantity `id`."""
    kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
    assert type in ("number", "check", "label"), type

    def register(fn):
        QUANTITIES.append(QuantityDef(id, unit, description, kinds, fn, display, warn, warn_on, maximise, label,
                                      type, compares, requirement, count))
        return fn
    return register


def comparison(kinds, id: str, unit: str, description: str, *, base: str):
    kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)

    def register(fn):
        COMPARISONS.append(Comparison(id, unit, description, kinds, base, fn))
        return fn
    return register


def quantity_defs(kind: str) -> list[QuantityDef]:
    return [d for d in QUANTITIES if ALL in d.kinds or kind in d.kinds]


def definition(qid: str, kind: str | None = None) -> QuantityDef | None:
    """A quantity's definition; with `kind`, the one that kind uses (several kinds share some ids)."""
    defs = quantity_defs(kind) if kind else QUANTITIES
    return next((d for d in defs if d.id == qid), None)


class NotYet(Exception):
    """A definition asked for a quantity of its kind that is not planned yet."""


class Space:
    """What a definition sees: inputs and earlier quantities of its pair as references."""

    def __init__(self, inputs: dict[str, Ref], texts: dict[str, str], kind_ids: set[str]):
        self._inputs = inputs
        self._texts = texts
        self._kind_ids = kind_ids

    def __getattr__(self, name: str) -> Expr:
        """Called only for a name not yet an attribute: a quantity planned, or an input read, becomes one."""
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._kind_ids:
            raise NotYet(name)
        if name in INPUTS:
            value = self.__dict__[name] = self._inputs.get(name, Missing(frozenset([name])))
            return value
        raise AttributeError(f"no input or earlier quantity named {name!r}")

    def has(self, name: str) -> bool:
        return not isinstance(getattr(self, name), Missing)

    def text(self, name: str) -> str | None:
        if name not in TEXT_INPUTS:
            raise AttributeError(f"no text input named {name!r}")
        return self._texts.get(name)


@dataclass(frozen=True)
class Planned:
    """A quantity bound to a pair: its definition and its expression (Missing when absent)."""

    d: QuantityDef
    expr: Expr
    key: str


def plan(kind: str, inputs: dict[str, Ref], texts: dict[str, str], prefix: str) -> list[Planned]:
    """Bind every quantity of `kind` to a pair's inputs: the earliest defined first, each after those it uses.
    The same pair bound to the same input cells plans the same (a grid's cells, a what-if): planned once."""
    signature = (kind, prefix, tuple(sorted((n, r.key, r.label) for n, r in inputs.items())),
                 tuple(sorted(texts.items())))
    if signature not in PLANS:
        if len(PLANS) >= 4096:
            PLANS.clear()
        PLANS[signature] = bind(kind, inputs, texts, prefix)
    return list(PLANS[signature])


PLANS: dict[tuple, list[Planned]] = {}       # the plans made in this process, by what they were made from


def bind(kind: str, inputs: dict[str, Ref], texts: dict[str, str], prefix: str) -> list[Planned]:
    """Plan the earliest-defined definition that can be planned now, again and again. A definition that asks
    for a quantity not planned yet waits for it, and is tried again (in its place) once it is planned."""
    defs = quantity_defs(kind)
    space = Space(inputs, texts, {d.id for d in defs})
    ready = list(range(len(defs)))                 # a heap of definition indices worth trying
    waiting: dict[str, list[int]] = {}
    out: list[Planned] = []
    while ready:
        d = defs[i := heapq.heappop(ready)]
        try:
            e = d.fn(space)
        except NotYet as wanted:
            waiting.setdefault(wanted.args[0], []).append(i)
            continue
        e = e if isinstance(e, Expr) else Const(e)
        key = f"{prefix}{d.id}"
        space.__dict__[d.id] = e if isinstance(e, Missing) else Ref(key, d.id)   # planned: an attribute
        out.append(Planned(d, e, key))
        for j in waiting.pop(d.id, ()):
            heapq.heappush(ready, j)
    if len(out) < len(defs):
        planned = {x.d.id for x in out}
        raise RuntimeError(f"circular definitions: {', '.join(d.id for d in defs if d.id not in planned)}")
    return out
