"""Traffic: replicas for the peak with queueing (Erlang C), utilisation, and the serving costs."""

from .common import HORIZON, MILLION, MONTH, NO_PRICE, PER_MILLION, REQUEST, YEAR_MONTHS, capital, forced_basis
from .expr import (TAIL_C, TINY_C, Const, Missing, all_of, all_present, ceil, erlang_c, first_present, fleet_search,
                   given, ln, maximum, nothing, sum_present, where)
from .graph import NA, quantity

TRAFFIC = ("generate", "forward")


@quantity(TRAFFIC, "servers_for_peak", "", "replicas for the peak at the maximum utilisation (no redundancy)",
          label="Replicas for the peak at the maximum utilisation", count=True)
def servers_for_peak(q):
    return ceil(q.peak_traffic / (q.requests_per_s * q.max_utilisation))


@quantity(TRAFFIC, "offered_load", "", "Erlang load at the peak: peak × slots / requests per second per replica",
          label="Offered load (Erlang)")
def offered_load(q):
    return q.peak_traffic * q.slots / q.requests_per_s


@quantity(TRAFFIC, "servers", "",
          "replicas serving the peak (without redundancy): the fewest at the maximum utilisation whose p95 wait "
          "still fits the latency target", label="Replicas for the peak", count=True)
def servers(q):
    if not q.has("target_slack"):
        return q.servers_for_peak
    slack = q.target_slack
    extra = fleet_search(q.servers_for_peak, q.slots, q.offered_load,
                         slack * q.requests_per_s / REQUEST, slack * q.peak_traffic / REQUEST)
    return where(slack > 0, q.servers_for_peak + extra, q.servers_for_peak)


@quantity(TRAFFIC, "replicas", "", "fleet for the peak: servers + redundancy (N+k)", label="Replicas", count=True)
def replicas(q):
    return q.servers + q.redundancy


@quantity(TRAFFIC, "fleet_devices", "", "devices to buy or rent: replicas × devices per replica",
          label="Devices in the fleet", count=True)
def fleet_devices(q):
    return q.replicas * q.replica_devices


@quantity(TRAFFIC, "fleet_purchase", "USD", "capital to buy the fleet: devices × purchase price", display="USD",
          label="Purchase of the fleet")
def fleet_purchase(q):
    return priced(q, q.fleet_devices * q.purchase, q.purchase)


@quantity(TRAFFIC, "capex", "USD", "capital: the fleet's purchase where it is owned, else nothing",
          display="USD", label="Capital expense")
def capex(q):
    held = capital(q, q.fleet_devices)
    return held if isinstance(held, Missing) else priced(q, held)


@quantity(TRAFFIC, "opex_monthly", "USD/month",
          "running cost per month: owned, devices × (power × PUE × electricity + hosting); rented, devices × the "
          "rental rate", display="USD/month", label="Operating expense per month")
def opex_monthly(q):
    flag = q.owned_fleet
    if isinstance(flag, Missing):
        return flag
    rent = q.price if forced_basis(q) == "rent" else q.rent_rate
    running = q.running_rate                # absent in a plan without a purchase cell: only renting is priced
    return priced(q, q.fleet_devices * (rent if isinstance(running, Missing) else where(flag, running, rent)) * MONTH)


@quantity(TRAFFIC, "annual_cost", "USD", "one year of the monthly cost", display="USD", label="Cost per year")
def annual_cost(q):
    return priced(q, q.monthly_cost * YEAR_MONTHS)


@quantity(TRAFFIC, "tco", "USD",
          "total cost over the horizon (the amortisation period; 3 years where none is given): capital + "
          "operating expense × months", display="USD", label="Total cost of ownership")
def tco(q):
    horizon = first_present(q.amortisation, HORIZON)
    return priced(q, q.capex + q.opex_monthly * horizon / MONTH)


@quantity(TRAFFIC, "utilisation_at_peak", "", "busy share of the servers (without redundancy) at the peak",
          display="%", label="Utilisation at the peak")
def utilisation_at_peak(q):
    return q.peak_traffic / (q.servers * q.requests_per_s)


@quantity(TRAFFIC, "wait_probability", "", "chance that a request waits at the peak (Erlang C, M/M/c)",
          display="%", label="Chance a request waits")
def wait_probability(q):
    return erlang_c(q.servers * q.slots, q.offered_load)


@quantity(TRAFFIC, "queue_wait_p95", "s", "95th percentile of the wait for a slot at the peak (M/M/c)",
          display="ms", label="Queue wait (p95)")
def queue_wait_p95(q):
    spare = q.servers * q.requests_per_s - q.peak_traffic
    return maximum(0, ln(q.wait_probability / TAIL_C + TINY_C)) * REQUEST / spare


