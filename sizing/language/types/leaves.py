"""Scalar field types: quantities, counts, fractions, booleans, text and references, each read from its text exactly
as written."""


from __future__ import annotations

import datetime as dt
import difflib
from dataclasses import dataclass, replace
from functools import cache
from typing import TYPE_CHECKING, Any

from ...loader import Mapping, Node, Scalar, load_file
from ...text_policy import FORBIDDEN
from ...units import FRACTION_LIKE, KINDS, UnitError, parse_fraction, parse_number, parse_quantity
from .base import (CATALOG_DIR, DATE, MAX_TEXT, NO_CONTROL, NOT_ZERO, NUMBER, ONE_LINE, PERCENT, SLUG, UNIT_FRACTION,
                   UNIT_PATTERNS, FieldType, Limits, bounds, described, sign)

if TYPE_CHECKING:
    from ..checker import Checker
    from ..fields import Field
    from ..values import Value


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
        return raw, "", f"{raw * 100:g} %"

    def limit(self, x: float) -> str:
        return f"{x * 100:g} %"

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
        from ...currency import CODES
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
        from ...currency import CODES
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


