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


# A quantity at another count -> its formula in words: the quantity at the devices used whose formula it repeats,
# with that count in place of the devices (the report's method prints this, not the formula written out again).
SAME_AS: dict[str, str] = {}
BASES = {"memory_whole": "memory_weights_whole", "recompute_share": "recompute_share", "sharded": "weights_sharded",
         "reduce": "gradient_all_reduce_time where the weights are kept whole there, else 0 s",
         "layout": "recompute_time, or where the weights are sharded there, their collectives not hidden",
         "compute": "compute_time + bubble_time",
         "step": "communication_time + recompute_time"}


def layout_at(suffix: str, count, at: str, label: str, timed: bool = False, count_words: str = "") -> None:
    """Register memory_whole_for_`suffix`, recompute_share_for_, sharded_for_, reduce_for_ and layout_for_`suffix`:
    the layout at `count(q)` devices (`at` names them in a description, `label` in a row's label, `count_words` in
    the method); `timed`, also compute_for_ and step_for_`suffix`, the parts of the training time there."""
    ids = {k: f"{k}_for_{suffix}" for k in ("memory_whole", "recompute_share", "sharded", "reduce", "layout",
                                            "compute", "step")}
    for k, qid in ids.items():
        if timed or k not in ("compute", "step"):
            SAME_AS[qid] = f"{BASES[k]}, with {count_words} in place of devices"

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


    if not timed:
        return

    @quantity("train", ids["compute"], "s", f"compute at {at} with the pipeline bubble, as compute_time + bubble_time "
              "are at the devices used: work / (training rate × devices) × ceil(batch / ways) × ways / batch × (1 + "
              "(stages − 1) / micro-batches)", display="h", label=f"Compute and bubble {label}")
    def compute(q):
        n = count(q)
        return q.flops * balance_at(q, n) / (q.train_rate * n) * (1 + bubble_share_at(q, n))

    @quantity("train", ids["step"], "s", f"per step at {at}, besides compute: the all-reduce compute does not hide, "
              "the tensor-parallel all-reduces and the layout's time", display="s",
              label=f"Communication and layout per step {label}")
    def step(q):
        n, layout = count(q), get(q, "layout")
        if without_fabric(q) is not None:
            return layout
        return sum_present(exposed(forward_time_at(q, n), get(q, "reduce"), Const(0, "s")), tensor_parallel_at(q, n),
                           layout)


def duration_at(q, n, suffix: str):
    """The training time on `n` devices laid out as the engine lays them out there (`suffix`: the layout registered,
    timed, at that count): its compute and bubble + steps × its time a step besides; the training time where `n`
    is the devices used."""
    compute, step = getattr(q, f"compute_for_{suffix}"), getattr(q, f"step_for_{suffix}")
    return where(n <= q.devices, q.duration, compute + q.steps * step)
