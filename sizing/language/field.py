"""One key of the scenario language (the declarations are in fields.py and hardware.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .types import FieldType


@dataclass(frozen=True)
class Field:
    """One key of the language: its type, meaning, default and limits (limits apply to each value of a
    map or list)."""

    name: str
    type: FieldType
    doc: str
    required: bool = False
    default: Any = None
    positive: bool = False    # strictly greater than zero
    nonnegative: bool = False
    maximum: float | None = None
    example: str = ""
    shape: str = ""           # said where a value of the wrong shape is given: what to do instead
