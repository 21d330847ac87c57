"""A workload's alternatives: each is the workload with some fields changed, evaluated as a workload of its own
(`chat-fp8`) and ranked by every decision on the workload beside the workload itself."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Callable

from .checks import check_parallel, check_traffic
from .loader import Mapping
from .language.types import SLUG
from .schema import Checker, Entity, Scenario, Value

if TYPE_CHECKING:
    from .evaluate import Results

FIT = "fit"               # the automatic alternative: a serving workload on the devices that hold it
SERVED = ("generate", "forward")          # the kinds it is added for: served from replicas of devices
SERVERS = "servers"       # the automatic alternative of a training run: every device of the whole servers it needs
TWIN = {"traffic.average": "traffic.utilisation", "traffic.utilisation": "traffic.average"}   # one sets the other

PREFIX = re.compile(r"^alternatives\.([^.]+)\.")


def strip(path: str) -> str:
    """A field path inside an alternative as the workload's own path (`alternatives.fp8.precision` -> precision)."""
    return PREFIX.sub("", path, count=1)


def changes(w: Entity) -> dict[str, dict[str, object]]:
    """Each alternative's id -> its values, at the workload's own paths, in the order given."""
    out: dict[str, dict] = {}
    for path, v in w.values.items():
        if m := PREFIX.match(path):
            out.setdefault(m.group(1), {})[strip(path)] = v
    return out


def given_by(workloads: dict[str, Entity], w: Entity) -> dict[str, Value]:
    """The fields alternative `w` sets, at the workload's own paths ({} for a workload as written)."""
    return changes(workloads[w.alternative_of]).get(w.alternative, {}) if w.alternative_of else {}


def variant(w: Entity, alt: str, given: dict) -> Entity:
    """The workload with an alternative's values in place of its own: each value given replaces the workload's
    and everything below it (`devices: 8` replaces a per-device `devices: {h100: 2}`; `traffic: {peak: ..}`
    changes the peak and keeps the rest of the traffic; `devices: {h100: 4}` changes the H100's count only)."""
    replaced = set(given) | {TWIN[g] for g in given if g in TWIN}     # the average, or the peak's share
    values = {p: v for p, v in w.values.items() if not PREFIX.match(p)
              and not any(p == g or p.startswith(g + ".") for g in replaced)}
    values.update(given)
    follows = {k: src for k, src in w.follows.items() if k not in given}
    for k, src in follows.items():        # a defaulted field follows its source (kv_precision follows precision)
        if src in given:
            values[k] = replace(given[src], source=f"default: same as {src}")
    title = f"{alt} (alternative of {w.get('title') or w.id})"
    if "title" not in given:
        values["title"] = replace(w.values.get("title") or w.values["kind"], value=title, text=title,
                                  source=f"alternative {alt} of {w.id}")
    return Entity("workload", f"{w.id}-{alt}", values, w.line, w.col, follows, alternative_of=w.id, alternative=alt)


def expand(chk: Checker, workloads: dict[str, Entity], complete: Callable[[Entity], None]) -> dict[str, Entity]:
    """The workloads with each alternative after the workload it varies, its absent fields defaulted by
    `complete` as a workload's are, and checked as a workload is; a clash of ids is a located error."""
    out: dict[str, Entity] = {}
    for w in workloads.values():
        out[w.id] = w
        for alt, given in changes(w).items():
            v = variant(w, alt, given)
            where = f"workloads.{w.id}.alternatives.{alt}"
            at = w.keys.get(f"alternatives.{alt}") or next(iter(given.values()))
            if v.id in workloads:
                chk.problem(at, where, f"the alternative's workload id '{v.id}' is taken by a workload; rename "
                            f"the alternative", "duplicate-entry")
                continue
            complete(v)
            check_parallel(chk, v, v.get("kind"), where)
            check_traffic(chk, v, where, given)
            out[v.id] = v
    return out


