"""What every group of definitions shares: unit factors, the roofline, and the parallel collectives."""

from __future__ import annotations

from .expr import (Const, constant, exp, first_present, given, if_given, ln, maximum, min_given, minimum, Missing, sum_present,
                   where)
from .graph import NA

# Unit factors: literals that carry a unit so that the pint check sees them.
FLOP_PER_MAC = Const(2, "FLOP")                 # one multiply-add = 2 FLOPs
FLOP_PER_PARAM_TOKEN = Const(2, "FLOP/token")   # forward pass: ~2 FLOPs per parameter per token
PASS_FLOP_PER_PARAM_TOKEN = constant("pass_flop_per_parameter", 4, "FLOP/token",
                                     "FLOPs per parameter and token of a training step's passes over every "
                                     "parameter: forward (2) + activation gradients (2)")
WEIGHT_GRAD_FLOP_PER_PARAM_TOKEN = Const(2, "FLOP/token")  # weight gradients, trained parameters only
ATTENTION_FLOP = constant("attention_flop", 4, "FLOP/token",
                          "attention FLOPs per layer, query width and key position: Q·Kᵀ (2) + weights·V (2)")
TOKEN = Const(1, "token")
REQUEST = Const(1, "request")
PER_MILLION = constant("per_million", 1e6, "token/Mtoken", "units of work in a million (cost per million tokens)")
MILLION = constant("million", 1e6, "", "a million (cost per million requests)")
MONTH = constant("seconds_per_month", 2629800, "s/month", "seconds in a month: 1/12 of a year of 365.25 days")
YEAR_MONTHS = constant("months_per_year", 12, "month", "months in a year")
HORIZON = constant("default_horizon", 94672800, "s",
                   "the cost horizon where a device gives no amortisation: 3 years of 365.25 days, in seconds")
HOST_COPIES = constant("host_copies", 3, "", "matrices copied over the host link per multiplication: A in, B in, "
                       "C out")
REQUEST_COPIES = 2                              # input in, output out
KV_TENSORS = 2                                  # keys and values
TP_ALL_REDUCES = 2                              # per layer and pass: after attention and after the MLP
TRAIN_TP_ALL_REDUCES = constant("train_tp_all_reduces", 4, "",
                                "tensor-parallel all-reduces per layer and training step: 2 forward, 2 backward")
COMPUTE_PASSES = constant("compute_passes", 3, "",
                          "a training step's compute in forward passes: forward 1, backward 2 (so the backward "
                          "pass is 2/3 of it)")
RECOMPUTED_PASSES = constant("recomputed_passes", 4, "",
                             "a training step's passes when activations are recomputed: forward, two backward, and "
                             "the forward again")
EP_ALL_TO_ALLS = 2                              # per layer: dispatch to the experts and combine
PREFILL_CHUNK = constant("prefill_chunk", 8192, "token",
                         "prompt tokens a runtime prefills at once (sets the activation workspace)")
# A device's cost cells: every device has one for each, so that one formula serves every device and a figure typed
# into a blank cell flows to every total. A blank price or purchase means "not offered that way" (no value); any
# other blank cell reads as the value the formulas take when the field is left out (the language's default; no
# power, electricity or hosting figure costs nothing), with the words the Inputs sheet shows.
OFFER = ("price", "purchase")
BLANK_READS = {"reserved_discount": (Const(0), "0 % (no discount)"), "amortisation": (HORIZON, "3 year"),
               "power": (Const(0, "W"), "0 (no running cost)"), "pue": (Const(1), "1"),
               "electricity": (Const(0, "USD/J"), "0 (no running cost)"), "hosting": (Const(0, "USD/s"), "0")}
COST_CELLS = OFFER + tuple(BLANK_READS)
NO_PRICE = "no price (hourly price or purchase): cost not computed"
NO_FABRIC = ("no interconnect between the devices of a replica (interconnect.bandwidth): "
             "communication not counted")


def roofline_time(compute, memory):
    """max(compute time, memory time); without a bandwidth the memory term is left out (and warned
    about), but without a rate there is no time at all: a missing rate never looks infinitely fast."""
    return compute if isinstance(memory, Missing) else maximum(compute, memory)


def plus(base, *extras):
    """base + the extras that apply; absent when the base is (fixed overheads alone are no time)."""
    return base if isinstance(base, Missing) else sum_present(base, *extras)


