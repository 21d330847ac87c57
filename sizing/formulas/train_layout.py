"""A training run's parallel layout at a given device count: data-parallel ways, micro-batches, the bubble, where the
state lives (weights kept whole on each data-parallel way, or sharded too), and the communication each layout
needs per optimizer step. Each is a function of the device count so that the devices for a deadline and the
devices that hold the state are costed with the same rules as the devices used."""

from .common import (COMPUTE_PASSES, KV_TENSORS, TOKEN, TRAIN_TP_ALL_REDUCES, all_gather_parts, all_reduce,
                     without_fabric)
from .expr import Const, ceil, constant, first_present, floor, maximum, minimum, sum_present, where
from .graph import NA

STORED_HIDDEN = constant("stored_hidden_widths", 6, "", "hidden-wide values a layer keeps per token for the "
                         "backward pass: both norms' inputs and outputs, the query, the attention output")
STORED_FFN = constant("stored_ffn_widths", 3, "", "feed-forward-wide values a layer keeps per token and routed "
                      "expert: the gate, the up projection and their product")
BYTE = Const(1, "byte")                          # keeps a division by the room finite


# -- activations kept for the backward pass (Korthikanti et al. 2022, with flash attention and no dropout) ------
def kv_width(q):
    """Width of a layer's keys (and of its values): kv heads × head dim, the hidden size without grouped heads."""
    return first_present(q.kv_heads * q.head_dim, q.hidden)


def layer_values(q):
    """Values one layer keeps per token for its backward pass: the two norms' inputs and outputs, the query, the
    keys and values, the attention output (6 × hidden + 2 × kv width), and the feed-forward's gate, up and their
    product (3 × its width) in each expert a token is routed to."""
    routed = first_present(q.experts_per_token, 1)
    return STORED_HIDDEN * q.hidden + KV_TENSORS * kv_width(q) + STORED_FFN * q.intermediate * routed


def kept_per_token(q, recompute: bool):
    """Values kept per token: every layer's, or with recompute each layer's input and one layer's values."""
    return q.layers * q.hidden + layer_values(q) if recompute else q.layers * layer_values(q)


# -- the layout at a device count ---------------------------------------------------------------------------------
def shard(q):
    """Devices of one model replica: tensor × pipeline."""
    return q.tensor_given * q.pipeline


def whole_replicas(q, devices):
    """Devices rounded up to whole model replicas: a multiple of tensor × pipeline."""
    return ceil(devices / shard(q)) * shard(q)


def data_parallel_at(q, devices):
    return first_present(q.data_given, devices / shard(q))


def micro_batches_at(q, devices):
    """Micro-batches per step (pipeline stages, or gradient accumulation): as given, else one sequence each."""
    return first_present(q.micro_batches, maximum(1, ceil(q.batch / data_parallel_at(q, devices))))


def bubble_share_at(q, devices):
    return (q.pipeline - 1) / micro_batches_at(q, devices)


def weight_bytes(q):
    """Weights one device of a replica computes with: frozen weights and trained parameters at the precision, over
    tensor × pipeline."""
    return sum_present(q.frozen_bytes, q.trainable_parameters * q.bytes_per_value) / shard(q)


def gradient_bytes(q):
    """16-bit gradients of the trained parameters on one device of a replica (over tensor × pipeline)."""
    return q.trainable_parameters * q.activation_bytes / shard(q)


def memory_whole(q, devices, activations):
    """Memory one device needs when each data-parallel way keeps its weights and gradients whole and only the rest
    of the state (optimizer moments, master copy) is sharded over every device, as ZeRO-1 and Megatron's
    distributed optimizer do: weights + gradients + the rest / devices + its activations."""
    whole = weight_bytes(q) + gradient_bytes(q)
    return whole + maximum(0, q.state_bytes - whole * shard(q)) / devices + activations


def sequences_in_flight(q):
    """Whole sequences per micro-batch on the devices used: batch / (data-parallel ways × micro-batches), rounded
    up."""
    return ceil(q.batch / (q.data_parallel * q.micro_batches_used))


def sequences_in_flight_at(q, devices):
    return ceil(q.batch / (data_parallel_at(q, devices) * micro_batches_at(q, devices)))


def recompute_share(q, whole_memory, sequences=None):
    """Share of the layers whose activations a runtime recomputes so that weights kept whole (`whole_memory` a
    device) fit (Megatron's recompute of N layers): what the whole layout is short of, over what recomputing every
    layer frees (`sequences` in flight a device: those of the devices used where not given); 0 where it fits, above
    1 where recomputing cannot make room; none where activations are recomputed already."""
    if q.text("recompute") == "yes":
        return NA
    short = maximum(0, whole_memory - q.usable_memory)
    freed = (kept_per_token(q, False) - kept_per_token(q, True)) * q.activation_bytes
    sequences = sequences_in_flight(q) if sequences is None else sequences
    freed = sequences * q.sequence / TOKEN * freed / q.tensor_given
    return short / maximum(freed, BYTE)


def first_devices(q):
    """The first estimate's devices, one replica at least."""
    return maximum(q.devices_for_deadline_first, shard(q))


