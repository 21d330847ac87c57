"""The PDF decision report: one typed context from the engine's results (build, page_one, sections, figures,
sensitivity, method), a Jinja2 template, WeasyPrint tagged PDF/A-3a (pdf)."""

from .build import build_context
from .page_one import budget_words, together
from .pdf import report_bytes, report_html

__all__ = ["build_context", "budget_words", "report_bytes", "report_html", "together"]