def forced_basis(q) -> str | None:
    """The cost basis the scenario forces (rent, reserved, own), or None for the cheapest priced."""
    basis = q.text("basis")
    return basis if basis in ("rent", "reserved", "own") else None


NO_RATE = "the device has no rate at this precision: times and rates not computed"
RATE_INPUTS = ("compute_rate", "delivered_given", "cores", "fma_units", "vector_width", "clock")   # what a rate needs
OWN_FIRST = "own-first"      # a workload required on premises: owned wherever a purchase is given, else the cheapest


# A training run on a device with both a rental price and a purchase price, whose basis the scenario leaves to sizing:
# rented wherever the rental price cell holds a number. A one-off run's cost as its share of a 3-year write-off
# assumes other work uses the devices for the rest; every reader of three reviews read "Buy 32 MI300X, $22,318"
# beside $640,000 paid up front as flattering. `costs.basis: own` (the devices are the team's) costs it that way.
RENT_FIRST = "rent-first"


def rent_first(q) -> bool:
    """Whether a training run costs the device as rented wherever its rental price cell holds a number."""
    return q.text("basis") == RENT_FIRST and not isinstance(q.rent_rate, Missing)


def own_first(q) -> bool:
    """Whether a workload required on premises costs the device as owned wherever its purchase cell holds a number."""
    return q.text("basis") == OWN_FIRST and not isinstance(q.own_rate, Missing)


def owned(q):
    """Whether the totals own the device: as forced, else owning is cheaper than renting, or owning is all that is
    priced (a blank price or purchase cell: not offered that way); on premises, whenever a purchase is given (a
    purchase finance clears leaves the device rented, and failing on-prem, as the scenario without it)."""
    if forced_basis(q) is not None:
        return Const(forced_basis(q) == "own")
    own, rent = q.own_rate, q.rent_rate
    if own_first(q):
        return where(given(own), Const(True), Const(False))
    if rent_first(q):
        return where(given(rent), Const(False), Const(True)) if not isinstance(own, Missing) else Const(False)
    if isinstance(own, Missing) or isinstance(rent, Missing):     # a plan without a price or purchase cell
        return NA if isinstance(own, Missing) and isinstance(rent, Missing) else Const(not isinstance(own, Missing))
    return where(given(own), where(given(rent), own < rent, Const(True)), Const(False))


def capital(q, devices):
    """Capital where the devices are bought (the totals own them): devices × purchase price; 0 where rented or no
    purchase is given; missing where whether they are owned is (no price at all)."""
    flag = q.owned_fleet
    if isinstance(flag, Missing):
        return flag
    if not q.has("purchase"):
        return Const(0, "USD")
    # blank where the device has no rate at all (a price cleared, no purchase): whether it is owned is blank there,
    # and IF over a blank was #VALUE! (a finance reviewer cleared the B200's price)
    return if_given(where(flag, devices * q.purchase, Const(0, "USD")), q.hourly_rate)


def cheaper_given(a, b):
    """The smaller of two rates where both hold a number, else the one that does (blank where neither does)."""
    if isinstance(a, Missing) or isinstance(b, Missing):
        return first_present(a, b)
    return min_given(a, b)


def after_reserve(q, memory):
    """`memory` less the share the runtime keeps (the device's reserve), where the device states one."""
    return memory * (1 - q.memory_reserve) if q.has("memory_reserve") else memory


def used_parameters(q):
    """Parameters that do work per token: active ones for mixture-of-experts."""
    return first_present(q.active_parameters, q.parameters)


# -- collectives (alpha-beta: a fixed latency per step plus bytes over the bandwidth) ---------
def without_fabric(q):
    """What communication is when the device has no fabric: nothing on one device (or when a training's devices
    follow from its state), absent and warned about for several. None when it has one: then the collectives are
    always computed (zero for one device), so that editing the device count in the workbook stays live."""
    if q.has("interconnect_bandwidth"):
        return None
    return q.interconnect_bandwidth if q.text("replica") == "multi" else NA


