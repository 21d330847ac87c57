"""Page one's margin in words: the runner-up and how far it trails, as predicted and at the devices' median published
speeds; where the runner-up runs on the same device, the best option on another device, checked the same way; the
price up to which a rented recommendation stays ahead; a close call under the factor the estimates can be off by."""

from __future__ import annotations

from ..catalog import within
from ..decide import pair_of
from ..evaluate import Results
from ..render.format import human
from ..results import Decision, Option

from .common import device_name, objective_words, shown_gap
from . import margin as M
from .margin import KIND_RUNS, at_medians, best_elsewhere, is_close, kind_of, lead_at, margin, median_costs, runner_up
from .memo import beside, objective_unit, option_words, short_name


def margin_words(r: Results, dec: Decision) -> str:
    """'Runner-up: H200 SXM 141GB rented on demand as traffic needs at $6,437/month; the recommendation costs
    $1,731/month less (the runner-up costs 1.37x as much).' and, under a factor of 1.3, why that is a close call."""
    best, second = dec.best, runner_up(dec)
    if best is None or second is None or best.value is None or second.value is None:
        return "none: no other option meets every requirement." if best else ""
    unit, display = objective_unit(dec)
    lead = margin(dec)
    if human(second.value, unit, display) == human(best.value, unit, display):
        firm = best.variant == "fleet" and second.variant == "busy_hours"     # a signer: 'break the tie on substance'
        why = ("a tie, ranked first as it holds its devices all month while the runner-up's figure is a floor that "
               "assumes devices can be had the moment traffic rises" if firm else
               "a tie (ranked in the order the options are listed); choose between them on what these figures leave "
               "out")
        return (f"{option_words(r, second)} at {human(second.value, unit, display)}, the same "
                f"{objective_words(dec)}: {why}." + (elsewhere(r, dec) if best.device == second.device else ""))
    out = (f"{beside(r, second, best)} at {human(second.value, unit, display)}; {behind(dec, second, 'the runner-up')}"
           f"{break_even(r, dec, second)}.")
    got = median_costs(r, dec)
    out += at_medians(r, dec, got)
    shifted = lead_at(dec, got)
    if best.device == second.device and "api" not in (best.variant, second.variant) and shifted == 0:
        out += (f" Both run on the {device_name(r, best.device)}, the recommendation closer to a latency target: a "
                "slower device than estimated would make it miss; confirm the speed with a measurement before "
                "relying on it.") + elsewhere(r, dec)
    elif best.device == second.device and "api" not in (best.variant, second.variant):
        out += (f" Both run on the {device_name(r, best.device)}: an error in its speed estimate moves them alike, "
                "so the lead does not rest on it.") + elsewhere(r, dec)
    elif is_close(lead, shifted):
        lead = min(lead, max(shifted, 1 / shifted)) if shifted else lead
        near, runs = within(KIND_RUNS.get(kind_of(pair_of(r, dec, best)), ()), lead - 1)
        evidence = (f" ({runs - near} of {runs} published runs of this kind of work missed their prediction by more "
                    f"than {lead:.2f}x; the method says how far to trust the estimates)" if runs else "")
        out += (f" A lead under {1 + M.CLOSE_CALL:g}x is within how far the estimates can be off{evidence}: a close "
                "call; confirm both with a measurement or a quote.")
    return out


def behind(dec: Decision, other: Option, called: str, versus: str = "") -> str:
    """How far `other` trails the recommendation, as shown: 'the recommendation costs $1,731/month less (the
    runner-up costs 1.37x as much)', 'the recommendation is 12 tokens/s higher in its ... (1.20x the runner-up's)'."""
    best = dec.best
    unit, display = objective_unit(dec)
    more, less = (best.value, other.value) if dec.maximise else (other.value, best.value)
    money = "USD" in unit
    word = "less" if money else ("higher" if dec.maximise else "lower")
    subject = "recommendation costs" if money else "recommendation is"
    factor = "" if less <= 0 else (f" ({more / less:.2f}x {called}'s)" if dec.maximise else
                                   f" ({called} costs {more / less:.2f}x as much{versus})" if money else
                                   f" ({called}'s figure is {more / less:.2f}x as high)")
    return (f"the {subject} {shown_gap(other.value, best.value, unit, display)} {word}"
            f"{'' if money else f' in its {objective_words(dec)}'}{factor}")


def elsewhere(r: Results, dec: Decision) -> str:
    """Where the runner-up runs on the recommendation's device: the best ranked option on another device or the
    hosted API and how far it trails (' Best on another device: H100 SXM5 80GB at $1,793; the recommendation costs
    $748 less (it costs 1.72x as much as the recommendation).'); nothing when there is none."""
    other = best_elsewhere(dec)
    if other is None:
        return ""
    unit, display = objective_unit(dec)
    where = "the hosted API" if other.variant == "api" else "another device"
    out = (f" Best on {where}: {option_words(r, other)} at {human(other.value, unit, display)}; "
           f"{behind(dec, other, 'that option')}{break_even(r, dec, other)}.")
    if other.variant == "api" or not dec.best.value:     # the lead that rests on the devices' speeds: checked as the
        return out                                       # runner-up's is (a signer re-costed the MI300X at 0.81x)
    got = median_costs(r, dec, other)
    out += at_medians(r, dec, got, other)
    lead, shifted = other.value / dec.best.value, lead_at(dec, got, other)
    if is_close(lead, shifted):
        out += (f" A lead under {1 + M.CLOSE_CALL:g}x is within how far the estimates can be off: a close call; "
                "confirm both with a measurement or a quote.")
    return out


def break_even(r: Results, dec: Decision, other: Option) -> str:
    """The hourly price up to which the recommendation stays ahead of `other` on another device, where its cost is
    its hourly price times what it uses (rented, with or without a commitment discount) and `other`'s is not:
    '; it stays the cheaper up to $3.16/hour per Instinct MI300X (the scenario's $1.85/hour)' (procurement reviewers
    asked which device's price, and read 'today' of a price 23 months old)."""
    best = dec.best
    price = r.inputs.get(f"device.{best.device}.price")
    p = pair_of(r, dec, best)
    apart = other.device != best.device or other.variant == "api"
    if dec.maximise or not apart or price is None or p is None or p.values.get("cost_basis") not in ("rent",
            "reserved") or not best.value or other.value is None or other.value <= best.value \
            or "USD" not in objective_unit(dec)[0]:
        return ""
    today = price.value.value
    return (f"; it stays the cheaper up to {human(today * other.value / best.value, 'USD/s', 'USD/hour')} per "
            f"{short_name(r, best.device)} (the scenario's {human(today, 'USD/s', 'USD/hour')}), the rest as assumed")


# The decisive reason, by the dominant constraint the engine found (narrative.why's tag).
