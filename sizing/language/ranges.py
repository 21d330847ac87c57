"""The `uncertainty:` block's declarations: how many draws, the seed, and a range for each uncertain input."""

from __future__ import annotations

from dataclasses import dataclass

from .types import SLUG, FieldType, described, object_schema

MAX_DRAWS = 1_000_000           # 100,000 draws take well under a second; a million, a few
DEFAULT_DRAWS = 10_000
# The shapes a range may take, by the keys that give it.
SHAPES = {("high", "low"): "uniform", ("high", "low", "mode"): "triangular", ("median", "p95"): "lognormal",
          ("within",): "within"}
BOUNDS = ("low", "mode", "high", "median", "p95", "within")
SHAPE_HELP = ("a range is {low, high} (uniform), {low, mode, high} (triangular) or {median, p95} (lognormal), "
              "each with the input's unit, or {within: 20 %} (triangular from 20 % below each value the scenario "
              "states to 20 % above it, most likely that value), and an optional group")
# Where an input path may point: `<entries>.<id or *>.<field path>`.
ENTRY_KINDS = {"devices": "device", "models": "model", "workloads": "workload"}
PATH_PATTERN = r"^(devices|models|workloads)\.(\*|[a-z0-9][a-z0-9._-]*?)\.[a-z0-9_.]+$"


@dataclass(frozen=True, eq=False)
class RangesOf(FieldType):
    """The uncertainty block: `draws`, `seed` and `inputs` (field path -> range) of `fields`. The loader reads it
    (sizing.uncertainty.language); this type states its JSON Schema and its words."""

    fields: tuple

    def __hash__(self) -> int:
        return hash((type(self), self.fields))

    def describe(self) -> str:
        return "a mapping of draws, seed and inputs"

    def json_schema(self, f) -> dict:
        amount = {"anyOf": [{"type": "number"}, {"type": "string", "minLength": 1}]}
        one_range = {"type": "object", "properties": {**{k: amount for k in BOUNDS if k != "within"},
                                                      "within": {"type": "string"},
                                                      "group": {"type": "string", "pattern": SLUG.pattern}},
                     "additionalProperties": False,
                     "oneOf": [{"required": list(keys), "not": {"anyOf": [{"required": [k]} for k in BOUNDS
                                                                          if k not in keys]}} for keys in SHAPES]}
        inputs = {"type": "object", "description": "Input field path (devices.*.price; '*' for every id) -> range",
                  "propertyNames": {"pattern": PATH_PATTERN}, "additionalProperties": one_range, "minProperties": 1}
        body = object_schema(tuple(x for x in self.fields if x.name != "inputs"))
        body["properties"]["inputs"] = {"description": next(x.doc for x in self.fields if x.name == "inputs"),
                                        **inputs}
        body["required"] = ["inputs"]
        return described(f, **body)
