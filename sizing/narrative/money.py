"""How an option is costed, in sentences that multiply to its figure: cost basis, rates, the API."""

from __future__ import annotations

from ..decide import pair_of
from ..evaluate import Pair, Results
from ..formulas.common import MONTH
from ..render.format import human, percent
from ..results import Decision, Option

from .common import figure, input_text, rate, role_value, show


def cost_sentence(r: Results, dec: Decision, o: Option) -> str:
    """How a service option is priced, its one definition in the engine's figures."""
    p = pair_of(r, dec, o)
    if o.variant == "api":
        return f"The hosted API is priced per token: {api_words(r, p)}."
    spare = role_value(r, p, "redundancy")
    spare = f" plus {human(spare, '')} spare replica{'' if spare == 1 else 's'}" if spare else ""
    return (f"Renting on demand as traffic needs pays the on-demand price for the devices the average traffic "
            f"keeps busy at the planned maximum utilisation{least_one(r, p)}{spare}{cost_driver(r, dec, o)}. This is a "
            f"floor: it averages fractional devices over the month and assumes capacity can always be had.")


def least_one(r: Results, p: Pair) -> str:
    """Where the average traffic keeps less than one replica busy: that one replica is rented all the same."""
    rate, most = p.values.get("average_rate"), role_value(r, p, "max_utilisation")
    if not (rate and most and p.values.get("requests_per_s")):
        return ""
    busy = rate / (p.values["requests_per_s"] * most)
    return (f" (one replica at least: the average traffic keeps one replica busy {percent(busy, 3)} of the time)"
            if busy < 1 else "")


def committed(r: Results, p: Pair) -> bool:
    """Whether the device's rental rate carries a commitment discount (reserved), not the on-demand price."""
    i = r.inputs.get(f"device.{p.device}.costs.reserved_discount")
    return bool(i and i.value.value)


def renting(r: Results, p: Pair) -> str:
    return "rented with the commitment discount" if committed(r, p) else "rented by the hour, all month"


def money(r: Results, p: Pair) -> list[str]:
    """The fleet's cost basis against the other one, where the engine prices both."""
    v, out = p.values, []
    if "monthly_cost_own" in v and "monthly_cost_rent" in v:
        out.append(f"Held all month this fleet costs {show(p, 'monthly_cost_own')} owned and "
                   f"{show(p, 'monthly_cost_rent')} {renting(r, p)}.")
    return out


def api_service_words(r: Results, p: Pair) -> str:
    """What is known of the API's latency: the provider's stated p95 figures checked against the targets, or not."""
    w = f"workload.{p.workload}"
    stated = [f"{input_text(r, f'{w}.api.{k}')} {what}" for k, what in
              (("ttft_p95", "to the first token"), ("per_token_p95", "per token")) if f"{w}.api.{k}" in r.inputs]
    if p.values.get("api_meets_targets") is True:
        return (f"Its latency is the provider's stated service level ({' and '.join(stated)} at the 95th "
                f"percentile), checked against the targets; its capacity at the peak is the provider's to guarantee.")
    return "Its latency and capacity are the provider's: no targets are set, so neither is checked."


def api_words(r: Results, p: Pair) -> str:
    """The API's price per request and per million output tokens, as the engine multiplies them."""
    w = f"workload.{p.workload}"
    parts = [f"{input_text(r, f'{w}.output_tokens')} output tokens × {input_text(r, f'{w}.api.output_price')}"]
    if f"{w}.api.input_price" in r.inputs and f"{w}.input_tokens" in r.inputs:
        parts.append(f"{input_text(r, f'{w}.input_tokens')} input tokens × {input_text(r, f'{w}.api.input_price')}")
    return f"{' + '.join(parts)} = {rate(p, 'api_cost_per_request')} per request, that is " \
           f"{show(p, 'api_cost_per_million_tokens')} with the input tokens' price counted in"


def api_unstated(r: Results, p: Pair) -> list[str]:
    """The provider's latency figures a target needs that its `api:` block leaves out."""
    w = f"workload.{p.workload}"
    return [k for k in ("ttft_p95", "per_token_p95") if f"{w}.targets.{k}" in r.inputs and f"{w}.api.{k}" not in
            r.inputs]


def api_target_words(r: Results, p: Pair) -> str:
    """Why the hosted API is not shown to meet the latency targets: a figure missing, or over its target."""
    w = f"workload.{p.workload}"
    missing = api_unstated(r, p)
    if missing:
        return (f"is not shown to meet the latency targets: the provider's stated {' and '.join(missing)} (its "
                f"service level) is not given; add it under api: to check it")
    over = [f"{input_text(r, f'{w}.api.{k}')} > {input_text(r, f'{w}.targets.{k}')}"
            for k in ("ttft_p95", "per_token_p95") if f"{w}.api.{k}" in r.inputs and f"{w}.targets.{k}" in r.inputs
            and r.inputs[f"{w}.api.{k}"].value.value > r.inputs[f"{w}.targets.{k}"].value.value]
    return f"misses a latency target at the provider's stated service level: {', '.join(over)}"


def money_text(v: float) -> str:
    return human(v, "USD")


