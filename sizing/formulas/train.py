"""Training and fine-tuning laid out: the devices for a deadline, the layout a runtime takes (weights kept whole,
layers recomputed for room, or sharded), its communication and bubble, the training time and its cost."""

from .common import NO_FABRIC, NO_PRICE, capital, plus, without_fabric
from .expr import Const, Missing, ceil, first_present, if_given, max_present, maximum, nothing, sum_present, where
from .graph import NA, quantity
from .train_at import layout_at
from .train_layout import (balance_at, data_parallel_at, deadline_count, exposed, first_devices, forward_time_at, known,
                           memory_whole, micro_batches_at, overhead_for_deadline, recompute_share, reduce_for_deadline,
                           reduce_once_at, sequences_in_flight, shard, sharded_by,
                           sharded_parts_at, tensor_parallel_at, whole_replicas)


@quantity("train", "devices_for_work", "", "devices the work alone needs by the deadline at the training rate, in "
          "whole replicas (tensor × pipeline)", label="Devices for the work alone", count=True)
def tr_devices_for_work(q):
    return whole_replicas(q, q.flops / (q.train_rate * q.deadline))


@quantity("train", "reduce_for_work", "s", "gradient all-reduce per step at the devices for the work alone, the "
          "weights kept whole (what a deadline's device count is first estimated with)", display="s",
          label="All-reduce per step at the devices for the work")
def tr_reduce_for_work(q):
    return reduce_for_deadline(q, q.devices_for_work)


@quantity("train", "overhead_for_work", "s", "device-time besides the work at the devices for the work alone: the "
          "work × the pipeline bubble's share + steps × tensor-parallel time × devices", display="device-h",
          label="Bubble and tensor-parallel device-time at the devices for the work")
def tr_overhead_for_work(q):
    return overhead_for_deadline(q, q.devices_for_work)


@quantity("train", "devices_for_deadline_first", "",
          "first estimate of the devices for the deadline, the weights kept whole: (work W at the training rate + "
          "the other device-time O) / deadline, or where the all-reduce A outlasts the backward pass (2/3 of a "
          "step's compute), (W / 3 + O) / (deadline − steps × A), in whole replicas; A and O at the devices for the "
          "work alone; 0 where steps × A alone outlasts the deadline", label="Devices for the deadline, first estimate",
          count=True)
def tr_devices_for_deadline_first(q):
    return deadline_count(q, q.reduce_for_work, q.overhead_for_work)


layout_at("first", first_devices, "the first estimate's devices", "at the first estimate",
          count_words="max(devices_for_deadline_first, tensor_given × pipeline)")


@quantity("train", "overhead_for_first", "s", "device-time besides the work at the first estimate's devices: the "
          "work × the bubble's share + steps × (tensor-parallel time + the layout's time) × devices",
          display="device-h", label="Bubble, tensor-parallel and layout device-time at the first estimate")
def tr_overhead_for_first(q):
    n = first_devices(q)
    return overhead_for_deadline(q, n) + q.steps * q.layout_for_first * n


@quantity("train", "devices_for_deadline", "",
          "fewest devices, in whole replicas, that finish by the deadline: the first estimate, or the same sum with "
          "the all-reduce and the other device-time taken at its devices where that asks for more; 0 where no count "
          "can (the training time checks the layout chosen)", label="Devices for the deadline", count=True)
def tr_devices_for_deadline(q):
    first = q.devices_for_deadline_first
    return where(first > 0, maximum(first, deadline_count(q, q.reduce_for_first, q.overhead_for_first)), 0)


@quantity("train", "devices", "", "devices used: as given, else the fewest whole replicas that hold the state and "
          "meet any deadline (one replica at least)", label="Devices used", count=True)
def tr_devices(q):
    fewest = max_present(whole_replicas(q, q.devices_to_fit), q.devices_for_deadline, shard(q))   # one replica at least
    return first_present(q.train_devices, fewest)