@quantity("generate", "ttft_p95", "s", "time to first token at the p95 of the peak: prefill + queue wait",
          display="ms", label="Time to first token (p95)")
def gen_ttft_p95(q):
    return q.ttft + q.queue_wait_p95


@quantity("generate", "response_p95", "s", "whole answer at the p95 of the peak: request latency + queue wait",
          display="s", label="Response time (p95)")
def gen_response_p95(q):
    return q.request_latency + q.queue_wait_p95


@quantity("generate", "meets_per_token", "", "time between tokens (prefills interleaved) ≤ per-token target",
          label="Meets per-token target", type="check", requirement=True)
def gen_meets_per_token(q):
    return q.token_interval <= q.per_token_target


@quantity("generate", "meets_ttft", "", "time to first token (with queueing at the peak) ≤ target",
          label="Meets time-to-first-token target", type="check", requirement=True)
def gen_meets_ttft(q):
    return first_present(q.ttft_p95, q.ttft) <= q.ttft_target


@quantity("generate", "meets_targets", "", "every latency target given is met", label="Meets latency targets",
          type="check", requirement=True)
def gen_meets_targets(q):
    return all_present(q.meets_per_token, q.meets_ttft)


@quantity("generate", "target_slack", "s", "time left for queueing within the time to first token target",
          display="ms", label="Time left for queueing")
def gen_target_slack(q):
    return q.ttft_target - q.ttft


@quantity(TRAFFIC, "average_rate", "request/s",
          "average arrival rate: as given (traffic.average), else the peak × utilisation", display="request/s",
          label="Average traffic")
def average_rate(q):
    return first_present(q.average_traffic, q.peak_traffic * q.utilisation)


@quantity(TRAFFIC, "demand_consistent", "", "average ≤ peak ≤ what the servers (without redundancy) serve",
          label="Demand consistent", type="check")
def demand_consistent(q):
    return all_of(q.average_rate <= q.peak_traffic, q.peak_traffic <= q.servers * q.requests_per_s)


@quantity(TRAFFIC, "feasible_fleet", "", "fits in memory, meets every latency target given and the demand is "
          "consistent: only a feasible fleet is priced", label="Feasible (so priced)", type="check")
def feasible(q):
    return all_present(q.fits, q.meets_targets, q.demand_consistent)


def priced(q, value, *needs):
    """A fleet's money where the fleet is feasible and priced (its hourly rate, or each of `needs`, holds a number),
    else nothing (a blank cell): an infeasible option, or one not offered on that basis, has no price."""
    ok = q.feasible_fleet
    if isinstance(ok, Missing) or isinstance(value, Missing):
        return value
    return where(all_of(ok, *(given(x) for x in needs or (q.hourly_rate,))), value, nothing())


@quantity(TRAFFIC, "average_utilisation", "", "busy share of the whole fleet at the average traffic",
          display="%", label="Average utilisation")
def average_utilisation(q):
    return q.average_rate / (q.replicas * q.requests_per_s)


@quantity(TRAFFIC, "requests_per_month", "request/month", "requests served in a month at the average traffic",
          display="Mrequest/month", label="Requests per month")
def requests_per_month(q):
    return q.average_rate * MONTH


@quantity("generate", "peak_input_tokens_per_s", "token/s", "prompt tokens a second at the peak: peak × prompt "
          "tokens per request (what a hosted API's rate limit must allow)", display="token/s",
          label="Prompt tokens per second at the peak")
def gen_peak_input_tokens(q):
    return q.peak_traffic / REQUEST * q.input_tokens


@quantity("generate", "peak_output_tokens_per_s", "token/s", "answer tokens a second at the peak: peak × answer "
          "tokens per request (what a hosted API's rate limit must allow)", display="token/s",
          label="Answer tokens per second at the peak")
def gen_peak_output_tokens(q):
    return q.peak_traffic / REQUEST * q.output_tokens


@quantity("generate", "tokens_per_month", "token/month", "output tokens served in a month at the average traffic",
          display="Mtoken/month", label="Output tokens served per month")
def gen_tokens_per_month(q):
    return q.average_rate / REQUEST * q.output_tokens * MONTH


@quantity("generate", "cost_per_million_tokens", "USD/Mtoken",
          "with traffic: monthly cost / output tokens served per month at the average traffic; without: device "
          "cost × devices per replica / (tokens per second × utilisation); per million output tokens",
          display="USD/Mtoken", warn=NO_PRICE, warn_on=("price", "purchase"), label="Cost per million output tokens")
def gen_cost_per_million(q):
    if q.has("peak_traffic"):
        return priced(q, q.monthly_cost / q.tokens_per_month * PER_MILLION)
    return priced(q, q.hourly_rate * q.replica_devices / (q.tokens_per_s * q.utilisation) * PER_MILLION)