def check_ids(chk: Checker, w: Entity, node, path: str, since: int) -> None:
    """An alternative's id is an id, not `fit` (the automatic one's), and it changes something; `kind` and
    `description` are not an alternative's to change."""
    for i in range(since, len(chk.problems)):
        p = chk.problems[i]
        if p.code == "unknown-key" and re.search(r"\.alternatives\.[^.]+\.(kind|description)$", p.path):
            name = p.path.rsplit(".", 1)[-1]
            chk.problems[i] = replace(p, message=f"an alternative cannot change '{name}': it varies its workload; "
                                                 f"write another workload instead")
    if not isinstance(node, Mapping):
        return
    for key, child in node.entries:
        w.keys[f"alternatives.{key.text}"] = chk.value(key, key.text, None)
        where = f"{path}.alternatives.{key.text}"
        if not SLUG.fullmatch(key.text):
            chk.problem(key, where, f"expected an alternative id of lower-case letters, digits, '.', '_' and '-', "
                        f"got '{key.text}'", "bad-id")
        elif key.text == FIT:
            chk.problem(key, where, f"'{FIT}' is the id of the automatic alternative (the devices that hold a "
                        f"workload that does not fit); choose another id", "duplicate-entry")
        elif isinstance(child, Mapping) and not [k for k, _ in child.entries if k.text != "title"]:
            chk.problem(key, where, f"the alternative '{key.text}' changes nothing; give the fields it changes, e.g. "
                        f"{{precision: fp8}}", "empty-mapping")


def widens(w: Entity, device: str) -> bool:
    """Whether the automatic `fit` alternative `w` gives `device` more devices (it is ranked on those only)."""
    v = w.values.get(f"devices.{device}")
    return w.automatic and v is not None and v.source.startswith("automatic")


def ranked_on(w: Entity, device: str) -> bool:
    """Whether workload `w` is ranked on `device`: a workload or alternative as written on every compared device;
    the automatic `fit` on the devices it widens; a batch sizing found on the devices it was found for."""
    return not w.automatic or (device in w.found if w.found else widens(w, device))


def fit_for(workloads: dict[str, Entity], wid: str, device: str) -> Entity | None:
    """The automatic `fit` alternative that holds workload `wid` on `device`, if the engine added one."""
    w = workloads.get(f"{wid}-{FIT}")
    return w if w is not None and widens(w, device) else None


def of(workloads: dict[str, Entity], wid: str) -> list[Entity]:
    """The alternatives of a workload, in the order given."""
    return [w for w in workloads.values() if w.alternative_of == wid]


def inherited(inputs: dict, workloads: dict[str, Entity], key: str) -> str | None:
    """The key of the workload input an alternative's input takes its value from (None when the alternative sets
    it, or it differs): in the workbook such an input follows the workload's cell, as the engine would."""
    inp = inputs.get(key)
    ent = getattr(inp, "entity", None)         # a blank cost cell is a device's, never an alternative's
    if not getattr(ent, "alternative_of", ""):
        return None
    base = f"workload.{ent.alternative_of}.{inp.path}"
    given = given_by(workloads, ent)
    if base not in inputs or inputs[base].value.value != inp.value.value or \
            any(inp.path == g or inp.path.startswith(g + ".") for g in given):
        return None
    return base


def sharded(scn: Scenario, r: Results) -> Scenario | None:
    """The scenario with an automatic alternative for each decided serving workload, and each of its alternatives,
    that does not fit on a device whose count the scenario leaves at its default: that device with the fewest
    devices that hold it, rounded up to a power of two as tensor-parallel runtimes split the attention heads evenly
    (the scenario "allows more devices"), so the sharded setup is priced and ranked as its own option: `fit` of the
    workload, `fp8-fit` of its alternative `fp8`; and for each decided training run whose devices follow its
    deadline, `servers` where every device of its whole servers costs less (on_servers). None when no such
    workload."""
    decided = {d.workload for d in r.decisions}
    need: dict[tuple[str, str], dict[str, int]] = {}
    for p in r.pairs:
        w = scn.workloads.get(p.workload)
        if w is None or (w.alternative_of or w.id) not in decided or w.automatic:
            continue
        kind, n = (FIT, holding(p.values.get("fits"), p.values.get("devices_to_fit"))) if p.kind in SERVED else \
            (SERVERS, on_servers(p.values)) if p.kind == "train" else (FIT, None)
        if n is None:
            continue
        pinned = w.has(f"devices.{p.device}") or any(
            (k == "devices" or (k.startswith("parallel.") and kind == FIT)) and v.source != "default"
            for k, v in w.values.items())
        if not pinned and auto_name(w, kind) not in changes(scn.workloads[w.alternative_of or w.id]) \
                and f"{w.id}-{kind}" not in scn.workloads:
            need.setdefault((w.id, kind), {})[p.device] = n
    if not need:
        return None
    base = {w.id: w for w in scn.workloads.values() if not w.alternative_of}
    fits: dict[str, list[Entity]] = {}
    for (wid, kind), counts in need.items():
        w = scn.workloads[wid]
        root = base[w.alternative_of or w.id]
        name = auto_name(w, kind)
        given = {**given_by(scn.workloads, w), **{f"devices.{d}": Value(n, "", str(n), scn.file, w.line, w.col,
                                                 AUTOMATIC[kind][0]) for d, n in counts.items()}}
        given.pop("title", None)
        root = base[root.id] = replace(root, values={**root.values,
                                                     **{f"alternatives.{name}.{k}": v for k, v in given.items()}})
        fit = replace(variant(root, name, given), automatic=True)
        title = f"{w.get('title') or w.id}, {AUTOMATIC[kind][1]}"
        fit.values["title"] = replace(fit.values["title"], value=title, text=title)
        fits.setdefault(w.id, []).append(fit)
    out: dict[str, Entity] = {}
    for w in scn.workloads.values():
        out[w.id] = base.get(w.id, w)
        for fit in fits.get(w.id, ()):
            out[fit.id] = fit                     # right after the workload it varies
    return replace(scn, workloads=out)


