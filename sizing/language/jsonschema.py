"""The JSON Schema of the scenario language, as strict as the checker where JSON Schema can say it."""

from __future__ import annotations

from .fields import TOP_FIELDS
from .types import object_schema


def json_schema() -> dict:
    """JSON Schema (draft 2020-12) of the scenario language v1, for editors."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://sizing.invalid/schema/v1.json", "title": "sizing scenario (v1)",
            **object_schema(TOP_FIELDS)}
