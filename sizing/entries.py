"""Where an entry's fields come from besides the scenario: `from:` a built-in catalog entry or a device file (the
device entry `sizing measure` writes, relative to the scenario), and the language's defaults."""

from __future__ import annotations

from collections import abc
from dataclasses import replace
from functools import cached_property, lru_cache
from pathlib import Path

from . import schema as S
from .checks import suggest
from .errors import Problem
from .loader import Mapping, Node, beside, load_file, outside
from .schema import CATALOG_DIR, Checker, Entity, Field, Value

FILE_SUFFIXES = (".yaml", ".yml")


# -- catalog -------------------------------------------------------------------------------
class Checked(abc.Mapping):
    """A catalog file's entries by id, each checked with the same rules as scenarios the first time it is read
    (a scenario names a few of the catalog's entries: checking the rest would cost a validate a tenth of its time)."""

    def __init__(self, fname: str, key: str, fields: tuple[Field, ...], nodes: dict[str, tuple[Node, Node]]):
        self.fname, self.key, self.fields, self.nodes = fname, key, fields, nodes
        self.done: dict[str, Entity] = {}
        self.problems: list[Problem] = []

    def __getitem__(self, name: str) -> Entity:
        if name not in self.done:
            k, entry = self.nodes[name]
            chk = Checker(f"catalog/{self.fname}", source=f"catalog {k.text}")
            ent = Entity(self.key[:-1], k.text, line=k.line, col=k.col)
            chk.block(entry, self.fields, f"{self.key}.{k.text}", ent.values)
            self.problems += chk.problems
            self.done[name] = with_sources(ent, f"catalog {ent.id}")
        return self.done[name]

    def __iter__(self):
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)


class Problems(abc.Sequence):
    """The catalog's problems: reading them checks every entry first."""

    def __init__(self, found: list[Problem], tables: tuple[Checked, ...]):
        self.found, self.tables = found, tables

    @cached_property
    def all(self) -> list[Problem]:
        for table in self.tables:
            for name in table:
                table[name]
        return self.found + [p for table in self.tables for p in table.problems]

    def __getitem__(self, i):
        return self.all[i]

    def __len__(self) -> int:
        return len(self.all)


@lru_cache(maxsize=1)
def catalog() -> tuple[Checked, Checked, Problems]:
    """The built-in devices and models (each checked with the same rules as scenarios when first read), and the
    catalog's problems."""
    tables, problems = [], []
    for fname, key, fields in (("devices.yaml", "devices", S.DEVICE_FIELDS), ("models.yaml", "models", S.MODEL_FIELDS)):
        node, probs = load_file(CATALOG_DIR / fname, name=f"catalog/{fname}")
        problems += probs
        entries = node.get(key) if isinstance(node, Mapping) else None
        nodes = {k.text: (k, entry) for k, entry in entries.entries} if isinstance(entries, Mapping) else {}
        tables.append(Checked(fname, key, fields, nodes))
    return tables[0], tables[1], Problems(problems, tuple(tables))


def with_sources(ent: Entity, where: str) -> Entity:
    """Label each figure of a catalog entry or device file with its source: a per-field source, else the entry's
    sources."""
    titles = [v.value for p, v in ent.values.items() if p.startswith("sources[") and p.endswith(".title")]
    default = "; ".join(titles) or where
    if ent.get("illustrative"):
        default = f"illustrative ({default})"
    for path, v in list(ent.values.items()):
        src = ent.get(f"field_sources.{path}", default)
        ent.values[path] = replace(v, source=f"{where}: {src}")
    return ent


def default_value(v, unit, file: str, ent: Entity) -> Value:
    return Value(v, unit, str(v), file, ent.line, ent.col, "default")


def default_of(f: Field, file: str, ent: Entity) -> Value:
    """A field's default as a Value; a quantity default is written as text ('3 year') and parsed."""
    value, unit, text = f.type.default(f.default)
    return Value(value, unit, text, file, ent.line, ent.col, "default")