def factor(x: float, times: float, total: float, unit: str) -> str:
    """`x` to the fewest significant digits (three at least, six at most) at which it times the sentence's other
    factors, as shown, comes to `total` as shown: '2.824 devices', not '2.82369 devices'."""
    for digits in range(3, 7):
        text = human(x, "", digits=digits)
        if human(figure(text) * times, unit) == human(total, unit):
            return text
    return human(x, "", digits=6)


def rate_to(p, qid: str, times: float, total: float | None, unit: str) -> str:
    """A rate a sentence multiplies (rate()), with the digits beyond five that its product with the sentence's other
    factors needs to come to `total` as shown ('$1.45535/hour' × 5 × 730.5 h: $5,316, where '$1.4553' gives
    $5,315)."""
    d = next(x.d for x in p.present() if x.d.id == qid)
    text = rate(p, qid)
    for digits in range(5, 9):
        text = human(p.values[qid], d.unit, d.display, digits=digits, cents=False)
        if total is None or human(figure(text) * times, unit) == human(total, unit):
            break
    return text


def busy_devices(r: Results, o: Option, v: dict) -> str:
    """The devices rented on average, to the fewest digits that multiply with the price and the month to the
    monthly cost shown ('3.376', where '3.38' would give $4,568 against $4,562); three digits where unpriced."""
    price = r.inputs.get(f"device.{o.device}.price")
    if price is None or not isinstance(v.get("busy_hours_monthly_cost"), float):
        return human(v["busy_hours_devices"], "", digits=3)
    shown = human(price.value.value, "USD/s", digits=5, cents=False)
    return factor(v["busy_hours_devices"], figure(shown) * HOURS_PER_MONTH, v["busy_hours_monthly_cost"], "USD/month")


BASIS_WORDS = {"own": "owned", "reserved": "rented with the commitment discount",
               "rent": "rented by the hour, all month"}
HOURS_PER_MONTH = MONTH.value / 3600     # the formulas' month, in hours


def basis_words(r: Results, p: Pair) -> str:
    """How a device is costed: the basis, the hourly rate used, and the other basis where both are priced."""
    v = p.values
    basis = v["cost_basis"]
    other = ""
    if "own_rate" in v and "rent_rate" in v:
        rent = "renting with the commitment discount" if committed(r, p) else "renting by the hour"
        other = (f", cheaper than {rent} at {rate(p, 'rent_rate')}" if basis == "own" else
                 f", cheaper than owning at {rate(p, 'own_rate')}")
    hourly = rate_to(p, "hourly_rate", v["fleet_devices"] * HOURS_PER_MONTH, v.get("monthly_cost"), "USD/month") \
        if isinstance(v.get("fleet_devices"), float) else rate(p, "hourly_rate")
    return f"costed as {BASIS_WORDS.get(basis, basis)} at {hourly} per device{other}"


def cost_driver(r: Results, dec: Decision, o: Option) -> str:
    """The sum that gives an option's cost, in its own figures (each shown to 4 digits, so it multiplies out)."""
    p = pair_of(r, dec, o)
    v = p.values
    monthly = o.quantity in ("monthly_cost", "busy_hours_monthly_cost", "api_monthly_cost")
    if o.variant == "api":
        if monthly:
            month = v["average_rate"] * HOURS_PER_MONTH * 3600
            return f": {show(p, 'average_rate')} × 3,600 s/h × {HOURS_PER_MONTH:g} h = {human(month, '')} " \
                   f"requests × {rate(p, 'api_cost_per_request')} per request"
        return f": {api_words(r, p)}"
    if o.variant == "busy_hours":
        if monthly:
            n = v["busy_hours_devices"]
            price = human(r.inputs[f"device.{o.device}.price"].value.value, "USD/s", digits=5, cents=False)
            return f": {busy_devices(r, o, v)} device{'' if n == 1 else 's'} rented on average × {price} " \
                   f"(on demand) × {HOURS_PER_MONTH:g} h"
        return f": {show(p, 'busy_hours_monthly_cost')} / {show(p, 'tokens_per_month')} served"
    if monthly and "hourly_rate" in v and "fleet_devices" in v:
        hourly = rate_to(p, "hourly_rate", v["fleet_devices"] * HOURS_PER_MONTH, o.value, dec.unit)
        return (f": {plural(v['fleet_devices'], 'device')} × {hourly} "
                f"({BASIS_WORDS.get(v.get('cost_basis'))}) × {HOURS_PER_MONTH:g} h")
    if o.quantity == "cost" and "device_hours" in v and "hourly_rate" in v:        # a training run
        basis = "rented by the hour" if v.get("cost_basis") == "rent" else BASIS_WORDS.get(v.get("cost_basis"))
        hours = factor(v["duration"] / 3600, v["devices"] * figure(rate(p, "hourly_rate")), v["cost"], "USD")
        return f": {plural(v['devices'], 'device')} × {rate(p, 'hourly_rate')} ({basis}) × {hours} h"
    if o.quantity == "cost_per_million_tokens" and "tokens_per_month" in v:
        return f": {show(p, 'monthly_cost')} / {show(p, 'tokens_per_month')} served"
    if o.quantity == "cost_per_million_tokens" and "hourly_rate" in v:
        return f": {show(p, 'tokens_per_s')} per replica at {rate(p, 'hourly_rate')} per device"
    return ""


def plural(n: float, what: str) -> str:
    """'1 device', '3 devices'."""
    return f"{human(n, '')} {what}{'' if n == 1 else 's'}"
