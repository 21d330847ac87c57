"""Training and fine-tuning: state memory, work, the delivered rate, communication and the pipeline bubble."""

from .common import (ATTENTION_FLOP, FLOP_PER_PARAM_TOKEN, NO_FABRIC, NO_PRICE, PASS_FLOP_PER_PARAM_TOKEN, TOKEN,
                     COMPUTE_PASSES, RECOMPUTED_PASSES, TRAIN_TP_ALL_REDUCES, WEIGHT_GRAD_FLOP_PER_PARAM_TOKEN, all_reduce, plus, used_parameters,
                     without_fabric)
from .expr import ceil, first_present, floor, if_given, max_present, maximum, nothing, sum_present, where
from .graph import NA, quantity

@quantity("train", "trainable_parameters", "", "parameters trained: all (full) or the LoRA share",
          label="Trainable parameters")
def tr_trainable(q):
    return q.parameters * q.trainable if q.text("method") == "lora" else q.parameters


@quantity("train", "frozen_bytes", "byte", "LoRA: frozen base weights at the precision", display="GB",
          label="Frozen weights")
def tr_frozen(q):
    return q.parameters * q.bytes_per_value if q.text("method") == "lora" else NA


@quantity("train", "state_bytes", "byte",
          "training state: trainable parameters × state bytes per parameter (+ frozen weights)", display="GB",
          label="Training state")
def tr_state(q):
    return sum_present(q.frozen_bytes, q.trainable_parameters * q.state_bytes_per_parameter)


@quantity("train", "fits_one_device", "", "state ≤ one device's memory (activations not counted)",
          label="Fits on one device", type="check", compares=("state_bytes", "memory"))
def tr_fits_one_device(q):
    return q.state_bytes <= q.memory


@quantity("train", "devices_to_fit", "", "devices needed when the state is sharded", label="Devices to fit", count=True)
def tr_devices_to_fit(q):
    return ceil(q.state_bytes / q.memory)


@quantity("train", "train_rate", "FLOP/s",
          "rate training gets per device: the delivered rate where given, else peak × training efficiency (MFU)",
          display="TFLOP/s", label="Training rate per device")
def tr_rate(q):
    return first_present(q.delivered_given, q.peak_rate * q.train_efficiency)


@quantity("train", "flops", "FLOP",
          "(4 × parameters used + 2 × trained parameters used) × tokens: 6PT for full training, ~4PT for LoRA; "
          "+ 2PT when activations are recomputed; + causal attention (2 × layers × heads × head_dim × sequence per "
          "token and pass: forward, two backward, and the forward again when recomputed)", display="PFLOP",
          label="Work")
def tr_flops(q):
    used = used_parameters(q)
    trained = q.trainable_parameters * used / q.parameters if q.has("active_parameters") else q.trainable_parameters
    passes = RECOMPUTED_PASSES if q.text("recompute") == "yes" else COMPUTE_PASSES    # (+ a forward again)
    recompute = FLOP_PER_PARAM_TOKEN * used if q.text("recompute") == "yes" else NA
    linear = sum_present(PASS_FLOP_PER_PARAM_TOKEN * used + WEIGHT_GRAD_FLOP_PER_PARAM_TOKEN * trained, recompute)
    attention = passes * ATTENTION_FLOP * q.layers * q.heads * q.head_dim * q.sequence / 2 / TOKEN
    return sum_present(linear, attention) * q.tokens


def data_parallel_at(q, devices):
    return first_present(q.data_given, devices / (q.tensor_given * q.pipeline))


def gradient_sync_at(q, devices):
    """Ring all-reduce over the data-parallel ways of the 16-bit gradients of the trained parameters on one
    tensor × pipeline shard."""
    grads = q.trainable_parameters * q.activation_bytes / (q.tensor_given * q.pipeline)
    return all_reduce(q, data_parallel_at(q, devices), grads, span=devices)


def communication_at(q, devices, sync):
    """Per step, what compute does not hide: the gradient all-reduce beyond the backward pass (2/3 of the step's
    compute) and the tensor-parallel all-reduces (4 per layer of the step's tokens per data-parallel replica)."""
    backward = 2 * q.flops / (COMPUTE_PASSES * q.train_rate * devices * q.steps)
    exposed = maximum(0, sync - backward)
    message = q.batch * q.sequence / data_parallel_at(q, devices) / TOKEN * q.hidden * q.activation_bytes
    tp = TRAIN_TP_ALL_REDUCES * q.layers / q.pipeline * all_reduce(q, q.tensor_given, message)
    return sum_present(exposed, tp)


def micro_batches_at(q, devices):
    """Pipeline micro-batches per step: as given, else one sequence each (whole sequences per replica)."""
    return first_present(q.micro_batches, maximum(1, floor(q.batch / data_parallel_at(q, devices))))


def bubble_share_at(q, devices):
    return (q.pipeline - 1) / micro_batches_at(q, devices)


@quantity("train", "steps", "", "optimizer steps: tokens / (batch × sequence)", label="Optimizer steps")
def tr_steps(q):
    return q.tokens / (q.batch * q.sequence)


def whole_replicas(q, devices):
    """Devices rounded up to whole model replicas: a multiple of tensor × pipeline."""
    shard = q.tensor_given * q.pipeline
    return ceil(devices / shard) * shard


