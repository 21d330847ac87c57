"""Field types: each parses a scalar, names itself in messages, bounds data validation and emits its JSON Schema."""

from __future__ import annotations

import datetime as dt
import difflib
import re
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..loader import Mapping, Node, Scalar, Sequence, load_file
from ..text_policy import FORBIDDEN
from ..units import FRACTION_LIKE, KINDS, UnitError, parse_fraction, parse_number, parse_quantity

if TYPE_CHECKING:
    from .checker import Checker
    from .fields import Field
    from .values import Value

CATALOG_DIR = Path(__file__).parents[1] / "catalog"
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


# -- scalars -------------------------------------------------------------------------------------------
class Leaf(FieldType):
    """A scalar, read from its text exactly as written."""

    def parse(self, node: Scalar) -> tuple[Any, str | None]:
        """The value and its SI unit ('' for plain numbers, None for text); raise UnitError with the message."""
        raise NotImplementedError

    def walk(self, chk: Checker, node: Node, f: Field, path: str, out: dict[str, Value], key: str) -> None:
        if (v := chk.leaf(node, f, path)) is not None:
            out[key] = v

    def limit(self, x: float) -> str:
        """A limit as a message states it (a whole number with thousands separators: 1,000,000)."""
        return f"{x:,.0f}" if float(x).is_integer() and abs(x) >= 10_000 else f"{x:g}"


@dataclass(frozen=True, eq=False)
class Quantity(Leaf):
    """A number with a unit of one kind ('2 TB/s'), in SI base units."""

    kind: str
    numeric = True

    @property
    def name(self) -> str:
        return f"quantity:{self.kind}"

    def describe(self) -> str:
        return KINDS[self.kind].like

    def parse(self, node: Scalar) -> tuple[float, str]:
        return parse_quantity(node.text, self.kind), KINDS[self.kind].si_unit

    def default(self, raw: str) -> tuple[float, str, str]:
        return parse_quantity(raw, self.kind), KINDS[self.kind].si_unit, raw

    def pattern(self, f: Field) -> str:
        number, unit = sign(f) + NUMBER, UNIT_PATTERNS[self.kind]
        if "[currency]" in KINDS[self.kind].dimensionality:
            return rf"^\s*(?:\$\s*{number}|{number}\s*(?:usd|[A-Z]{{3}}|\$))\s*{unit}\s*$"
        return rf"^\s*{number}\s*{unit}\s*$"

    def json_schema(self, f: Field) -> dict:
        example = f.example or KINDS[self.kind].example
        return described(f, type="string", pattern=self.pattern(f), examples=[example])


@dataclass(frozen=True, eq=False)
class Count(Leaf):
    """A plain number: `7e9`, `7_000_000_000`, `0.5`."""

    numeric = True

    def describe(self) -> str:
        return "a number like 7e9"

    def parse(self, node: Scalar) -> tuple[float, str]:
        return parse_number(node.text), ""

    def json_schema(self, f: Field) -> dict:
        return described(f, anyOf=[{"type": "integer" if self.whole else "number", **bounds(f)},
                                   {"type": "string", "pattern": rf"^\s*{sign(f)}{NUMBER}\s*$"}])


@dataclass(frozen=True, eq=False)
class Integer(Count):
    """A whole number, optionally one of a few (`sizing: 1`)."""

    choices: tuple = ()
    whole = True

    def describe(self) -> str:
        return "a whole number"

    def parse(self, node: Scalar) -> tuple[int, str]:
        n = parse_number(node.text, integer=True)
        if self.choices and n not in self.choices:
            raise UnitError(f"expected one of {', '.join(map(str, self.choices))}, got '{node.text}'", "bad-enum")
        return n, ""

    def validation(self, f: Field) -> Limits:
        return replace(super().validation(f), choices=self.choices)

    def json_schema(self, f: Field) -> dict:
        if len(self.choices) == 1:
            return described(f, const=self.choices[0])
        return described(f, enum=list(self.choices)) if self.choices else super().json_schema(f)


