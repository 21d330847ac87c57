"""The formula graph: every derived quantity defined once (definitions.py imports the modules that define them)."""

from . import definitions  # noqa: F401  (registers the quantities)
from .expr import NAMED, Const, Expr, Missing, Ref, all_of, blank_or, given, refs, to_text, unpriced_or
from .interpret import evaluate
from .excel import excel_number, to_excel
from .common import BLANK_READS, COST_CELLS, OFFER
from .graph import (COMPARISONS, INPUTS, NA, QUANTITIES, TEXT_INPUTS, Planned, definition, plan, quantity_defs,
                    read_from)

__all__ = ["COMPARISONS", "Const", "NAMED", "Expr", "INPUTS", "Missing", "NA", "BLANK_READS", "COST_CELLS", "OFFER", "Planned", "QUANTITIES", "Ref", "TEXT_INPUTS",
           "definition", "evaluate", "excel_number", "plan", "quantity_defs", "read_from", "refs", "to_excel", "to_text",
           "unpriced_or", "all_of", "blank_or", "given"]