@quantity("train", "devices_for_work", "", "devices the work alone needs by the deadline at the training rate, in "
          "whole replicas (tensor × pipeline)", label="Devices for the work alone", count=True)
def tr_devices_for_work(q):
    return whole_replicas(q, q.flops / (q.train_rate * q.deadline))


@quantity("train", "devices_for_deadline", "",
          "fewest devices, in whole replicas, that finish by the deadline: the work at the training rate with the "
          "pipeline bubble, in the deadline less the communication (both estimated at the devices for the work "
          "alone)", label="Devices for the deadline", count=True)
def tr_devices_for_deadline(q):
    first = q.devices_for_work
    work = q.flops / q.train_rate * (1 + bubble_share_at(q, first))
    if without_fabric(q) is not None:
        return whole_replicas(q, work / q.deadline)
    comm = q.steps * communication_at(q, first, gradient_sync_at(q, first))
    return whole_replicas(q, work / (q.deadline - comm))


@quantity("train", "devices", "", "devices used: as given, else the fewest whole replicas that hold the state and "
          "meet any deadline", label="Devices used", count=True)
def tr_devices(q):
    return first_present(q.train_devices, max_present(whole_replicas(q, q.devices_to_fit), q.devices_for_deadline))


@quantity("train", "train_memory", "byte", "memory of the devices used: devices × device memory", display="GB",
          label="Memory of the devices used")
def tr_memory(q):
    return q.memory * q.devices


@quantity("train", "fits", "", "state, sharded evenly over the devices used, ≤ their memory",
          label="Fits in memory (sharded)", type="check", compares=("state_bytes", "train_memory"), requirement=True)
def tr_fits(q):
    return q.state_bytes <= q.train_memory


@quantity("train", "compute_time", "s", "work / (training rate × devices)", display="h", label="Compute time")
def tr_compute_time(q):
    return q.flops / (q.train_rate * q.devices)


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


@quantity("train", "gradient_sync_time", "s",
          "per optimizer step: ring all-reduce over the data-parallel ways of the 16-bit gradients of the trained "
          "parameters on one tensor × pipeline shard", display="s", warn=NO_FABRIC, warn_on=("interconnect_bandwidth",),
          label="Gradient all-reduce per step")
def tr_gradient_sync(q):
    if (absent := without_fabric(q)) is not None:
        return absent
    return gradient_sync_at(q, q.devices)


@quantity("train", "communication_time", "s",
          "per optimizer step, what compute does not hide: the gradient all-reduce beyond the backward pass "
          "(2/3 of the step's compute) it overlaps with, and 4 tensor-parallel all-reduces per layer of the step's "
          "tokens per data-parallel replica (pipeline sends overlap with compute in a 1F1B schedule; its bubble is "
          "counted apart)", display="s", label="Communication per step")
def tr_communication(q):
    if (absent := without_fabric(q)) is not None:
        return absent
    return communication_at(q, q.devices, q.gradient_sync_time)


@quantity("train", "duration", "s", "compute time + bubble + steps × communication per step", display="h",
          label="Training time")
def tr_duration(q):
    comm = q.steps * q.communication_time if q.has("communication_time") else NA
    return plus(q.compute_time, q.bubble_time, comm)


@quantity("train", "device_hours", "s", "duration × devices", display="device-h", label="Device-hours")
def tr_device_hours(q):
    return q.duration * q.devices


@quantity("train", "meets_deadline", "", "duration ≤ deadline", label="Finishes by the deadline", type="check",
          requirement=True)
def tr_meets_deadline(q):
    return q.duration <= q.deadline


@quantity("train", "meets_targets", "", "every target given is met: the deadline", label="Meets the deadline",
          type="check", requirement=True)
def tr_meets_targets(q):
    return q.meets_deadline


@quantity("train", "cost", "USD", "duration × devices × hourly rate used, where the state fits the devices used "
          "(a setup that cannot run is not priced)", display="USD", warn=NO_PRICE, warn_on=("price", "purchase"),
          label="Training cost")
def tr_cost(q):
    return where(q.fits, if_given(q.duration * q.devices * q.hourly_rate, q.hourly_rate), nothing())


@quantity("train", "devices_that_fit", "", "the fewest whole replicas that hold the state, and at least the devices "
          "used", label="Devices that hold the state", count=True)
def tr_devices_that_fit(q):
    return maximum(whole_replicas(q, q.devices_to_fit), q.devices)


@quantity("train", "duration_that_fits", "s",
          "the same training on the devices that hold the state: work at the training rate with the bubble + "
          "steps × communication at that count", display="h", label="Training time on devices that hold the state")
def tr_duration_that_fits(q):
    n = q.devices_that_fit
    time = q.flops / (q.train_rate * n) * (1 + bubble_share_at(q, n))
    if without_fabric(q) is None:
        time = time + q.steps * communication_at(q, n, gradient_sync_at(q, n))
    return time


@quantity("train", "cost_that_fits", "USD",
          "the same training on the devices that hold the state: its training time × devices × hourly rate used",
          display="USD",
          label="Training cost on devices that hold the state")
def tr_cost_that_fits(q):
    return if_given(q.duration_that_fits * q.devices_that_fit * q.hourly_rate, q.hourly_rate)