# The automatic alternatives: the source their device counts carry, and what their titles add.
AUTOMATIC = {FIT: ("automatic: the fewest devices that hold it, rounded up to a power of two", "sharded to fit"),
             SERVERS: ("automatic: every device of the whole servers the run needs, where that costs less",
                       "on whole servers")}


def on_servers(v: dict) -> int | None:
    """The devices of the whole servers a training run needs, where the run on all of them costs less than on the
    devices its deadline needs and meets the deadline there, and they hold whole replicas (procurement reviewers
    could not order 30 B200s, 3.75 servers, and read that 32 cost less: $77,360, not $78,165); None otherwise."""
    whole, working, used = v.get("whole_domain_devices"), v.get("whole_domain_working"), v.get("devices")
    cost, there, took, spare = v.get("cost"), v.get("cost_whole_domains"), v.get("duration_whole_domains"), \
        v.get("deadline_spare")
    if not all(isinstance(x, float) for x in (whole, working, used, cost, there, took)) or whole <= used \
            or working != whole or there >= cost:
        return None
    if isinstance(spare, float) and spare < 1 and took > v["duration"] / (1 - spare):     # past the deadline there
        return None
    return int(whole)


def unsharded(scn: Scenario) -> Scenario:
    """The scenario as written: without the automatic alternatives `sharded` added (a grid's cell, evaluated again,
    finds its own)."""
    added: dict[str, list[str]] = {}
    for w in scn.workloads.values():
        if w.automatic:
            added.setdefault(w.alternative_of, []).append(f"alternatives.{w.alternative}.")
    if not added:
        return scn
    out = {}
    for w in scn.workloads.values():
        if w.automatic:
            continue
        if w.id in added:
            w = replace(w, values={k: v for k, v in w.values.items() if not k.startswith(tuple(added[w.id]))})
        out[w.id] = w
    return replace(scn, workloads=out)


def fit_name(w: Entity) -> str:
    """The id of the automatic alternative that holds workload `w` on more devices: `fit`, or `fp8-fit` for `w`'s
    alternative `fp8`."""
    return auto_name(w, FIT)


def whole_servers(w: Entity) -> bool:
    """Whether `w` is the automatic alternative that runs a training run on every device of its whole servers."""
    return w.automatic and (w.alternative == SERVERS or w.alternative.endswith(f"-{SERVERS}"))


def written_run(wid: str) -> str:
    """The workload (or alternative) a whole-servers alternative runs on more devices: `pretrain` of
    `pretrain-servers`, `tune-lora` of `tune-lora-servers`; any other id as it is."""
    return wid.removesuffix(f"-{SERVERS}")


def auto_name(w: Entity, kind: str) -> str:
    """The id of an automatic alternative of workload `w`: `fit` or `servers`, `fp8-fit` for `w`'s alternative."""
    return f"{w.alternative}-{kind}" if w.alternative_of else kind


def holding(fits, n) -> int | None:
    """The devices the automatic alternative gives a pair that does not fit (`fits` false: a bool, or numpy's in a
    grid's cell) and that `n` devices would hold, rounded up to a power of two as tensor-parallel runtimes split the
    attention heads evenly; None when it fits, or one device or no count would do."""
    if fits is None or fits or not isinstance(n, float) or not math.isfinite(n) or n <= 1:
        return None
    return 2 ** math.ceil(math.log2(n))
