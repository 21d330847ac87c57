"""Container field types: blocks of named fields, maps, lists, per-device values, entries, variants and sweeps."""


from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ...loader import Mapping, Node, Sequence
from .base import SLUG, FieldType, Limits, described

if TYPE_CHECKING:
    from ..checker import Checker
    from ..fields import Field
    from ..values import Value


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
