"""Device quantities: rates, ridge points, cost per device."""

from .common import FLOP_PER_MAC, NO_RATE, RATE_INPUTS, cheaper_given, forced_basis, own_first, owned, rent_first
from .expr import Const, Missing, first_present, given, if_given, where
from .graph import ALL, NA, quantity

# -- device ---------------------------------------------------------------------------------
@quantity(ALL, "cpu_peak_rate", "FLOP/s",
          "CPU peak from micro-architecture: cores × FMA units × lanes × 2 FLOP × clock", display="GFLOP/s",
          label="CPU peak rate")
def cpu_peak_rate(q):
    if q.text("precision") not in ("fp32", "fp64"):
        return NA
    lanes = q.vector_width / q.activation_bytes      # fp32 or fp64 lanes (a weight-only format computes in fp32)
    return q.cores * q.fma_units * lanes * FLOP_PER_MAC * q.clock


@quantity(ALL, "peak_rate", "FLOP/s", "peak dense rate at the workload's precision", display="TFLOP/s",
          label="Peak rate")
def peak_rate(q):
    return first_present(q.compute_rate, q.cpu_peak_rate)


@quantity(ALL, "delivered_rate", "FLOP/s", "rate the workload gets: as given, else peak × efficiency",
          display="TFLOP/s", warn=NO_RATE, warn_on=RATE_INPUTS,
          label="Delivered rate")
def delivered_rate(q):
    return first_present(q.delivered_given, q.peak_rate * q.efficiency)


def available(where: str):
    """Whether the device can be had `where` (a fact of its `deployment` list, not a formula)."""
    def fn(q):
        given = q.text("deployment")
        return NA if given is None else Const(where in given.split(","))
    return fn


for _where in ("cloud", "on-prem", "edge"):
    _id = f"available_{_where.replace('-', '_')}"
    quantity(ALL, _id, "", f"the device can be had {_where} (its deployment list)",
             label=f"Available {_where}", type="check")(available(_where))


@quantity(ALL, "delivered_ridge_point", "FLOP/byte",
          "intensity above which the workload is compute-bound at the delivered rates: "
          "delivered rate / delivered bandwidth", label="Ridge point at the delivered rates")
def delivered_ridge_point(q):
    return q.delivered_rate / q.delivered_bandwidth


@quantity(ALL, "ridge_point", "FLOP/byte", "intensity above which the device is compute-bound: peak / bandwidth",
          label="Ridge point")
def ridge_point(q):
    return q.peak_rate / q.memory_bandwidth


@quantity(ALL, "delivered_bandwidth", "byte/s", "memory bandwidth the workload gets: bandwidth × bandwidth efficiency",
          display="TB/s", label="Delivered memory bandwidth")
def delivered_bandwidth(q):
    return q.memory_bandwidth * q.bandwidth_efficiency


@quantity(ALL, "rent_rate", "USD/s", "rental cost per device: hourly price × (1 − committed-use discount)",
          display="USD/hour", label="Rental cost per device, after any commitment discount")
def rent_rate(q):
    return if_given(q.price * (1 - q.reserved_discount), q.price)


@quantity(ALL, "running_rate", "USD/s", "running cost per owned device: power × PUE × electricity + hosting",
          display="USD/hour", label="Running cost per owned device")
def running_rate(q):
    return if_given(q.power * q.pue * q.electricity + q.hosting, q.purchase)


@quantity(ALL, "own_rate", "USD/s",
          "on-premises cost per device: purchase / amortisation + power × PUE × electricity + hosting",
          display="USD/hour", label="Owned cost per device")
def own_rate(q):
    return if_given(q.purchase / q.amortisation + q.running_rate, q.purchase)


@quantity(ALL, "hourly_rate", "USD/s",
          "cost per device and hour used for every total: the cheaper of renting (with any commitment) and owning, "
          "or the basis the scenario forces; a training run rents where a rental price is given",
          display="USD/hour", label="Hourly rate used")
def hourly_rate(q):
    forced = {"rent": if_given(q.price, q.price), "reserved": q.rent_rate, "own": q.own_rate}.get(forced_basis(q))
    if forced is not None:
        return forced
    if own_first(q):                                                            # on premises: owned if it can be
        return where(given(q.own_rate), q.own_rate, cheaper_given(q.rent_rate, q.own_rate))
    if rent_first(q):                                                  # a training run: rented if it can be
        return q.rent_rate if isinstance(q.own_rate, Missing) else where(given(q.rent_rate), q.rent_rate, q.own_rate)
    return cheaper_given(q.rent_rate, q.own_rate)


@quantity(ALL, "cost_basis", "", "the basis of the hourly rate: own (purchase amortised + running costs), "
          "reserved (rented with a commitment discount) or rent (on demand)", label="Cost basis", type="label")
def cost_basis(q):
    if forced_basis(q) is not None:
        return if_given(Const(forced_basis(q)), q.hourly_rate)
    rent = where(q.reserved_discount > 0, "reserved", "rent")
    flag = q.owned_fleet
    return flag if isinstance(flag, Missing) else if_given(where(flag, "own", rent), q.hourly_rate)


@quantity(ALL, "owned_fleet", "", "the totals buy the devices (cost basis own): what running on premises needs; "
          "a fleet costed as rented, even with a commitment, runs in the provider's cloud",
          label="Bought (on premises)", type="check")
def owned_fleet(q):
    return if_given(owned(q), q.hourly_rate)


@quantity(ALL, "breakeven_utilisation", "",
          "owning beats renting on demand (paying the hourly price only for busy hours) above this "
          "utilisation: own cost / hourly price", display="%", label="Utilisation where owning beats renting")
def breakeven_utilisation(q):
    return if_given(q.own_rate / q.price, q.own_rate, q.price)