@quantity("train", "activation_memory", "byte", "activations one device keeps: whole sequences per micro-batch "
          "(batch / (data-parallel ways × micro-batches), rounded up) × activations per sequence; a pipeline "
          "stage of a 1F1B schedule keeps its stages' micro-batches in flight, as many layers' worth",
          display="GB", label="Activations per device")
def tr_activation_memory(q):
    return sequences_in_flight(q) * q.activation_per_sequence


@quantity("train", "activations_total", "byte", "activations of the devices used: devices × activations per device",
          display="GB", label="Activations (all devices)")
def tr_activations_total(q):
    return q.devices * q.activation_memory


@quantity("train", "train_memory_required", "byte", "training state + activations of the devices used",
          display="GB", label="Memory required")
def tr_memory_required(q):
    return sum_present(q.state_bytes, q.activations_total)


@quantity("train", "train_memory", "byte", "memory of the devices used the runtime can use: devices × usable "
          "memory", display="GB", label="Memory of the devices used")
def tr_memory(q):
    return q.usable_memory * q.devices


@quantity("train", "fits", "", "state, sharded evenly over the devices used, and each device's activations ≤ their "
          "usable memory", label="Fits in memory (state spread over the devices)", type="check",
          compares=("train_memory_required", "train_memory"), requirement=True)
def tr_fits(q):
    return q.train_memory_required <= q.train_memory


@quantity("train", "compute_time", "s", "work / (training rate × devices) × the uneven split's share: ceil(batch / "
          "data-parallel ways) × ways / batch (the way with the most sequences sets each step)", display="h",
          label="Compute time")
def tr_compute_time(q):
    return q.flops * balance_at(q, q.devices) / (q.train_rate * q.devices)


@quantity("train", "data_parallel", "", "data-parallel ways: as given, else devices / (tensor × pipeline)",
          label="Data-parallel ways")
def tr_data(q):
    return data_parallel_at(q, q.devices)


@quantity("train", "micro_batches_used", "", "pipeline micro-batches per step: as given, else one sequence each "
          "(whole sequences per data-parallel replica)", label="Micro-batches per step", count=True)
def tr_micro_batches(q):
    return micro_batches_at(q, q.devices)


@quantity("train", "bubble_time", "s", "pipeline bubble: compute time × (stages − 1) / micro-batches", display="h",
          label="Pipeline bubble")
def tr_bubble(q):
    return q.compute_time * (q.pipeline - 1) / q.micro_batches_used


@quantity("train", "memory_weights_whole", "byte",
          "memory one device needs when each data-parallel way keeps its weights and 16-bit gradients whole (ZeRO-1, "
          "Megatron's distributed optimizer): weights and gradients over tensor × pipeline + the rest of the state "
          "over the devices used + activations", display="GB", label="Memory per device, weights kept whole")
def tr_memory_weights_whole(q):
    return memory_whole(q, q.devices, q.activation_memory)


@quantity("train", "weights_whole", "", "weights kept whole on each data-parallel way fit the usable memory",
          label="Weights kept whole per data-parallel way", type="check",
          compares=("memory_weights_whole", "usable_memory"))
def tr_weights_whole(q):
    return q.memory_weights_whole <= q.usable_memory


@quantity("train", "recompute_share", "", "share of the layers whose activations are recomputed so that whole "
          "weights fit (Megatron's recompute of N layers): the memory short / what recomputing every layer frees "
          "(whole sequences per micro-batch × sequence × (values kept − values kept with recompute) × activation "
          "bytes / tensor ways); 0 where they fit, above 1 where recomputing cannot make room",
          display="%", label="Layers recomputed to keep weights whole")
def tr_recompute_share(q):
    return recompute_share(q, q.memory_weights_whole)


@quantity("train", "forward_time", "s", "per optimizer step, the forward pass: 1/3 of the step's compute on the "
          "devices used (the backward pass is the other 2/3)", display="s", label="Forward pass per step")
