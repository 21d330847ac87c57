"""Checking a loaded tree against the declarations: every problem collected, located and coded."""

from __future__ import annotations

import difflib
import re
from typing import Any

from ..errors import Problem
from ..loader import Mapping, Node, Scalar
from ..units import UnitError
from .field import Field
from .values import Value


class Checker:
    """Walks a loaded tree against the field declarations, collecting every problem."""

    def __init__(self, file: str, source: str = "scenario"):
        self.file = file
        self.source = source
        self.problems: list[Problem] = []
        self.currency = "USD"           # the scenario's, once read: examples in messages are given in it

    def problem(self, at: Node | Value, path: str, message: str, code: str, level: str = "error") -> None:
        """A problem at a node or a checked value (anything with a line and a column)."""
        self.problems.append(Problem(self.file, at.line, at.col, path, message, level, code=code))

    def value(self, node: Scalar, v: Any, unit: str | None) -> Value:
        src = self.source if self.source != "scenario" else f"scenario line {node.line}"
        return Value(v, unit, node.text, self.file, node.line, node.col, src)

    # -- mappings ------------------------------------------------------------------------
    def block(self, node: Node, fields: tuple[Field, ...], path: str, out: dict[str, Value],
              prefix: str = "", extra: tuple[Field, ...] = ()) -> None:
        """Check a mapping against fields; store leaves into out under prefix-joined paths."""
        if not isinstance(node, Mapping):
            names = ", ".join(f.name for f in fields[:4])
            self.problem(node, path, f"expected a mapping of {names}, ...", "wrong-shape")
            return
        spec = {f.name: f for f in fields + extra}
        for key, child in node.entries:
            sub = f"{path}.{key.text}" if path else key.text
            f = spec.get(key.text)
            if f is None:
                self.unknown(key, sub, list(spec))
                continue
            self.field(child, f, sub, out, f"{prefix}{f.name}")
        self.require(node, fields, path)

    def require(self, node: Mapping, fields: tuple[Field, ...], path: str) -> None:
        for f in fields:
            if f.required and node.get(f.name) is None:
                example = f", e.g. '{f.example}'" if f.example else ""
                what = f.doc[0].lower() + f.doc[1:].rstrip(".")
                self.problem(node, path, f"missing required field '{f.name}': {what}{example}", "missing-field")

    def unknown(self, key: Scalar, path: str, known: list[str]) -> None:
        close = difflib.get_close_matches(key.text, known, n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'?" if close else f"expected one of: {', '.join(sorted(known))}"
        self.problem(key, path, f"unknown key '{key.text}'; {hint}", "unknown-key")

    def field(self, node: Node, f: Field, path: str, out: dict[str, Value], key: str) -> None:
        f.type.walk(self, node, f, path, out, key)

    # -- scalars -------------------------------------------------------------------------
    def leaf(self, node: Node, f: Field, path: str) -> Value | None:
        """The checked value of a scalar field, or None when a problem was recorded."""
        if not isinstance(node, Scalar):
            what = "a mapping" if isinstance(node, Mapping) else "a list"
            self.problem(node, path, f"expected {f.type.describe()}, got {what}" + (f"; {f.shape}" if f.shape else ""),
                         "wrong-shape")
            return None
        if node.text == "" and not node.quoted:
            self.problem(node, path, f"no value given; expected {f.type.describe()}", "missing-value")
            return None
        try:
            v, unit = f.type.parse(node)
        except UnitError as e:
            self.problem(node, path, self.in_currency(str(e)), e.code)
            return None
        if not self.in_range(node, f, path, v):
            return None
        return self.value(node, v, unit)

    def in_currency(self, message: str) -> str:
        """A message's examples of amounts in the scenario's currency ('like 2.00 USD/hour' -> '2.00 EUR/hour')."""
        if self.currency == "USD":
            return message
        return re.sub(r"like '([^']*)USD([^']*)'", lambda m: f"like '{m[1]}{self.currency}{m[2]}'", message)

    def in_range(self, node: Scalar, f: Field, path: str, v: Any) -> bool:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return True
        if f.positive and v <= 0:
            self.problem(node, path, f"must be greater than zero, got '{node.text}'", "out-of-range")
            return False
        if f.nonnegative and v < 0:
            self.problem(node, path, f"must not be negative, got '{node.text}'", "out-of-range")
            return False
        if f.maximum is not None and v > f.maximum:
            self.problem(node, path, f"must be at most {f.type.limit(f.maximum)}, got '{node.text}'", "out-of-range")
            return False
        return True