def fabric(q, group):
    """(bandwidth, latency) of the link a collective over `group` devices uses: the scale-up fabric
    within its domain, the network beyond it (the fabric alone where no network is given). On a mesh the
    fabric's bandwidth is links to each of the domain's other devices: a group uses its (group − 1) of them."""
    bw = q.interconnect_bandwidth
    if q.text("topology") == "mesh":
        bw = bw * maximum(minimum(group, q.interconnect_domain) - 1, 1) / maximum(q.interconnect_domain - 1, 1)
    if not q.has("network_bandwidth"):
        return bw, q.interconnect_latency
    inside = group <= q.interconnect_domain
    return where(inside, bw, q.network_bandwidth), where(inside, q.interconnect_latency, q.network_latency)


def all_reduce_parts(q, group, span=None):
    """Ring all-reduce over `group` devices as (fixed time, time per byte): 2(g−1) × latency and
    2(g−1)/g / bandwidth; the link is the fabric unless the devices it spans (default: the group) exceed its
    domain."""
    bw, lat = fabric(q, group if span is None else span)
    return 2 * (group - 1) * lat, 2 * (group - 1) / group / bw


def all_gather_parts(q, group, span=None):
    """Ring all-gather (or reduce-scatter: the same traffic) over `group` devices, half a ring all-reduce: (g−1) ×
    latency and (g−1)/g / bandwidth per byte of the whole gathered."""
    fixed, per_byte = all_reduce_parts(q, group, span)
    return fixed / 2, per_byte / 2


def all_to_all_parts(q, group):
    """All-to-all over `group` devices as (fixed time, time per byte each device sends): (g−1) × latency and
    (g−1)/g / bandwidth."""
    bw, lat = fabric(q, group)
    return (group - 1) * lat, (group - 1) / group / bw


def point_to_point_parts(q, group, hops):
    """`hops` sends between pipeline stages as (fixed time, time per byte)."""
    bw, lat = fabric(q, group)
    return hops * lat, hops / bw


def all_reduce(q, group, nbytes, span=None):
    """Ring all-reduce of `nbytes` over `group` devices."""
    fixed, per_byte = all_reduce_parts(q, group, span)
    return fixed + nbytes * per_byte


# -- model structure ------------------------------------------------------------------------
def attention_flops(q, queries, keys):
    """Attention work: 4 FLOP × layers × heads × head_dim per query token and key position seen."""
    return ATTENTION_FLOP * q.layers * q.heads * q.head_dim * queries * keys / TOKEN


UNDERFLOW = constant("exp_floor", -700, "", "EXP() of less is below the smallest number a spreadsheet holds "
                     "(#NUM!): exponents stop there")
NEVER_MISSED = constant("never_missed", 1e-9, "", "the share of experts a token misses when every expert is "
                        "active (keeps LN() finite)")


def touched_share(q, tokens):
    """Expected share of a layer's routed experts that at least one of `tokens` routes to:
    1 − (1 − k/E)^tokens (each token picks k of E experts, independently), as 1 − exp(tokens × ln(1 − k/E))."""
    missed = maximum(1 - q.experts_per_token / q.experts, NEVER_MISSED)
    return 1 - exp(maximum(tokens / TOKEN * ln(missed), UNDERFLOW))


def expert_parameters(q):
    """Parameters in routed experts, from total and active counts: E × (total − active) / (E − k) (no routed
    experts apart when every expert is active)."""
    return q.experts * (q.parameters - q.active_parameters) / maximum(q.experts - q.experts_per_token, 1)


def embedding(q):
    """Parameters of the input embedding (vocabulary × hidden): looked up a row per token, no arithmetic. A table
    tied to the output projection is that projection too (read and multiplied every generated token): none apart."""
    return q.vocab * q.hidden if q.has("vocab") and q.has("hidden") and q.text("tied") != "yes" else NA


def all_weights_read(q):
    """Weight bytes a pass reads when every expert is routed to: all weights but the embedding table."""
    table = embedding(q)
    return q.weights_bytes if isinstance(table, Missing) else q.weights_bytes - table * q.bytes_per_value


def weights_read(q, tokens, total=None):
    """Weight bytes a pass over `tokens` tokens reads: every dense weight but the embedding table, and the
    experts routed to."""
    table = embedding(q)
    total = q.weights_bytes if total is None else total
    if not (q.has("experts") and q.has("experts_per_token") and q.has("active_parameters")):
        return total if isinstance(table, Missing) else total - table * q.bytes_per_value
    experts = expert_parameters(q)
    dense = q.parameters - experts if isinstance(table, Missing) else q.parameters - experts - table
    return (dense + experts * touched_share(q, tokens)) * q.bytes_per_value