def tr_forward_time(q):
    return forward_time_at(q, q.devices)


@quantity("train", "gradient_all_reduce_time", "s",
          "per optimizer step with the weights kept whole: one ring all-reduce over the data-parallel ways of the "
          "16-bit gradients of the trained parameters on one tensor × pipeline shard", display="s", warn=NO_FABRIC,
          warn_on=("interconnect_bandwidth",), label="Gradient all-reduce per step, weights whole")
def tr_gradient_all_reduce(q):
    if (absent := without_fabric(q)) is not None:
        return absent
    return reduce_once_at(q, q.devices)


@quantity("train", "sharded_reduce_time", "s",
          "per optimizer step were the weights sharded: each micro-batch reduce-scatters the gradients of the "
          "shard, layer by layer", display="s", warn=NO_FABRIC, warn_on=("interconnect_bandwidth",),
          label="Gradient reduce-scatters per step, weights sharded")
def tr_sharded_reduce(q):
    if (absent := without_fabric(q)) is not None:
        return absent
    return sharded_parts_at(q, q.devices)[0]


@quantity("train", "sharded_gather_time", "s",
          "per optimizer step were the weights sharded: each micro-batch all-gathers every layer's weights of the "
          "shard twice, for the forward and the backward pass", display="s", warn=NO_FABRIC,
          warn_on=("interconnect_bandwidth",), label="Weight gathers per step, weights sharded")
def tr_sharded_gather(q):
    if (absent := without_fabric(q)) is not None:
        return absent
    return sharded_parts_at(q, q.devices)[1]


@quantity("train", "weights_sharded", "", "the weights are sharded too (ZeRO-3, FSDP) and gathered for every "
          "micro-batch: where whole weights do not fit and recomputing layers cannot make room, or would cost more "
          "time than the gathers compute does not hide", label="Weights sharded (ZeRO-3, FSDP)", type="check")
def tr_weights_sharded(q):
    return sharded_by(q, q.memory_weights_whole, q.recompute_share,
                      lambda: (q.forward_time, q.sharded_reduce_time, q.sharded_gather_time,
                               q.gradient_all_reduce_time))


@quantity("train", "gradient_sync_time", "s",
          "per optimizer step: the gradient all-reduce where the weights are whole, the reduce-scatters where they "
          "are sharded", display="s", warn=NO_FABRIC, warn_on=("interconnect_bandwidth",),
          label="Gradient reduction per step")
def tr_gradient_sync(q):
    if (absent := without_fabric(q)) is not None:
        return absent
    return where(known(q.weights_sharded), q.sharded_reduce_time, q.gradient_all_reduce_time)


@quantity("train", "weight_gather_time", "s", "per optimizer step: the weight gathers where the weights are "
          "sharded; 0 where they are whole", display="s", warn=NO_FABRIC, warn_on=("interconnect_bandwidth",),
          label="Weight gathers per step")
def tr_weight_gather(q):
    if (absent := without_fabric(q)) is not None:
        return absent
    return where(known(q.weights_sharded), q.sharded_gather_time, Const(0, "s"))


@quantity("train", "recompute_time", "s", "per optimizer step where whole weights need room: the forward pass "
          "again for the share of layers recomputed; 0 where sharded; none where every layer is recomputed "
          "already", display="s", label="Recompute for room per step")
def tr_recompute_time(q):
    if q.text("recompute") == "yes":
        return NA
    return first_present(where(known(q.weights_sharded), Const(0, "s"), q.recompute_share * q.forward_time),
                         Const(0, "s"))


@quantity("train", "tensor_parallel_time", "s", "per optimizer step, the tensor-parallel all-reduces: 4 per layer "
          "of the step's tokens per data-parallel replica, each a ring over the tensor-parallel ways (counted in "
          "full: the next layer waits for them)", display="s", warn=NO_FABRIC, warn_on=("interconnect_bandwidth",),
          label="Tensor-parallel all-reduces per step")
