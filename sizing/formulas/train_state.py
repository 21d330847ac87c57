"""Training and fine-tuning, what a run is before it is laid out: its state, its memory on one device, the devices
that hold it, its work and the rate it runs at."""

from .common import (ATTENTION_FLOP, COMPUTE_PASSES, FLOP_PER_PARAM_TOKEN, NO_RATE, PASS_FLOP_PER_PARAM_TOKEN,
                     RATE_INPUTS, RECOMPUTED_PASSES, TOKEN, WEIGHT_GRAD_FLOP_PER_PARAM_TOKEN, after_reserve,
                     used_parameters)
from .expr import ceil, constant, first_present, maximum, sum_present, where
from .graph import NA, quantity
from .train_layout import BYTE, kept_per_token

LOGIT_BYTES = constant("logit_bytes", 4, "byte", "bytes per logit kept for the loss (32-bit)")

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


@quantity("train", "activation_per_sequence", "byte",
          "activations one device keeps for one sequence: sequence × (layers × values per layer, or with recompute "
          "each layer's input and one layer's values) × activation bytes + vocabulary × 4-byte logits, over the "
          "tensor-parallel ways (sequence parallel); per layer and token 6 × hidden + 2 × kv width + 3 × "
          "feed-forward width × experts per token (a plain feed-forward keeps 2: slightly more than it needs)",
          display="GB", label="Activations per sequence",
          warn="the model has no architecture (layers, hidden, intermediate, vocab): training activations not "
               "counted", warn_on=("layers", "hidden", "kv_heads", "head_dim", "intermediate", "vocab", "sequence"))
def tr_activation_per_sequence(q):
    per_token = kept_per_token(q, q.text("recompute") == "yes") * q.activation_bytes + q.vocab * LOGIT_BYTES
    return q.sequence / TOKEN * per_token / q.tensor_given


@quantity("train", "usable_memory", "byte", "memory of one device the runtime can use: memory × (1 − reserve)",
          display="GB", label="Usable memory per device")
def tr_usable(q):
    return after_reserve(q, q.memory)


@quantity("train", "one_device_required", "byte", "training state + activations of one sequence",
          display="GB", label="Memory the run needs on one device")
def tr_one_device_required(q):
    return sum_present(q.state_bytes, q.activation_per_sequence)


@quantity("train", "fits_one_device", "", "state and one sequence's activations ≤ one device's usable memory",
          label="Fits on one device", type="check", compares=("one_device_required", "usable_memory"))
def tr_fits_one_device(q):
    return q.one_device_required <= q.usable_memory


@quantity("train", "devices_to_fit", "", "devices needed when the state is sharded beside one sequence's "
          "activations on each: state / (usable memory − activations per sequence); 0 when a sequence's "
          "activations alone outgrow a device (no count holds it: recompute or tensor parallelism would)",
          label="Devices to fit", count=True)
def tr_devices_to_fit(q):
    room = first_present(q.usable_memory - q.activation_per_sequence, q.usable_memory)
    return where(room > 0, ceil(q.state_bytes / maximum(room, BYTE)), 0)


@quantity("train", "train_rate", "FLOP/s",
          "rate training gets per device: the delivered rate where given, else peak × training efficiency (the "
          "share of peak the arithmetic runs at, read from published runs as their model-FLOPs utilisation; a "
          "recomputed forward pass is arithmetic too, counted in the work)",
          display="TFLOP/s", label="Training rate per device",
          warn=NO_RATE, warn_on=RATE_INPUTS)
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


@quantity("train", "steps", "", "optimizer steps: tokens / (batch × sequence)", label="Optimizer steps")
def tr_steps(q):
    return q.tokens / (q.batch * q.sequence)
