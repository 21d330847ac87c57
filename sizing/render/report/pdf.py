"""The report as HTML and as tagged PDF/A-3a with its attachments: templates and WeasyPrint."""

from __future__ import annotations

import datetime as dt
import html
import os
import re
from contextlib import contextmanager
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from ... import currency
from ...evaluate import Results
from ...output import build_datetime
from ...scenario import sha256
from ...narrative.glossary import terms_in
from .build import build_context


# PDF/A-3 for the attachments (the scenario and the workbook are not PDFs); level a, accessible: WeasyPrint 70 tags
# the structure (headings, tables, figures) for it, deterministically.
PDF_VARIANT = "pdf/a-3a"
TEMPLATE = "report.html.j2"
STYLESHEET = "report.css"


@currency.rendered
def report_bytes(results: Results, workbook: bytes | None = None) -> bytes:
    """The report as tagged PDF/A-3a, with the scenario YAML (and the workbook, if given) attached and described;
    Author, Subject and Keywords set from the scenario; same input, same bytes."""
    import weasyprint

    scn = results.scenario
    when = build_datetime(scn)
    names = attachment_names(results, workbook is not None)
    ctx = build_context(results, names)
    page = html_of(ctx)
    fetcher = weasyprint.urls.URLFetcher(allowed_protocols={"data"}, fail_on_errors=True)
    files = [weasyprint.Attachment(string=scn.data, name=names[0], relationship="Source", created=when,
                                   modified=when, url_fetcher=fetcher,
                                   description=f"The scenario this report was computed from ({names[0]}): the exact "
                                               f"input, SHA-256 {sha256(scn.data)}")]
    if workbook is not None:
        files.append(weasyprint.Attachment(string=workbook, name=names[1], relationship="Data", created=when,
                                           modified=when, url_fetcher=fetcher,
                                           description="The formula-live workbook of the same scenario: every result "
                                                       "a formula over the inputs, for finance to check and edit"))
    css = weasyprint.CSS(string=read_template(STYLESHEET), url_fetcher=fetcher)
    doc = weasyprint.HTML(string=page, base_url=None, url_fetcher=fetcher).render(stylesheets=[css])
    doc.metadata.authors = [str(scn.meta["owner"].value)] if "owner" in scn.meta else []
    doc.metadata.description = subject(ctx)
    doc.metadata.keywords = keywords(results)
    with fonts_stamped(when):
        return doc.write_pdf(attachments=files, pdf_variant=PDF_VARIANT,
                             pdf_identifier=sha256(scn.data)[:32].encode("ascii"))


@contextmanager
def fonts_stamped(when: dt.datetime):
    """Embedded font subsets carry a modified time, which fontTools takes from the clock unless
    SOURCE_DATE_EPOCH is set: set it to the report's own stamp while the PDF is written (same input, same bytes
    whatever the second), then put the environment back."""
    before = os.environ.get("SOURCE_DATE_EPOCH")
    if before is None:
        os.environ["SOURCE_DATE_EPOCH"] = str(int((when - dt.datetime(1970, 1, 1)).total_seconds()))
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("SOURCE_DATE_EPOCH", None)


def subject(ctx) -> str:
    """The PDF's Subject: what the memo recommends."""
    said = [f"{d.action} ({d.workload})" for d in ctx.decisions if d.device]
    return "Decision memo: " + ("; ".join(said) if said else ctx.title)


def keywords(results: Results) -> list[str]:
    """The PDF's Keywords: the tool, the scenario, its devices and workload kinds."""
    scn = results.scenario
    kinds = dict.fromkeys(p.kind for p in results.pairs)
    return ["sizing", "hardware sizing", scn.name, *scn.compare, *kinds]


@currency.rendered
def report_html(results: Results, attachments: tuple[str, ...] | None = None) -> str:
    """The report as HTML (what WeasyPrint lays out)."""
    return html_of(build_context(results, attachments or attachment_names(results, False)))


def html_of(ctx) -> str:
    """The template rendered twice: the glossary lists the technical terms the first rendering's text uses."""
    template = environment().get_template(TEMPLATE)
    text = html.unescape(re.sub(r"<[^>]+>", " ", template.render(r=ctx)))
    return unbroken(template.render(r=replace(ctx, terms=terms_in(text))))


# An amount per period ('$608/month', '€2.10/hour', 'CHF 3.20/hour') in running text, in any currency's symbol:
# kept on one line (a line may otherwise break after the slash, leaving '$608/' at its end).
AMOUNT = re.compile(rf"((?:{'|'.join(map(re.escape, currency.SYMBOLS.values()))}|[A-Z]{{3}} )[\d,.]+/[A-Za-z]+)")


# A device's id named beside its catalog name ('H100 SXM5 80GB (h100-pair)'): not broken at its hyphen.
HYPHENED_ID = re.compile(r"(\([a-z0-9][a-z0-9_.]*-[a-z0-9_.-]{1,20}\))")


def unbroken(page: str) -> str:
    """The page with each amount per period and each hyphened id in brackets in its text (not in a tag) wrapped
    in a span that does not break."""
    def kept(m) -> str:
        return ">" + HYPHENED_ID.sub(r'<span class="nw">\1</span>',
                                     AMOUNT.sub(r'<span class="nw">\1</span>', m.group(1))) + "<"
    return re.sub(r">([^<]+)<", kept, page)


def template_dir() -> Path:
    here = Path(__file__).resolve()
    beside = here.parents[3] / "templates"
    packaged = here.parents[2] / "templates"
    return beside if (beside / TEMPLATE).exists() or not packaged.exists() else packaged


@lru_cache(maxsize=1)
def environment():
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    env = Environment(loader=FileSystemLoader(template_dir()), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["kept_tail"] = kept_tail
    env.filters["scenario_code"] = scenario_code
    return env


def scenario_code(text: str):
    """A sentence ending in the alternatives to add ('... alternatives: {tp1: {parallel: {tensor: 1}}}.') with them
    set as code that breaks only between fields: a line broken at the hyphen of 'lora-no-recompute' is copied as
    two keys, while a flow mapping broken after a comma reads the same."""
    from markupsafe import Markup, escape
    head, sep, tail = str(text).partition("alternatives: {")
    if not sep:
        return escape(text)
    parts = ("alternatives: {" + tail).split(", ")
    pieces = " ".join(f'<code class="nw">{escape(x)}{"," if i < len(parts) - 1 else ""}</code>'
                      for i, x in enumerate(parts))
    return Markup(f"{escape(head)}{pieces}")


TAIL = 16       # characters: a heading's last words kept together on one line, at least this many


def kept_tail(text: str) -> str:
    """A heading whose last words do not wrap alone: they are joined by no-break spaces until the joined tail has
    TAIL characters ('... Gaudi 3 or B200?' wraps before 'Gaudi', not before 'or')."""
    words = str(text).split(" ")
    n = 1
    while n < len(words) - 1 and len(" ".join(words[-n:])) < TAIL:
        n += 1
    return " ".join(words[:-n] + ["\u00a0".join(words[-n:])])


def read_template(name: str) -> str:
    return (template_dir() / name).read_text(encoding="utf-8")


def attachment_names(results: Results, with_workbook: bool) -> tuple[str, ...]:
    scn = results.scenario
    base = Path(scn.file).name
    yaml_name = base if base.endswith((".yaml", ".yml")) else f"{scn.name}.yaml"
    return (yaml_name, f"{scn.name}.xlsx") if with_workbook else (yaml_name,)
