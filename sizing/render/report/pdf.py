"""The report as HTML and as PDF/A-3b with its attachments: templates and WeasyPrint."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ... import currency
from ...evaluate import Results
from ...output import build_datetime
from ...scenario import sha256
from .build import build_context


TEMPLATE = "report.html.j2"
STYLESHEET = "report.css"


@currency.rendered
def report_bytes(results: Results, workbook: bytes | None = None) -> bytes:
    """The PDF/A-3b report, with the scenario YAML (and the workbook, if given) attached; same input, same bytes."""
    import weasyprint

    scn = results.scenario
    when = build_datetime(scn)
    names = attachment_names(results, workbook is not None)
    html = report_html(results, names)
    fetcher = weasyprint.urls.URLFetcher(allowed_protocols={"data"}, fail_on_errors=True)
    files = [weasyprint.Attachment(string=scn.data, name=names[0], relationship="Source", created=when,
                                   modified=when, url_fetcher=fetcher)]
    if workbook is not None:
        files.append(weasyprint.Attachment(string=workbook, name=names[1], relationship="Data", created=when,
                                           modified=when, url_fetcher=fetcher))
    css = weasyprint.CSS(string=read_template(STYLESHEET), url_fetcher=fetcher)
    doc = weasyprint.HTML(string=html, base_url=None, url_fetcher=fetcher)
    return doc.write_pdf(stylesheets=[css], attachments=files, pdf_variant="pdf/a-3b",
                         pdf_identifier=sha256(scn.data)[:32].encode("ascii"))


@currency.rendered
def report_html(results: Results, attachments: tuple[str, ...] | None = None) -> str:
    """The report as HTML (what WeasyPrint lays out)."""
    ctx = build_context(results, attachments or attachment_names(results, False))
    return environment().get_template(TEMPLATE).render(r=ctx)


def template_dir() -> Path:
    here = Path(__file__).resolve()
    beside = here.parents[3] / "templates"
    packaged = here.parents[2] / "templates"
    return beside if (beside / TEMPLATE).exists() or not packaged.exists() else packaged


@lru_cache(maxsize=1)
def environment():
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    return Environment(loader=FileSystemLoader(template_dir()), autoescape=True, undefined=StrictUndefined,
                       trim_blocks=True, lstrip_blocks=True)


def read_template(name: str) -> str:
    return (template_dir() / name).read_text(encoding="utf-8")


def attachment_names(results: Results, with_workbook: bool) -> tuple[str, ...]:
    scn = results.scenario
    base = Path(scn.file).name
    yaml_name = base if base.endswith((".yaml", ".yml")) else f"{scn.name}.yaml"
    return (yaml_name, f"{scn.name}.xlsx") if with_workbook else (yaml_name,)
