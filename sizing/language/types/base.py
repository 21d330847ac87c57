"""Field types' common ground: the patterns numbers and units are written in, the limits a spreadsheet's data
validation states, and the base class every field type derives from."""


from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...loader import Node

if TYPE_CHECKING:
    from ..checker import Checker
    from ..fields import Field
    from ..values import Value


CATALOG_DIR = Path(__file__).parents[2] / "catalog"
MAX_TEXT = 4000
SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]*$")         # Python: fullmatch (a $ also matches before a final newline)
DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")

# -- what the JSON Schema accepts as text: the checker's grammar, written as ECMA-262 patterns ------------
# A decimal without the leading zeros YAML 1.1 reads as octal.
NUMBER = r"(?:(?:0|[1-9]\d*(?:_\d+)*)(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][-+]?\d+)?"
NOT_ZERO = r"(?!0*\.?0*(?:[eE][-+]?\d+)?(?![\d._]))"        # put before NUMBER: refuses 0, 0.0, 0e3
NO_CONTROL = r"^[^\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufdd0-\ufdef\ufffe\uffff\u2028\u2029\u202a-\u202e\u2066-\u2069]*$"
ONE_LINE = r"^[^\u0000-\u0008\u000a-\u001f\u007f-\u009f\ufdd0-\ufdef\ufffe\uffff\u2028\u2029\u202a-\u202e\u2066-\u2069]*$"
_TIME = r"(?:[nuµμm]?s|sec|seconds?|min|minutes?|h|hr|hours?|d|days?|weeks?|months?|yr|years?)"
_PER = r"\s*(?:/|per\s)\s*"
_BYTES = r"(?:[kKMGTPE]i?)?(?:B|bits?|bytes?)"          # never Gb: bits or bytes?
_FLOP = r"[kMGTPE]?(?:FLOP|flop|OP)"
_TOKENS = r"[kMGT]?(?:tokens?|tok)"
_ENERGY = r"[kMG]?(?:Wh|J)"
# The unit after the number, per kind; for money, what follows the currency ($, USD or another ISO 4217 code).
UNIT_PATTERNS = {
    "compute_rate": rf"{_FLOP}(?:S|{_PER}{_TIME})",
    "compute": rf"{_FLOP}s?",
    "compute_per_token": rf"{_FLOP}s?{_PER}{_TOKENS}",
    "memory": _BYTES,
    "memory_per_token": rf"{_BYTES}{_PER}{_TOKENS}",
    "bandwidth": rf"{_BYTES}{_PER}{_TIME}",
    "duration": _TIME,
    "frequency": r"[kMGT]?Hz",
    "width": _BYTES,
    "hourly_price": rf"{_PER}{_TIME}",
    "money": "",
    "power": r"[kMG]?W",
    "energy": _ENERGY,
    "energy_price": rf"{_PER}{_ENERGY}",
    "token_price": rf"{_PER}{_TOKENS}",
    "tokens": _TOKENS,
    "request_rate": rf"(?:requests?|req|query|queries){_PER}{_TIME}",
    "token_rate": rf"{_TOKENS}{_PER}{_TIME}",
}
PERCENT = r"(?:100(?:\.0*)?|\d{1,2}(?:\.\d*)?|\.\d+)\s*%"       # at most 100 %
UNIT_FRACTION = r"(?:0(?:\.\d*)?|1(?:\.0*)?|\.\d+)"               # a plain fraction lies in [0, 1]


@dataclass(frozen=True)
class Limits:
    """The numbers a field accepts, as a spreadsheet's data validation states them."""

    whole: bool = False
    low: float | None = None
    strict: bool = False          # low itself excluded
    high: float | None = None
    choices: tuple = ()           # numbers only


class FieldType:
    """What a field holds. Subclasses are frozen dataclasses (declared eq=False to keep this class's equality)."""

    numeric = False               # a sweep may vary it
    whole = False                 # whole numbers only

    @property
    def name(self) -> str:
        """The type as the language's docs spell it: 'fraction', 'quantity:bandwidth', 'map:count'."""
        return type(self).__name__.lower()

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __hash__(self) -> int:
        return hash((type(self), *vars(self).values()))

    def describe(self) -> str:
        """A noun phrase for what the field expects, used in messages."""
        return "text"

    def walk(self, chk: Checker, node: Node, f: Field, path: str, out: dict[str, Value], key: str) -> None:
        """Check `node`, storing its checked values into `out` under `key` (and keys below it)."""
        raise NotImplementedError

    def validation(self, f: Field) -> Limits:
        """What a spreadsheet's data validation enforces for the field."""
        return Limits(self.whole, 0.0 if f.positive or f.nonnegative else None, f.positive, f.maximum)

    def default(self, raw: Any) -> tuple[Any, str | None, str]:
        """A declared default as (value, unit, text)."""
        unit = "" if isinstance(raw, (int, float)) and not isinstance(raw, bool) else None
        return raw, unit, str(raw)

    def json_schema(self, f: Field) -> dict:
        raise NotImplementedError


def described(f: Field, **schema: Any) -> dict:
    """A field's JSON Schema: its description and default, then `schema`."""
    default = {"default": f.default} if f.default is not None else {}
    return {"description": f.doc, **default, **schema}


def bounds(f: Field) -> dict:
    """JSON Schema keywords for the field's numeric limits."""
    low = {"exclusiveMinimum": 0} if f.positive else {"minimum": 0} if f.nonnegative else {}
    return {**low, **({"maximum": f.maximum} if f.maximum is not None else {})}


def sign(f: Field) -> str:
    """The sign a number of the field may be written with (and, when positive, not zero)."""
    if f.positive:
        return r"\+?" + NOT_ZERO
    return r"\+?" if f.nonnegative else "[-+]?"


