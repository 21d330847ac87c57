"""The whole context from the engine's results: every number comes from them."""

from __future__ import annotations

import datetime as dt
from datetime import date
from importlib import metadata
from pathlib import Path

from ... import __version__, currency
from ... import kinds as K
from ...evaluate import Results
from ...output import build_date_words, build_datetime
from ...scenario import sha256
from ...narrative import breakeven, defs, findings, label, pairs_of, used_keys, workload_ids, workload_title
from .context import Provenance, Report, Table
from .memo import signoff
from .method import constants, glossary, method, trust, trust_apart, trust_words
from .page_one import FIGURE_COLUMNS, decision_summary, together
from .sections import row_of, workload_section


def build_context(results: Results, attachments: tuple[str, ...]) -> Report:
    """Everything the template shows, formatted; every number comes from the engine's results."""
    scn = results.scenario
    meta = {k: v.value for k, v in scn.meta.items()}
    when = build_datetime(scn)
    return Report(
        title=scn.title, owner=str(meta.get("owner", "not stated")), date=str(meta.get("date", when.date())),
        status=str(meta.get("status", "not stated")), description=str(meta.get("description", "")).strip(),
        created=when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        decisions=tuple(decision_summary(results, i, today(scn)) for i in range(len(results.decisions))),
        overview=overview(results),
        together=together(results),
        undecided=undecided(results),
        findings=findings(results),
        caveats=caveats(results),
        workloads=sections(results),
        breakeven=breakeven(results), method=method(results),
        glossary=glossary(results), warnings=tuple(f"{p.path}: {p.message}" for p in results.problems),
        provenance=Provenance(f"sizing {__version__}", Path(scn.file).name, sha256(scn.data),
                              build_date_words(scn), attachments, renderers()),
        signoff=signoff(meta), constants=constants(results), trust=trust(results), trust_words=trust_words(results),
        trust_apart=trust_apart(results), currency=currency.code(),
        limits=limits(results),
    )


def limits(r: Results) -> tuple[str, ...]:
    """What the model leaves out, for the kinds of work present; the mixture-of-experts routing only where a model
    has experts (a reviewer found it in a report of dense models)."""
    moe = any(k.startswith("model.") and k.endswith(".experts") for k in r.inputs)
    kinds = dict.fromkeys(p.kind for p in r.pairs)
    return tuple(x for x in dict.fromkeys(K.LIMITS + tuple(x for kind in kinds for x in K.get(kind).limits))
                 if moe or not x.startswith("Mixture-of-experts"))


def sections(r: Results) -> tuple:
    """Each workload's section; an input is listed under the first that reads it."""
    shown: dict[str, str] = {}
    return tuple(workload_section(r, wid, shown) for wid in workload_ids(r))


def today(scn) -> date:
    """The date sources' ages are counted to: the scenario's, else the build date."""
    if "date" in scn.meta:
        return dt.datetime.strptime(scn.meta["date"].value, "%Y-%m-%d").date()
    return build_datetime(scn).date()


def overview(r: Results) -> tuple[Table, ...]:
    """Without a decision: each workload's key figures, options down."""
    if r.decision:
        return ()
    out = []
    for wid in workload_ids(r):
        pairs = pairs_of(r, wid)
        present = defs(pairs)
        figures = [q for q in K.get(pairs[0].kind).key_figures if q in present][:FIGURE_COLUMNS + 1]
        if figures:
            columns = [row_of(pairs, q, present[q]) for q in figures]
            rows = tuple((p.device, *(c[i] for c in columns)) for i, p in enumerate(pairs))
            out.append(Table(("Option",) + tuple(label(q, pairs[0].kind) for q in figures), rows,
                             ("l",) + ("r",) * len(figures),
                             caption=workload_title(r, wid)))
    return tuple(out)


def caveats(r: Results) -> tuple[str, ...]:
    """Entities whose figures are the reference's illustrative numbers, not a product's."""
    groups: dict[str, list[str]] = {}
    used = used_keys(r.pairs)
    for key, i in r.inputs.items():
        if key in used and "illustrative" in (i.value.source or ""):
            groups.setdefault(f"{i.entity.kind} {i.entity.id}", []).append(i.path)
    return tuple(f"{ent}: {', '.join(paths)}" for ent, paths in groups.items())


def renderers() -> str:
    return ", ".join(f"{n} {metadata.version(n)}" for n in ("WeasyPrint", "matplotlib", "Jinja2"))


def undecided(r: Results) -> str:
    """Why page one ranks nothing: the scenario asks no ranking question, or no workload computes the objective
    its decision asks for (the first warning says what is missing)."""
    if r.decisions:
        return ""
    asked = [d.get("objective") for d in r.scenario.decisions]
    if not asked:
        return ("This scenario asks no ranking question: no decision objective applies to its workloads. Its key "
                "figures follow, option by option; the sections after them give the inputs, every result and the "
                "method.")
    warned = next((p.message for p in r.problems if p.level == "warning"), "")
    return (f"Nothing is ranked: no workload computes {' or '.join(asked)}, the "
            f"objective{f' ({warned})' if warned else ''}. The figures that are computed follow, option by option; "
            "the warnings at the end say what is missing.")
