"""Page one's reason and requirements in words: why the recommendation wins (what limits the work, or what the
others fail), and what it was checked against (memory, latency targets, the peak and its spare, a deadline, a hosted
API's rate limit)."""

from __future__ import annotations

import statistics

from ..decide import pair_of
from ..evaluate import Results
from ..render.format import human
from ..results import Decision

from .common import objective_words, role_value
from . import margin as M
from .memo import count, given, option_words
from .training import filled

FAILED = {"deployment": "cannot be had where it must run", "budget": "is over the budget",
          "does not fit": "cannot hold the model and its working memory",
          "no rate at this precision": "cannot run at this precision",
          "latency target": "answers too slowly for the latency targets",
          "deadline": "does not finish by the deadline",
          "latency not stated": "has no stated response times to check against the targets (its provider's service "
                                "level, under api:)"}


def reason(r: Results, dec: Decision, tag: str) -> str:
    """One sentence a non-engineer reads: why the recommendation wins."""
    b = dec.best
    if b is None:
        return "No option meets every requirement: the table below gives each option's shortfall."
    name, word = option_words(r, b), "highest" if dec.maximise else "lowest"
    objective = objective_words(dec)
    if tag in FAILED:
        cheapest = min((o for o in dec.options if o.value is not None and o.failures),
                       key=lambda o: -o.value if dec.maximise else o.value, default=None)
        if cheapest is not None:
            return (f"The option with the {word} {objective}, {option_words(r, cheapest)}, {FAILED[tag]}; {name} "
                    f"is the best that meets every requirement.")
    p = pair_of(r, dec, b)
    if tag.startswith("cost: renting"):
        util = r.inputs.get(f"workload.{b.workload or dec.workload}.traffic.utilisation")
        if util is not None and util.value.value >= 1:     # steady traffic: not below its peak (a new user read that)
            return ("Paying by the hour for the device-time the traffic keeps busy costs less than holding whole "
                    f"devices sized for the peak with room to spare; {name} does so at the {word} {objective}.")
        return ("Traffic is below its peak most of the month, so paying by the hour for the devices it keeps busy "
                f"costs less than holding a fleet sized for the peak; {name} does so at the {word} {objective}.")
    if tag.startswith("cost: the hosted API"):
        if not any(o.passes for o in dec.options if o.variant != "api"):     # none priced: nothing it costs less than
            return ("No option on devices meets every requirement (the options table says what each fails); the "
                    "hosted API is the only one that does, at its provider's stated service level.")
        return "At this traffic, paying the hosted API per token costs less than running any fleet."
    if tag == "memory-bound":
        return (f"Generating text is limited by how fast a chip reads the model from memory, not by its arithmetic, "
                f"so memory speed{' and price' if 'USD' in dec.unit else ''} decide{'' if 'USD' in dec.unit else 's'}; "
                f"{name} meets every requirement at the {word} {objective}.")
    if tag == "compute-bound":
        return (f"At this batch the work is limited by the chips' arithmetic rate; {name} meets every requirement "
                f"at the {word} {objective}.")
    if tag == "link-bound":
        return (f"Moving the data to and from the device takes most of the time, so the host link decides; {name} "
                f"has the {word} {objective}.")
    if tag.startswith("cost: the cheaper device"):
        return (f"{name} already answers within the latency target, so a faster device would only cost "
                f"more.")
    if p is not None and p.kind == "train":
        return f"{name} finishes the run by its deadline at the {word} {objective}." \
            if isinstance(p.values.get("meets_targets"), bool) else f"{name} has the {word} {objective}."
    return f"{name} meets every requirement at the {word} {objective}." if dec.require else \
        f"{name} has the {word} {objective}."


def requirements(r: Results, dec: Decision) -> list[str]:
    """What every option was checked against, in words with the scenario's figures."""
    w = f"workload.{dec.workload}"
    out = []
    best = pair_of(r, dec, dec.best) if dec.best else None
    v = best.values if best else {}
    if "fits_memory" in dec.require:
        train = best is not None and best.kind == "train"
        used = filled(v) if train else None
        out.append(("holds the training state and its activations" if train else
                    "holds the model and its working memory")
                   + (f" (the recommendation fills {used * 100:.1f} % of each device's usable memory)"
                      if used is not None and used >= FULL else ""))
    if "meets_targets" in dec.require:
        for key, what in (("targets.per_token_p95", "time between tokens"), ("targets.ttft_p95",
                          "time to first token"), ("targets.latency_p95", "latency")):
            if (text := given(r, f"{w}.{key}")) is not None:
                out.append(f"{what} at most {text} for 95 % of requests")
        if (text := given(r, f"{w}.deadline", "days")) is not None:
            left = v.get("deadline_spare")
            spare = left * 100 if isinstance(left, float) and left >= 0 else None
            said = None if spare is None else f"{spare:.1f} %" if spare < 10 else f"{spare:.0f} %"
            runs = M.own_runs(r, dec, dec.best) if dec.best else []
            seen = statistics.median(runs) if runs else None
            late = (f"; its published {'run' if len(runs) == 1 else 'runs'} ran at {seen:.2f}x the predicted "
                    f"speed{'' if len(runs) == 1 else ' (median)'}, which would miss it"
                    if seen is not None and spare is not None and seen < 1 - spare / 100 else "")
            out.append(f"finishes within {text}" + (
                f" (the recommendation in {human(v['duration'], 's', 'days')}: {said} to spare; on its "
                f"{count(v['devices'], 'device')} a speed more than {said} below the prediction misses it{late})"
                if said and isinstance(v.get("devices"), float) else ""))
    if (peak := given(r, f"{w}.traffic.peak")) is not None:
        spare = role_value(r, best, "redundancy") if best else None
        if dec.best is not None and dec.best.variant == "api":
            out.append(f"serves a peak of {peak} (the provider's capacity, not modelled: {rate_limit(r, w)})")
        else:
            out.append(f"serves a peak of {peak}" + (f" with {count(spare, 'spare replica')}" if spare else ""))
    for where in ("cloud", "on-prem", "edge"):
        if where in dec.require:
            out.append({"cloud": "can be had in the cloud", "on-prem": "can be had on premises",
                        "edge": "can run at the edge"}[where])
    for name, limit in dec.budget.items():
        unit = "USD/month" if name == "monthly" else "USD"
        what = {"monthly": "monthly budget", "capex": "capital budget", "total": "budget for the run"}[name]
        out.append(f"within the {what} of {human(limit, unit)}")
    return out


FULL = 0.95              # a recommendation filling this share of its memory is said to


def rate_limit(r: Results, w: str) -> str:
    """The rate limit a hosted API must grant at the peak: 'ask for 12 requests/s, 18,000 input and 3,000 output
    tokens/s'."""
    peak = r.inputs[f"{w}.traffic.peak"].value.value
    v = next((p.values for p in r.pairs if p.workload == w.removeprefix("workload.")), {})
    tokens = [(v[q], side) for q, side in (("peak_input_tokens_per_s", "input"), ("peak_output_tokens_per_s", "output"))
              if isinstance(v.get(q), float)]
    per_s = " and ".join(f"{human(n, 'token/s').removesuffix(' tokens/s')} {side}" for n, side in tokens)
    return f"ask for {human(peak, 'request/s')}" + (f", {per_s} tokens/s" if per_s else "")
