"""The method: formulas printed from the graph, and the inputs they name."""

from __future__ import annotations

from ... import currency
from ... import formulas as F
from ... import kinds as K
from ...evaluate import Results
from ...formulas.graph import QuantityDef
from ...narrative import used_keys
from .context import MethodEntry, MethodGroup


def method(r: Results) -> tuple[MethodGroup, ...]:
    """The formulas actually used, printed from the formula graph, one group per workload kind."""
    out = []
    for kind in dict.fromkeys(p.kind for p in r.pairs):
        pairs = [p for p in r.pairs if p.kind == kind]
        variants: dict[str, dict[str, list[str]]] = {}
        found: dict[str, QuantityDef] = {}
        for p in pairs:
            for x in p.planned:
                if isinstance(x.expr, F.Missing) or x.d.id in p.absent:
                    continue
                found.setdefault(x.d.id, x.d)
                variants.setdefault(x.d.id, {}).setdefault(currency.units(F.to_text(x.expr)), []).append(p.device)
        entries = []
        for qid, d in found.items():
            forms = variants[qid]
            texts = tuple(t if len(forms) == 1 else f"{t}   [{', '.join(dict.fromkeys(devs))}]"
                          for t, devs in forms.items())
            entries.append(MethodEntry(qid, currency.units(d.unit) or "–", d.description, texts))
        if any(p.compared for p in pairs):
            c = next(x.d for p in pairs for x in p.compared)
            entries.append(MethodEntry("speedup_vs_<device>", "–", "speed-up against each other device",
                                       (c.description.rsplit(" (", 1)[0],)))
        out.append(MethodGroup(K.get(kind).words, tuple(entries)))
    return tuple(out)


def glossary(r: Results) -> tuple[tuple[str, str, str], ...]:
    """The input names the formulas use, with their SI unit and meaning."""
    used = used_keys(r.pairs)
    roles = dict.fromkeys(i.role for k, i in r.inputs.items() if k in used)
    return tuple((role, currency.units(F.INPUTS[role].unit) or "–", F.INPUTS[role].description) for role in roles)