@dataclass(frozen=True, eq=False)
class Fraction(Leaf):
    """A share: `40 %` or `0.4`."""

    numeric = True

    def describe(self) -> str:
        return FRACTION_LIKE

    def parse(self, node: Scalar) -> tuple[float, str]:
        return parse_fraction(node.text), ""

    def default(self, raw: float) -> tuple[float, str, str]:
        return raw, "", f"{raw:.0%}"

    def limit(self, x: float) -> str:
        return f"{x:.0%}"

    def validation(self, f: Field) -> Limits:
        return Limits(False, 0.0, f.positive, f.maximum)

    def json_schema(self, f: Field) -> dict:
        percent = PERCENT if f.maximum == 1 else rf"{NUMBER}\s*%"
        high = min(1, f.maximum) if f.maximum is not None else 1
        low = {"exclusiveMinimum": 0} if f.positive else {"minimum": 0}
        text = rf"^\s*\+?{NOT_ZERO if f.positive else ''}(?:{percent}|{UNIT_FRACTION})\s*$"
        return described(f, anyOf=[{"type": "number", **low, "maximum": high}, {"type": "string", "pattern": text}])


@dataclass(frozen=True, eq=False)
class Bool(Leaf):
    """true or false."""

    def describe(self) -> str:
        return "true or false"

    def parse(self, node: Scalar) -> tuple[bool, None]:
        if node.text not in ("true", "false"):
            raise UnitError(f"expected true or false, got '{node.text}'", "not-a-boolean")
        return node.text == "true", None

    def json_schema(self, f: Field) -> dict:
        return described(f, type="boolean")


@dataclass(frozen=True, eq=False)
class Text(Leaf):
    """Text of one line: any scalar, without control characters or line breaks, up to MAX_TEXT characters."""

    def parse(self, node: Scalar) -> tuple[str, None]:
        text = checked_text(node.text)
        if "\n" in text:
            raise UnitError("is one line: remove the line break (a block scalar `|` or `>` ends with one; `|-` or "
                            "`>-` does not)", "line-break")
        return text, None

    def json_schema(self, f: Field) -> dict:
        # A YAML scalar is text here whatever it looks like (`date: 2024`, `notes: yes`).
        return described(f, type=["string", "number", "boolean"], maxLength=MAX_TEXT, pattern=ONE_LINE)


@dataclass(frozen=True, eq=False)
class Prose(Text):
    """Free text of any number of lines (notes, a description); the line breaks a block scalar ends with are
    dropped."""

    def parse(self, node: Scalar) -> tuple[str, None]:
        return checked_text(node.text.rstrip("\n")), None

    def json_schema(self, f: Field) -> dict:
        return described(f, type=["string", "number", "boolean"], maxLength=MAX_TEXT, pattern=NO_CONTROL)


def checked_text(text: str) -> str:
    """The text policy (text_policy.FORBIDDEN, which the loader also applies to every scalar) and the length."""
    if FORBIDDEN.search(text):
        raise UnitError("contains a control character or an unpaired surrogate; remove it", "control-character")
    if len(text) > MAX_TEXT:
        raise UnitError(f"is {len(text):,} characters long; the limit is {MAX_TEXT:,}", "text-too-long")
    return text


@dataclass(frozen=True, eq=False)
class Enum(Text):
    """One of a few words; `noun` names an open-ended kind of word in messages ('unknown requirement')."""

    choices: tuple
    noun: str = ""

    def describe(self) -> str:
        return "one of: " + ", ".join(map(str, self.choices))

    def parse(self, node: Scalar) -> tuple[str, None]:
        text, _ = super().parse(node)
        if text in self.choices:
            return text, None
        listed = ", ".join(map(str, self.choices))
        if self.noun:
            raise UnitError(f"unknown {self.noun} '{text}'; expected one of: {listed}", "bad-enum")
        words = [str(c) for c in self.choices]
        close = [w for w in words if w.lower() == text.lower()] or difflib.get_close_matches(
            text.lower(), words, n=1, cutoff=0.5)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise UnitError(f"{hint}expected one of: {listed}; got '{text}'", "bad-enum")

    def json_schema(self, f: Field) -> dict:
        return described(f, enum=list(self.choices))


