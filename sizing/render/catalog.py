"""The catalog as text: a listing, and one entry with the source of every figure."""

from __future__ import annotations

from ..scenario import catalog
from ..schema import Entity



def summary(e: Entity) -> str:
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
        bits = [f"{e.get('parameters'):.4g} parameters" if e.has("parameters") else ""]
        if e.has("active_parameters"):
            bits.append(f"{e.get('active_parameters'):.3g} active")
    tag = " [illustrative]" if e.get("illustrative") else ""
    return f"  {e.id:<32} {'; '.join(b for b in bits if b)}{tag}"


def listing() -> str:
    devices, models, _ = catalog()
    lines = ["devices:"] + [summary(e) for e in devices.values()]
    lines += ["", "models:"] + [summary(e) for e in models.values()]
    return "\n".join(lines) + "\n"


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