@quantity(TRAFFIC, "monthly_cost", "USD/month", "devices in the fleet × hourly rate used × one month",
          display="USD/month", warn=NO_PRICE, warn_on=("price", "purchase"), label="Monthly cost")
def monthly_cost(q):
    return priced(q, q.fleet_devices * q.hourly_rate * MONTH)


@quantity("generate", "monthly_cost_rent", "USD/month", "the fleet rented: devices in the fleet × rental cost",
          display="USD/month", label="Monthly cost, rented (after any commitment discount)")
def gen_monthly_rent(q):
    return priced(q, q.fleet_devices * q.rent_rate * MONTH, q.rent_rate)


@quantity("generate", "monthly_cost_own", "USD/month", "the fleet owned: devices in the fleet × on-premises cost",
          display="USD/month", label="Monthly cost, owned")
def gen_monthly_own(q):
    return priced(q, q.fleet_devices * q.own_rate * MONTH, q.own_rate)


@quantity("generate", "api_cost_per_request", "USD/request",
          "hosted API: output price × output tokens + input price × input tokens", display="USD",
          label="Hosted API per request")
def gen_api_per_request(q):
    return sum_present(q.api_output_price * q.output_tokens, q.api_input_price * q.input_tokens) / REQUEST


@quantity("generate", "api_cost_per_million_tokens", "USD/Mtoken",
          "hosted API per request / output tokens, per million output tokens",
          display="USD/Mtoken", label="Hosted API per million output tokens")
def gen_api_cost(q):
    return q.api_cost_per_request * REQUEST / q.output_tokens * PER_MILLION


@quantity("generate", "api_monthly_cost", "USD/month", "hosted API at the average traffic for one month",
          display="USD/month", label="Hosted API, monthly")
def gen_api_monthly(q):
    return q.average_rate * q.api_cost_per_request * MONTH


@quantity("generate", "api_meets_targets", "",
          "the hosted API's stated p95 latencies (its service level) meet every target given; a target without the "
          "API's stated figure is not met: it is not shown", label="Hosted API meets latency targets", type="check")
def gen_api_meets_targets(q):
    if not q.has("api_output_price"):
        return NA
    parts = []
    for target, stated in (("per_token_target", "api_per_token"), ("ttft_target", "api_ttft")):
        if q.has(target):
            parts.append(getattr(q, stated) <= getattr(q, target) if q.has(stated) else Const(False))
    return all_present(*parts) if len(parts) > 1 else parts[0] if parts else NA


@quantity("generate", "cheaper_than_api", "", "own fleet's cost per million tokens ≤ the API's",
          label="Cheaper than the hosted API", type="check")
def gen_cheaper_than_api(q):
    return q.cost_per_million_tokens <= q.api_cost_per_million_tokens


# -- renting on demand as the traffic needs (busy hours): the alternative to a fleet held all month ----------
@quantity(TRAFFIC, "busy_hours_devices", "",
          "devices rented on average when on-demand capacity follows the traffic: the replicas the average needs at "
          "the maximum utilisation (average / (requests per second per replica × maximum utilisation), one replica at "
          "least: a live service does not scale to zero) plus the spare replicas (redundancy), × devices per replica. "
          "A floor: a fractional average over the month, billed by the second, capacity always to be had",
          label="Devices rented on average")
def busy_hours_devices(q):
    return (maximum(1, q.average_rate / (q.requests_per_s * q.max_utilisation)) + q.redundancy) * q.replica_devices


@quantity(TRAFFIC, "busy_hours_monthly_cost", "USD/month",
          "on demand as traffic needs: devices rented on average × the on-demand price × one month",
          display="USD/month", label="Monthly cost, on demand as traffic needs")
def busy_hours_monthly(q):
    return priced(q, q.busy_hours_devices * q.price * MONTH, q.price)


@quantity("generate", "busy_hours_cost_per_million_tokens", "USD/Mtoken",
          "on demand as traffic needs: its monthly cost / output tokens served per month, per million",
          display="USD/Mtoken", label="Cost per million output tokens, on demand as traffic needs")
def gen_busy_hours_per_million(q):
    return priced(q, q.busy_hours_monthly_cost / q.tokens_per_month * PER_MILLION, q.price)


@quantity("forward", "busy_hours_cost_per_million_requests", "USD",
          "on demand as traffic needs: its monthly cost / requests served per month × one million requests",
          display="USD", label="Cost per million requests, on demand as traffic needs")
def fw_busy_hours_per_million(q):
    return priced(q, q.busy_hours_monthly_cost / (q.average_rate * MONTH) * REQUEST * MILLION, q.price)