@dataclass(frozen=True, eq=False)
class Currency(Text):
    """An ISO 4217 currency code in use (EUR, USD, JPY ...)."""

    def describe(self) -> str:
        return "an ISO 4217 currency code such as USD, EUR or GBP"

    def parse(self, node: Scalar) -> tuple[str, None]:
        from ..currency import CODES
        text, _ = super().parse(node)
        if text in CODES:
            return text, None
        if text in ("MOP", "TOP"):
            raise UnitError(f"'{text}' cannot be a scenario's currency here: '{text}/s' reads as a unit (mega- or "
                            f"tera-operations per second)", "bad-enum")
        close = [c for c in CODES if c == text.upper()] or difflib.get_close_matches(text.upper(), sorted(CODES), n=1,
                                                                                       cutoff=0.6)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise UnitError(f"unknown currency code '{text}': expected an ISO 4217 code such as USD, EUR or GBP{hint}",
                        "bad-enum")

    def json_schema(self, f: Field) -> dict:
        from ..currency import CODES
        return described(f, enum=sorted(CODES))


@dataclass(frozen=True, eq=False)
class Slug(Text):
    """An id: lower-case letters, digits, '.', '_' and '-'."""

    def describe(self) -> str:
        return "an id of a-z, 0-9 and -"

    def parse(self, node: Scalar) -> tuple[str, None]:
        text, _ = super().parse(node)
        if not SLUG.fullmatch(text):
            raise UnitError(f"expected an id of lower-case letters, digits, '.', '_' and '-', got '{text}'", "bad-id")
        return text, None

    def json_schema(self, f: Field) -> dict:
        return described(f, type="string", pattern=SLUG.pattern)


@dataclass(frozen=True, eq=False)
class Date(Text):
    """A calendar date, YYYY-MM-DD."""

    def describe(self) -> str:
        return "a date 'YYYY-MM-DD'"

    def parse(self, node: Scalar) -> tuple[str, None]:
        text, _ = super().parse(node)
        if not DATE.fullmatch(text):
            raise UnitError(f"expected a date 'YYYY-MM-DD', got '{text}'", "bad-date")
        try:
            dt.date.fromisoformat(text)
        except ValueError:
            raise UnitError(f"'{text}' is not a calendar date", "bad-date") from None
        return text, None

    def json_schema(self, f: Field) -> dict:
        return described(f, type="string", pattern=DATE.pattern, format="date")


@dataclass(frozen=True, eq=False)
class Ref(Text):
    """The id of one of the scenario's devices, models or workloads (checked once all are read)."""

    entity: str

    @property
    def name(self) -> str:
        return f"ref:{self.entity}"

    def json_schema(self, f: Field) -> dict:
        return described(f, type="string", pattern=SLUG.pattern)


@dataclass(frozen=True, eq=False)
class CatalogRef(Text):
    """The id of a built-in catalog entry (checked when the catalog is merged)."""

    entity: str

    @property
    def name(self) -> str:
        return f"catalog:{self.entity}"

    def json_schema(self, f: Field) -> dict:
        ids = catalog_ids(f"{self.entity}s")
        one = described(f, enum=list(ids)) if ids else described(f, type="string", pattern=SLUG.pattern)
        if self.entity != "device":
            return one
        one.pop("description", None)            # a device may also come from a file (`sizing measure` writes one)
        return described(f, anyOf=[one, {"type": "string", "pattern": r"\.(yaml|yml|YAML|YML)$"}])


@cache
def catalog_ids(group: str) -> tuple[str, ...]:
    """The ids of the catalog's `devices` or `models`, for editors to complete `from:`."""
    node, _ = load_file(CATALOG_DIR / f"{group}.yaml")
    table = node.get(group) if isinstance(node, Mapping) else None
    return tuple(table.keys()) if isinstance(table, Mapping) else ()


# -- containers ----------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Block(FieldType):
    """A mapping of named fields (`link: {bandwidth: ..., copy_overhead: ...}`)."""

    fields: tuple

    def describe(self) -> str:
        return f"a mapping of {', '.join(f.name for f in self.fields[:4])}, ..."

    def walk(self, chk: Checker, node: Node, f: Field, path: str, out: dict[str, Value], key: str) -> None:
        chk.block(node, self.fields, path, out, prefix=f"{key}.")

    def json_schema(self, f: Field) -> dict:
        return described(f, **object_schema(self.fields))


