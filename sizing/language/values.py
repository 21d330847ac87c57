"""Checked values: each keeps where it came from; entities and the scenario hold them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Value:
    """A checked value in SI base units, with where it came from."""

    value: Any
    unit: str | None
    text: str
    file: str
    line: int
    col: int
    source: str

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass
class Entity:
    """A device, model, workload or benchmark record: flat field paths to values."""

    kind: str
    id: str
    values: dict[str, Value] = field(default_factory=dict)
    line: int = 1
    col: int = 1
    follows: dict[str, str] = field(default_factory=dict)   # a defaulted field -> the field it copies
    alternative_of: str = ""          # a workload's alternative: the workload it varies ...
    alternative: str = ""             # ... and the alternative's id (`fp8`)
    automatic: bool = False           # an alternative the engine added: the devices that hold what does not fit,
    found: tuple[str, ...] = ()       # ... or a batch sizing found (batch_search): the devices it is ranked on,
    found_as: tuple = ()              # ... and (device, way of paying) of the options it is ranked as
    keys: dict[str, Value] = field(default_factory=dict)    # where a key was written (alternatives' ids), for messages

    def get(self, path: str, default: Any = None) -> Any:
        v = self.values.get(path)
        return default if v is None else v.value

    def has(self, path: str) -> bool:
        return path in self.values


@dataclass
class Scenario:
    """A checked scenario: SI values, resolved catalog entries, cross-references verified."""

    file: str
    data: bytes
    meta: dict[str, Value]
    devices: dict[str, Entity]
    models: dict[str, Entity]
    workloads: dict[str, Entity]
    compare: list[str]
    sweep: Entity | None
    decisions: list[Entity]
    benchmarks: list[Entity]
    catalog_used: dict[str, Entity] = field(default_factory=dict)
    uncertainty: Any = None           # the ranges on inputs (sizing.uncertainty.language.Uncertainty), if given

    @property
    def name(self) -> str:
        return self.meta["name"].value

    @property
    def title(self) -> str:
        return self.meta["title"].value if "title" in self.meta else self.name