def tr_tensor_parallel_time(q):
    if (absent := without_fabric(q)) is not None:
        return absent
    return tensor_parallel_at(q, q.devices)


@quantity("train", "communication_time", "s",
          "per optimizer step, what compute does not hide: the forward pass's weight gathers beyond its compute "
          "(1/3 of the step's), the backward pass's gathers and the gradient reduction beyond its compute (2/3), "
          "and the tensor-parallel all-reduces (pipeline sends overlap with compute in a 1F1B schedule; its bubble "
          "is counted apart)", display="s", label="Communication per step not hidden by compute")
def tr_communication(q):
    if (absent := without_fabric(q)) is not None:
        return absent
    return sum_present(exposed(q.forward_time, q.gradient_sync_time, q.weight_gather_time), q.tensor_parallel_time)


@quantity("train", "duration", "s", "compute time + bubble + steps × (communication + recompute for room) per step",
          display="h", label="Training time")
def tr_duration(q):
    comm = q.steps * q.communication_time if q.has("communication_time") else NA
    return plus(q.compute_time, q.bubble_time, comm, q.steps * q.recompute_time)


@quantity("train", "device_hours", "s", "duration × devices", display="device-h", label="Device-hours")
def tr_device_hours(q):
    return q.duration * q.devices


@quantity("train", "meets_deadline", "", "duration ≤ deadline", label="Finishes by the deadline", type="check",
          requirement=True)
def tr_meets_deadline(q):
    return q.duration <= q.deadline


@quantity("train", "deadline_spare", "", "share of the deadline left over: 1 − training time / deadline (below 0: "
          "missed)", display="%", label="Deadline to spare")
def tr_deadline_spare(q):
    return 1 - q.duration / q.deadline


@quantity("train", "domains_used", "", "scale-up domains the devices used fill: devices / devices per domain (a "
          "server, where the domain is one: 8 GPUs on an HGX board); none for fewer devices than a domain (a TPU "
          "pod's thousands of chips are not a server)", label="Scale-up domains (servers) used")
def tr_domains_used(q):
    return where(q.devices >= q.interconnect_domain, q.devices / q.interconnect_domain, nothing())


@quantity("train", "whole_domains", "", "scale-up domains to order where they are sold whole: the domains used, "
          "rounded up", label="Whole scale-up domains (servers)", count=True)
def tr_whole_domains(q):
    return where(q.devices >= q.interconnect_domain, ceil(q.devices / q.interconnect_domain), nothing())


@quantity("train", "meets_targets", "", "every target given is met: the deadline", label="Meets the deadline",
          type="check", requirement=True)
def tr_meets_targets(q):
    return q.meets_deadline


@quantity("train", "cost", "USD", "duration × devices × hourly rate used, where the state fits the devices used "
          "(a setup that cannot run is not priced)", display="USD", warn=NO_PRICE, warn_on=("price", "purchase"),
          label="Training cost")
def tr_cost(q):
    return where(q.fits, if_given(q.duration * q.devices * q.hourly_rate, q.hourly_rate), nothing())


@quantity("train", "capex", "USD", "capital where the devices are bought (cost basis own): devices × purchase price, "
          "paid up front; the cost of the run is only its hours' share of their write-off", display="USD",
          label="Capital (devices bought)")
def tr_capex(q):
    return capital(q, q.devices)


@quantity("train", "write_off_share", "", "where the devices are bought, the share of their write-off the run takes: "
          "training time / amortisation (the cost of the run assumes other work pays for the rest)", display="%",
          label="Share of the write-off the run takes")
def tr_write_off_share(q):
    flag = q.owned_fleet
    if isinstance(flag, Missing) or not q.has("purchase"):
        return NA
    return if_given(where(flag, q.duration / q.amortisation, nothing()), q.hourly_rate)     # IF over a blank: #VALUE!