def fill_defaults(ent: Entity, fields: tuple[Field, ...], file: str, prefix: str = "") -> None:
    """Add the default of every absent field; a block's defaults only when the block is given."""
    for f in fields:
        key = f"{prefix}{f.name}"
        if isinstance(f.type, S.Block):
            if any(p.startswith(key + ".") for p in ent.values):
                fill_defaults(ent, f.type.fields, file, prefix=f"{key}.")
        elif f.default is not None and key not in ent.values:
            ent.values[key] = default_of(f, file, ent)


def resolve_from(chk: Checker, devices: dict, models: dict, base: Path) -> dict[str, Entity]:
    """Merge `from:` catalog entries, or a device file's entry, under the scenario's own fields."""
    cat_devices, cat_models, _ = catalog()
    used = {}
    for group, table, cat, fields in (("devices", devices, cat_devices, S.DEVICE_FIELDS),
                                      ("models", models, cat_models, S.MODEL_FIELDS)):
        for ent in table.values():
            ref = ent.values.pop("from", None)
            if ref is None:
                fill_defaults(ent, fields, chk.file)
                continue
            if group == "devices" and ref.value.lower().endswith(FILE_SUFFIXES):
                merged = device_file(chk, ref, base, f"{group}.{ent.id}.from", ent)
                if merged is not None:
                    ent.values = {**merged.values, **ent.values}
                    fill_defaults(ent, fields, chk.file)
                continue
            found = cat.get(ref.value)
            if found is None:
                chk.problem(ref, f"{group}.{ent.id}.from", f"unknown catalog entry '{ref.value}'"
                            f"{suggest(ref.value, cat)}; `sizing catalog` lists them", "unknown-catalog-entry")
                continue
            ent.values = {**found.values, **ent.values}
            fill_defaults(ent, fields, chk.file)
            used[ref.value] = found
    return used


def named_file(chk: Checker, at: Value | Node, text: str, base: Path, path: str) -> Path | None:
    """The file a scenario names at `path` (`config:`, a record's `file:`, `from: FILE.yaml`), or None after an
    `outside-folder` problem when it lies outside the scenario's folder."""
    target = beside(base, text)
    if target is None:
        chk.problem(at, path, outside(text), "outside-folder")
    return target


def device_file(chk: Checker, ref: Value, base: Path, path: str, ent: Entity) -> Entity | None:
    """A device entry read from a file beside the scenario, checked like one (its problems located in that file),
    each figure labelled with its own source line."""
    target = named_file(chk, ref, ref.value, base, path)
    if target is None:
        return None
    node, problems = load_file(target, name=str(target))
    if problems or not isinstance(node, Mapping):
        first = problems[0] if problems else None
        why = f"{first.message} ({first.file}:{first.line}:{first.col})" if first else "it is not a device entry " \
            "(a mapping of device fields, as `sizing measure` writes)"
        chk.problem(ref, path, f"cannot use '{ref.value}': {why}", first.code if first else "wrong-shape")
        return None
    if node.get("from") is not None:
        chk.problem(ref, path, f"'{ref.value}' has a `from:` of its own; a device file must give its figures itself",
                    "wrong-shape")
        return None
    whole = [k for k in ("sizing", "devices", "workloads") if node.get(k) is not None]
    if whole:                          # a scenario, not one device: one line here, not one per key over there
        chk.problem(ref, path, f"'{ref.value}' is a scenario (it has {', '.join(f'`{k}:`' for k in whole)}), not a "
                    "device file; name a file `sizing measure -o` wrote, a catalog entry (`sizing catalog`), or copy "
                    "the device's fields from that scenario's devices: here", "wrong-shape")
        return None
    sub = Checker(str(target), source=f"device file {ref.value}")
    out = Entity("device", ent.id, line=ent.line, col=ent.col)
    sub.block(node, tuple(f for f in S.DEVICE_FIELDS if f.name != "from"), "", out.values)
    chk.problems += sub.problems
    return with_sources(out, f"device file {ref.value}")
