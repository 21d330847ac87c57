"""The catalog as text: a listing, and one entry with the source of every figure."""

from __future__ import annotations

import re

from ..scenario import catalog
from ..schema import Entity



def summary(e: Entity) -> str:
    """An entry's figures in one line: a device's rates, memory and bandwidth; a model's parameters."""
    if e.kind == "device":
        rates = ", ".join(f"{p.split('.')[1]} {e.values[p].text}" for p in e.values if p.startswith("compute."))
        rates = rates or ", ".join(f"{p.split('.')[1]} {e.values[p].text} delivered" for p in e.values
                                   if p.startswith("delivered."))
        if e.has("cpu.cores"):
            width, clock = e.values["cpu.vector_width"].text, e.values["cpu.clock"].text
            rates += f" ({e.get('cpu.cores')} cores x {width} at {clock})"
        bits = [e.get("kind", ""), rates, e.values["memory"].text if e.has("memory") else "",
                e.values["memory_bandwidth"].text if e.has("memory_bandwidth") else ""]
    else:
        bits = [f"{count(e.get('parameters'))} parameters" if e.has("parameters") else ""]
        if e.has("active_parameters"):
            bits.append(f"{count(e.get('active_parameters'))} active")
    tag = " [illustrative]" if e.get("illustrative") else ""
    return f"{'; '.join(b for b in bits if b)}{tag}"


def count(n: float) -> str:
    """'70.6 B', '22.7 M': a parameter count in three or four digits."""
    for scale, word in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if n >= scale:
            return f"{n / scale:.4g} {word}"
    return f"{n:g}"


def lines_of(entries: list[Entity], width: int | None) -> list[str]:
    """One entry a line, ids in a column as wide as the longest; with a width, each summary wraps under its own
    column (a hanging indent) instead of the terminal's wrapping it under the ids."""
    import textwrap

    column = max(len(e.id) for e in entries)
    out = []
    for e in entries:
        head = f"  {e.id:<{column}} "
        room = (width or 0) - len(head)
        text = summary(e)
        if room >= 20 and len(text) > room:
            kept = re.sub(r"[^,;()]+", lambda m: m.group(0).strip().replace(" ", "\xa0").join(
                (" " if m.group(0).startswith(" ") else "", " " if m.group(0).endswith(" ") else "")), text)
            wrapped = textwrap.wrap(kept, room, break_on_hyphens=False, break_long_words=False)
            out.append(head + f"\n{' ' * len(head)}".join(w.replace("\xa0", " ") for w in wrapped))
        else:
            out.append(head + text)
    return out


def chosen(kind: str | None = None, min_memory: float | None = None, min_bandwidth: float | None = None,
           precision: str | None = None) -> tuple[list[Entity], list[Entity]]:
    """The devices (and, without a device filter, the models) that pass the filters: a device kind, at least so much
    memory (bytes) or bandwidth (bytes/s), a rate at a precision (peak or delivered; for a weight-only format such as
    q4_0, at the precision it computes at on the device: a new user's q4_0 found no device)."""
    from ..binding import arithmetic, rated
    devices, models, _ = catalog()
    keep = []
    for e in devices.values():
        if kind and e.get("kind") != kind:
            continue
        if min_memory is not None and not (e.has("memory") and e.get("memory") >= min_memory):
            continue
        if min_bandwidth is not None and not (e.has("memory_bandwidth") and e.get("memory_bandwidth") >= min_bandwidth):
            continue
        if precision and not rated(e, arithmetic(precision, e)):   # a weight-only format: the rate it computes at
            continue
        keep.append(e)
    filtered = any(x is not None for x in (kind, min_memory, min_bandwidth, precision))
    return keep, [] if filtered else list(models.values())


def listing(devices: list[Entity] | None = None, models: list[Entity] | None = None, width: int | None = None) -> str:
    """The entries that passed the filters, devices then models; `width`: the terminal's columns (None: no limit)."""
    if devices is None:
        devices, models = chosen()
    lines = ["devices:"] + lines_of(devices, width) if devices else []
    if models:
        lines += ([""] if lines else []) + ["models:"] + lines_of(models, width)
    return "\n".join(lines or ["no catalog entry passes the filters"]) + "\n"


def as_json(devices: list[Entity], models: list[Entity]) -> str:
    """The entries in SI units: rates in FLOP/s, memory in bytes, bandwidth in bytes/s; each figure with its text
    and its source."""
    import json

    def entry(e: Entity) -> dict:
        figures = {p: {"value": v.value, "unit": v.unit, "text": v.text, "source": v.source}
                   for p, v in e.values.items() if not p.startswith(("sources[", "field_sources", "unverified["))
                   and isinstance(v.value, (int, float)) and not isinstance(v.value, bool)}
        texts = {p: v.value for p, v in e.values.items() if p in ("name", "kind", "vendor", "illustrative")}
        return {"id": e.id, **texts, "figures": figures}
    return json.dumps({"devices": [entry(e) for e in devices], "models": [entry(e) for e in models]}, indent=2,
                      sort_keys=True) + "\n"


def show(entry: str) -> str | None:
    devices, models, _ = catalog()
    e = devices.get(entry) or models.get(entry)
    if e is None:
        return None
    lines = [f"{e.id} ({e.kind}){' [illustrative]' if e.get('illustrative') else ''}"]
    if e.has("name"):
        lines.append(f"  {e.get('name')}")
    for path, v in e.values.items():
        if path.startswith(("sources[", "field_sources", "name", "unverified[")):
            continue
        lines.append(f"  {path}: {v.text}")
    lines.append("sources:")
    i = 0
    while e.has(f"sources[{i}].title"):
        parts = [e.get(f"sources[{i}].{k}") for k in ("title", "url", "repo", "path", "commit", "date")]
        lines.append("  - " + " | ".join(str(p) for p in parts if p))
        i += 1
    for path, v in e.values.items():
        if path.startswith("field_sources."):
            lines.append(f"  {path[14:]}: {v.value}")
    unverified = [v.value for p, v in e.values.items() if p.startswith("unverified[")]
    if unverified:
        lines.append("unverified:")
        lines += [f"  - {u}" for u in unverified]
    return "\n".join(lines) + "\n"
