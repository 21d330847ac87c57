"""The scenario language, as the rest of sizing imports it (defined in the sizing.language package)."""

from .language.checker import Checker
from .language.field import Field
from .language.fields import (ALL_WORKLOAD_FIELDS, BENCHMARK_FIELDS, COMMON_WORKLOAD, DECISION_FIELDS, MAX_COMPARED,
                              MAX_GRID_CELLS, MAX_PAIRS, MAX_SWEEP_POINTS, MAX_SWEPT, OPTIMIZER_STATE_BYTES, REQUIREMENTS,
                              SWEEP, SWEEP_FIELDS, SWEEP_KEYS, SWEEP_RANGE, TOP, TOP_FIELDS, UNCERTAINTY_FIELDS, WORKLOAD,
                              WORKLOAD_FIELDS)
from .language.hardware import (DEPLOYMENTS, DEVICE_FIELDS, DEVICE_KINDS, MODEL_FIELDS, PRECISION_BYTES, PRECISIONS,
                                WEIGHT_ONLY, compute_precision)
from .language.jsonschema import json_schema
from .language.types import (CATALOG_DIR, MAX_TEXT, SLUG, Block, Bool, CatalogRef, Count, Date, Entries, Enum,
                             FieldType, Fraction, Integer, Leaf, Limits, ListOf, MapOf, PerDevice, Quantity, Ref,
                             Slug, SweepOf, Text, Variants)
from .language.values import Entity, Scenario, Value

__all__ = [
    "ALL_WORKLOAD_FIELDS", "BENCHMARK_FIELDS", "CATALOG_DIR", "COMMON_WORKLOAD", "DECISION_FIELDS", "DEPLOYMENTS",
    "DEVICE_FIELDS", "DEVICE_KINDS", "MAX_COMPARED", "MAX_GRID_CELLS", "MAX_PAIRS", "MAX_SWEEP_POINTS", "MAX_SWEPT", "MAX_TEXT", "MODEL_FIELDS", "OPTIMIZER_STATE_BYTES",
    "PRECISION_BYTES", "PRECISIONS", "REQUIREMENTS", "SLUG", "SWEEP", "SWEEP_FIELDS", "SWEEP_KEYS", "SWEEP_RANGE",
    "TOP", "TOP_FIELDS", "UNCERTAINTY_FIELDS", "WEIGHT_ONLY", "WORKLOAD", "WORKLOAD_FIELDS", "compute_precision",
    "Block", "Bool", "CatalogRef", "Checker", "Count", "Date", "Entity", "Entries", "Enum", "Field", "FieldType",
    "Fraction", "Integer", "Leaf", "Limits", "ListOf", "MapOf", "PerDevice", "Quantity", "Ref", "Scenario", "Slug",
    "SweepOf", "Text", "Value", "Variants", "json_schema",
]
