"""The formula graph: every derived quantity defined once (definitions.py imports the modules that define them)."""

from . import definitions  # noqa: F401  (registers the quantities)
from .expr import Const, Expr, Missing, Ref, evaluate, refs, to_excel, to_text, unpriced_or
from .graph import COMPARISONS, INPUTS, NA, QUANTITIES, TEXT_INPUTS, Planned, definition, plan, quantity_defs

__all__ = ["COMPARISONS", "Const", "Expr", "INPUTS", "Missing", "NA", "Planned", "QUANTITIES", "Ref", "TEXT_INPUTS",
           "definition", "evaluate", "plan", "quantity_defs", "refs", "to_excel", "to_text", "unpriced_or"]
