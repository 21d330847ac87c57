"""A training run laid out at a device count other than the devices used, as the engine lays it out at those: the
memory a device needs with the weights kept whole, the layers recomputed for room, whether the weights are sharded,
the all-reduce and the time that layout adds a step. Registered once for each count: the first estimate of a
deadline's devices, the devices that hold the state and every device of whole servers, so that a figure at another
count is the one the scenario would give were that count written (a new user's 64 H100s were 33.74 days on whole
servers and 38.29 days written: the layers recomputed for room were left out)."""

from .common import without_fabric
from .expr import Const, first_present, sum_present, where
from .graph import quantity
from .train_layout import (balance_at, bubble_share_at, exposed, forward_time_at, known, memory_whole,
                           recompute_share, reduce_once_at, sequences_in_flight_at, sharded_by, sharded_parts_at,
                           tensor_parallel_at)


def layout_at(suffix: str, count, at: str, label: str) -> None:
    """Register memory_whole_for_`suffix`, recompute_share_for_, sharded_for_, reduce_for_ and layout_for_`suffix`:
    the layout at `count(q)` devices (`at` names them in a description, `label` in a row's label)."""
    ids = {k: f"{k}_for_{suffix}" for k in ("memory_whole", "recompute_share", "sharded", "reduce", "layout")}

    def get(q, k):
        return getattr(q, ids[k])

    @quantity("train", ids["memory_whole"], "byte", f"memory per device at {at} with the weights kept whole, as "
              "memory_weights_whole is at the devices used", display="GB",
              label=f"Memory per device, weights whole, {label}")
    def memory(q):
        n = count(q)
        return memory_whole(q, n, sequences_in_flight_at(q, n) * q.activation_per_sequence)

    @quantity("train", ids["recompute_share"], "", f"share of the layers recomputed to keep the weights whole at {at}, "
              "as recompute_share is at the devices used", display="%", label=f"Layers recomputed for room {label}")
    def share(q):
        return recompute_share(q, get(q, "memory_whole"), sequences_in_flight_at(q, count(q)))

    @quantity("train", ids["sharded"], "", f"the weights sharded at {at}, as weights_sharded is at the devices used",
              label=f"Weights sharded {label}", type="check")
    def sharded(q):
        n = count(q)
        return sharded_by(q, get(q, "memory_whole"), get(q, "recompute_share"),
                          lambda: (forward_time_at(q, n), *sharded_parts_at(q, n), reduce_once_at(q, n)))

    @quantity("train", ids["reduce"], "s", f"gradient all-reduce per step at {at} in the layout taken there (none "
              "where the weights are sharded)", display="s", label=f"All-reduce per step {label}")
    def reduce(q):
        if without_fabric(q) is not None:
            return Const(0, "s")
        return where(known(get(q, "sharded")), Const(0, "s"), reduce_once_at(q, count(q)))

    @quantity("train", ids["layout"], "s", f"per step at {at}, what the layout taken there adds: the sharded "
              "weights' collectives compute does not hide, or the layers recomputed for room", display="s",
              label=f"Layout time per step {label}")
    def layout(q):
        n, none = count(q), Const(0, "s")
        forward, sharded_, share_ = forward_time_at(q, n), get(q, "sharded"), get(q, "recompute_share")
        if without_fabric(q) is not None:
            return first_present(where(known(sharded_), none, share_ * forward), none)
        if q.text("recompute") == "yes":
            return where(known(sharded_), exposed(forward, *sharded_parts_at(q, n)), none)
        return first_present(where(known(sharded_), exposed(forward, *sharded_parts_at(q, n)), share_ * forward),
                             none)


def duration_at(q, n, suffix: str):
    """The training time on `n` devices laid out as the engine lays them out there (`suffix`: the layout registered
    at that count): the compute on the way with the most sequences with the bubble, + steps × (the all-reduce
    compute does not hide + the tensor-parallel all-reduces + the layout's time); the training time where `n` is
    the devices used."""
    compute = q.flops * balance_at(q, n) / (q.train_rate * n) * (1 + bubble_share_at(q, n))
    reduce, layout = getattr(q, f"reduce_for_{suffix}"), getattr(q, f"layout_for_{suffix}")
    step = layout if without_fabric(q) is not None else \
        sum_present(exposed(forward_time_at(q, n), reduce, Const(0, "s")), tensor_parallel_at(q, n), layout)
    return where(n <= q.devices, q.duration, compute + q.steps * step)