def object_schema(fields: tuple) -> dict:
    """The JSON Schema of a mapping of `fields`: nothing else is allowed."""
    return {"type": "object", "properties": {f.name: f.type.json_schema(f) for f in fields},
            "required": [f.name for f in fields if f.required], "additionalProperties": False}


@dataclass(frozen=True, eq=False)
class MapOf(FieldType):
    """A mapping of keys (`keys`, else any) to values of one type (`compute: {bf16: 989 TFLOP/s}`)."""

    inner: FieldType
    keys: tuple = ()

    @property
    def name(self) -> str:
        return f"map:{self.inner.name}"

    def describe(self) -> str:
        return f"a mapping of {', '.join(self.keys[:4])}, ..." if self.keys else "a mapping"

    def walk(self, chk: Checker, node: Node, f: Field, path: str, out: dict[str, Value], key: str) -> None:
        if not isinstance(node, Mapping):
            chk.problem(node, path, f"expected a mapping, e.g. {{bf16: {f.example or '1'}}}", "wrong-shape")
            return
        inner = replace(f, type=self.inner)
        for k, child in node.entries:
            if self.keys and k.text not in self.keys:
                chk.unknown(k, f"{path}.{k.text}", list(self.keys))
                continue
            self.inner.walk(chk, child, inner, f"{path}.{k.text}", out, f"{key}.{k.text}")

    def validation(self, f: Field) -> Limits:
        return self.inner.validation(f)

    def json_schema(self, f: Field) -> dict:
        inner = self.inner.json_schema(f)
        if self.keys:
            return described(f, type="object", properties={k: inner for k in self.keys}, additionalProperties=False)
        return described(f, type="object", additionalProperties=inner)


@dataclass(frozen=True, eq=False)
class ListOf(FieldType):
    """A list of values of one type; `unique` when an entry may be given once only."""

    inner: FieldType
    unique: bool = False

    @property
    def name(self) -> str:
        return f"list:{self.inner.name}"

    def describe(self) -> str:
        return "a list"

    def walk(self, chk: Checker, node: Node, f: Field, path: str, out: dict[str, Value], key: str) -> None:
        if not isinstance(node, Sequence):
            chk.problem(node, path, "expected a list, e.g. [a, b]", "wrong-shape")
            return
        inner = replace(f, type=self.inner)
        for i, child in enumerate(node.items):
            self.inner.walk(chk, child, inner, f"{path}[{i}]", out, f"{key}[{i}]")

    def validation(self, f: Field) -> Limits:
        return self.inner.validation(f)

    def json_schema(self, f: Field) -> dict:
        unique = {"uniqueItems": True} if self.unique else {}
        return described(f, type="array", items=self.inner.json_schema(f), **unique)


@dataclass(frozen=True, eq=False)
class OneOrList(FieldType):
    """One block, or a list of such blocks (`decision:` once, or one per workload). The scenario reads the
    entries itself (each is an entity); this type describes them for messages and the JSON Schema."""

    inner: Block

    @property
    def name(self) -> str:
        return f"one_or_list:{self.inner.name}"

    def describe(self) -> str:
        return f"{self.inner.describe()}, or a list of them"

    def walk(self, chk: Checker, node: Node, f: Field, path: str, out: dict[str, Value], key: str) -> None:
        one = ListOf(self.inner) if isinstance(node, Sequence) else self.inner
        one.walk(chk, node, replace(f, type=one), path, out, key)

    def json_schema(self, f: Field) -> dict:
        one = self.inner.json_schema(f)
        many = {"type": "array", "items": one, "minItems": 1}
        return described(f, **{"if": {"type": "array"}, "then": many, "else": one})