def balance_at(q, devices):
    """The step's time over an even split's: each data-parallel way processes whole sequences, so the step lasts as
    long as the way with the most, ceil(batch / ways) (ways beyond the batch idle): a new user's 8 sequences spread
    over 23 data-parallel GPUs finished 'by the deadline'. 1 where the batch divides evenly; as given where the
    data-parallel ways are."""
    ways = data_parallel_at(q, devices)
    return ceil(q.batch / ways) * ways / q.batch


def forward_time_at(q, devices):
    """A step's forward pass: 1/3 of its compute (the backward pass is the other 2/3), on the way with the most
    sequences."""
    return q.flops * balance_at(q, devices) / (COMPUTE_PASSES * q.train_rate * devices * q.steps)


def reduce_once_at(q, devices):
    """The gradients' ring all-reduce over the data-parallel ways, once a step (weights kept whole)."""
    return all_reduce(q, data_parallel_at(q, devices), gradient_bytes(q), span=devices)


def sharded_parts_at(q, devices):
    """(gradient reduce-scatters, weight all-gathers) per step where the weights are sharded (ZeRO-3, FSDP): each
    micro-batch gathers every layer's weights twice, for the forward and the backward pass, and reduce-scatters its
    gradients, layer by layer."""
    fixed, per_byte = all_gather_parts(q, data_parallel_at(q, devices), span=devices)
    per_layer = q.layers / q.pipeline * fixed
    micro = micro_batches_at(q, devices)
    return micro * (per_layer + gradient_bytes(q) * per_byte), 2 * micro * (per_layer + weight_bytes(q) * per_byte)


def exposed(forward, sync, gather):
    """What compute does not hide: the forward pass's gathers beyond the forward pass, the backward pass's gathers
    and gradient reduction beyond the backward pass (twice the forward)."""
    return maximum(0, gather / 2 - forward) + maximum(0, gather / 2 + sync - 2 * forward)


def sharded_by(q, whole_memory, share, times):
    """Whether a runtime shards the weights too (ZeRO-3, FSDP), given the memory a device needs with them whole and
    the share of layers recomputing would take to make room: where recomputing cannot, or costs more time than the
    collectives of sharding that compute does not hide. `times()` gives (forward pass, reduce-scatters, gathers,
    all-reduce with whole weights) per step, asked only where the collectives can be timed."""
    if q.text("recompute") == "yes":            # nothing left to recompute
        return whole_memory > q.usable_memory
    if without_fabric(q) is not None:           # the gathers cannot be timed: recompute where it makes room
        return share > 1
    forward, sync, gather, once = times()
    cheaper = exposed(forward, sync, gather) < share * forward + exposed(forward, once, Const(0, "s"))
    return where(share <= 0, Const(False), where(share > 1, Const(True), cheaper))


def known(sharded):
    """Whether the weights are sharded, taken as kept whole where the model's architecture leaves it unknown."""
    return first_present(sharded, Const(False))


def tensor_parallel_at(q, devices):
    """Per step, the tensor-parallel all-reduces: 4 per layer of the step's tokens per data-parallel replica."""
    message = q.batch * q.sequence / data_parallel_at(q, devices) / TOKEN * q.hidden * q.activation_bytes
    return TRAIN_TP_ALL_REDUCES * q.layers / q.pipeline * all_reduce(q, q.tensor_given, message)


def reduce_for_deadline(q, n):
    """The gradient all-reduce per step at `n` devices, weights kept whole (none counted without a fabric)."""
    return Const(0, "s") if without_fabric(q) is not None else reduce_once_at(q, n)


def overhead_for_deadline(q, n):
    """Device-time besides the work at `n` devices: the work × the bubble share + steps × the tensor-parallel time ×
    devices (it shrinks as 1 / devices, so this product stays put); without the model's layers and hidden size the
    tensor-parallel time is not counted, as in the training time (a deadline's count was lost with it)."""
    bubble = q.flops / q.train_rate * bubble_share_at(q, n)
    return bubble if without_fabric(q) is not None else sum_present(bubble, q.steps * tensor_parallel_at(q, n) * n)


def deadline_count(q, reduce, overhead):
    """Fewest whole replicas that finish by the deadline, in closed form with the weights kept whole: on d devices
    the time is (W + O) / d, or where the all-reduce A outlasts the backward pass (2/3 of a step's compute),
    (W / 3 + O) / d + steps × A, W the work at the training rate and O the other device-time; each ≤ the deadline
    gives d. 0 where steps × A alone outlasts the deadline (no count can)."""
    work, room = q.flops / q.train_rate, q.deadline - q.steps * reduce
    need = maximum((work + overhead) / q.deadline, (work / COMPUTE_PASSES + overhead) / room)
    # whole sequences a data-parallel way: the most each may take at that speed, then the ways that spread the batch
    # so (more than the batch's sequences would idle: a step cannot be split finer)
    each = maximum(1, floor(q.batch * shard(q) / need))
    return where(room > 0, minimum(ceil(q.batch / each), q.batch) * shard(q), 0)
