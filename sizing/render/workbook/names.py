"""Defined names: every input and result of a workbook gets a valid, unique, readable name."""

from __future__ import annotations

import re
from typing import Iterable

from ... import formulas as F
from ...evaluate import Results

MASTER = "master_check"
CONSTANT, UNIT = "k", "u"        # prefixes of the named constants and of the display units' factors
REQUIREMENTS_MET = "requirements_met"
INPUTS_IN_RANGE = "inputs_in_range"     # every input within its range: what a recommendation may be read from
INPUTS_EDITED = "inputs_edited"         # how many inputs differ from the scenario as built
RECOMMENDATION = "decision.recommendation"
ENTITY_PREFIX = {"device": "dev", "model": "model", "workload": "wl", "benchmark": "rec"}


CELL_LIKE = re.compile(r"[A-Za-z]{1,3}[0-9]+|[Rr][0-9]*[Cc][0-9]*|[RrCc]")
NAME_CHARS = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def valid_name(s: str) -> bool:
    """An Excel defined name: letters, digits, _ and ., not a cell reference, not a boolean."""
    return (len(s) <= 255 and NAME_CHARS.fullmatch(s) is not None and CELL_LIKE.fullmatch(s) is None
            and s.upper() not in ("TRUE", "FALSE"))


def raw_name(key: str) -> str:
    """`device.h100.price` -> `dev.h100.price`; `chat/h100/step_time` -> `chat.h100.step_time`."""
    if "/" in key:
        text = key.replace("/", ".")
    else:
        kind, rest = key.split(".", 1)
        text = f"{ENTITY_PREFIX.get(kind, kind)}.{rest}"
    text = re.sub(r"[^A-Za-z0-9_.]", "_", text)
    return text if re.match(r"[A-Za-z_]", text) else "_" + text


def assign_names(keys: Iterable[str], reserved: Iterable[str] = ()) -> dict[str, str]:
    """A valid name per key, unique ignoring case (a suffix settles collisions such as a-b / a_b)."""
    used = {r.lower() for r in reserved}
    out = {}
    for key in keys:
        base = raw_name(key)[:248]
        name, n = base, 1
        while name.lower() in used or not valid_name(name):
            n += 1
            name = f"{base}_{n}"
        used.add(name.lower())
        out[key] = name
    return out


def names_of(r: Results) -> dict[str, str]:
    """The defined name of every input key and every quantity key of the results."""
    keys = list(r.inputs) + list(r.blanks) + [x.key for p in r.pairs for x in p.cells()]
    reserved = [MASTER, REQUIREMENTS_MET, INPUTS_IN_RANGE, INPUTS_EDITED, RECOMMENDATION] + [f"{CONSTANT}.{n}" for n in F.NAMED]
    return assign_names(keys, reserved=reserved)


def recommendation_name(i: int) -> str:
    """The defined name of a decision's recommendation cell: the first is `decision.recommendation`."""
    return RECOMMENDATION if i == 0 else f"decision_{i + 1}.recommendation"