@dataclass(frozen=True, eq=False)
class PerDevice(FieldType):
    """One value for every device, or a mapping of device ids to values (`devices: {h100: 2}`)."""

    inner: FieldType

    @property
    def name(self) -> str:
        return f"per_device:{self.inner.name}"

    def describe(self) -> str:
        return f"{self.inner.describe()}, or a mapping of device ids to one"

    def walk(self, chk: Checker, node: Node, f: Field, path: str, out: dict[str, Value], key: str) -> None:
        one = MapOf(self.inner) if isinstance(node, Mapping) else self.inner
        one.walk(chk, node, replace(f, type=one), path, out, key)

    def validation(self, f: Field) -> Limits:
        return self.inner.validation(f)

    def default(self, raw: Any) -> tuple[Any, str | None, str]:
        return self.inner.default(raw)

    def json_schema(self, f: Field) -> dict:
        one = self.inner.json_schema(f)
        per_device = {"type": "object", "propertyNames": {"pattern": SLUG.pattern}, "additionalProperties": one}
        return described(f, anyOf=[one, per_device])


@dataclass(frozen=True, eq=False)
class Entries(FieldType):
    """Entries by id (`devices: {h100: {...}}`); the scenario loader reads each into an Entity."""

    inner: FieldType

    def describe(self) -> str:
        return "a mapping of ids to entries"

    def json_schema(self, f: Field) -> dict:
        nonempty = {"minProperties": 1} if f.required else {}
        return described(f, type="object", propertyNames={"pattern": SLUG.pattern},
                         additionalProperties=self.inner.json_schema(f), **nonempty)


@dataclass(frozen=True, eq=False)
class Variants(FieldType):
    """A mapping whose fields depend on its `kind` (a workload): `variants` maps each kind to its fields,
    `needs` a kind to fields of which at least one must be given."""

    variants: dict
    needs: dict

    def __hash__(self) -> int:
        return hash((type(self), tuple(self.variants)))

    def needs_message(self, kind: str, given: list[str]) -> str | None:
        """What a `kind` mapping with the keys `given` lacks, if anything."""
        names = self.needs.get(kind, ())
        if not names or set(names) & set(given):
            return None
        return f"a {kind} workload needs {' or '.join(repr(n) for n in names)}"

    def variant_schema(self, kind: str) -> dict:
        names = self.needs.get(kind, ())
        one_of_them = {"anyOf": [{"required": [n]} for n in names]} if names else {}
        return {**object_schema(self.variants[kind]), **one_of_them}

    def describe(self) -> str:
        return f"a mapping with a kind ({', '.join(self.variants)})"

    def json_schema(self, f: Field) -> dict:
        # if/then rather than oneOf: a misspelt key is then reported by name against its own kind.
        each = [{"if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
                 "then": self.variant_schema(kind)} for kind in self.variants]
        return described(f, type="object", required=["kind"], properties={"kind": {"enum": list(self.variants)}},
                         allOf=each)


@dataclass(frozen=True, eq=False)
class SweepOf(FieldType):
    """One of `fields` over a list of values, or over a range of `range` ({from, to, points, scale})."""

    fields: dict
    range: tuple

    def __hash__(self) -> int:
        return hash((type(self), tuple(self.fields), self.range))

    def describe(self) -> str:
        return "a mapping like {batch: [1, 8, 64]}"

    def range_of(self, f: Field) -> tuple:
        """The range's fields, with `from` and `to` typed and bounded like the swept field `f`."""
        return tuple(replace(x, type=f.type, positive=f.positive, nonnegative=f.nonnegative, maximum=f.maximum)
                     if x.name in ("from", "to") else x for x in self.range)

    def values_schema(self, f: Field) -> dict:
        values = {"type": "array", "minItems": 1, "items": f.type.json_schema(f)}
        return {"oneOf": [values, object_schema(self.range_of(f))]} if f.type.numeric else values

    def json_schema(self, f: Field) -> dict:
        props = {k: self.values_schema(x) for k, x in self.fields.items()}
        props["workload"] = {"type": "string", "pattern": SLUG.pattern, "description": "The workload swept."}
        swept = {"anyOf": [{"required": [k]} for k in self.fields]}      # one field, or two for a grid
        at_most_two = {"anyOf": [{"maxProperties": 2}, {"required": ["workload"], "maxProperties": 3}]}
        return described(f, type="object", properties=props, additionalProperties=False, allOf=[swept, at_most_two])
