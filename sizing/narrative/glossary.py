"""The glossary: every technical term a report may use, in words a non-engineer reads. A report lists the terms
that appear in it (found in its text, so the list follows what is said, not a fixed set)."""

from __future__ import annotations

import re

# (term as listed, pattern that finds it in the text (case-insensitive, whole words), meaning)
TERMS: tuple[tuple[str, str, str], ...] = (
    ("95th percentile (p95)", r"p95|95 ?%|95th percentile",
     "the value 95 % of requests stay within; 5 % take longer"),
    ("all-reduce, gather, reduce-scatter", r"all-reduces?|gathers?|reduce-scatters?|gradient reduction",
     "how devices working together exchange data: an all-reduce adds up every device's values (the gradients) and "
     "gives each the sum; a gather hands each device the pieces the others hold (sharded weights); each takes time "
     "on the links, hidden where the devices are busy computing"),
    ("amortisation (capital written off)", r"amortis\w*|written off|write-off",
     "spreading a purchase price evenly over the months it is used (the horizon) to give a monthly cost"),
    ("activations", r"activations?",
     "the intermediate values of a training step's forward pass, kept for its backward pass: memory beside the "
     "training state"),
    ("batch", r"batch(es)?",
     "the requests (sequences) a device processes together in one step; larger batches raise throughput and "
     "the time each user waits between tokens (in training: the sequences of one optimizer step)"),
    ("bandwidth", r"bandwidth",
     "how many bytes per second memory or a link can move (GB/s, TB/s)"),
    ("BF16, FP16, FP8, FP4, INT8, INT4", r"bf16|fp16|fp8|fp4|int8|int4|fp32",
     "number formats: 16, 8 or 4 bits per value; fewer bits hold a model in less memory and read it faster, "
     "at some cost in accuracy"),
    ("break-even", r"break-even",
     "the point (utilisation, batch, size) at which two choices cost or take the same"),
    ("capital (capex)", r"capital|capex",
     "money spent up front to buy devices"),
    ("commitment discount (reserved)", r"commitment discount|reserved",
     "a lower hourly price in exchange for committing to rent for a term"),
    ("compute-bound", r"compute-bound",
     "limited by the device's arithmetic rate: a faster chip helps, more memory bandwidth does not"),
    ("cost basis", r"cost basis|on demand|by the hour|bought",
     "how an option is paid for: bought (capital plus running costs), rented by the hour all month, rented on "
     "demand only for the hours traffic needs, or paid per token to a hosted API"),
    ("decode", r"decod\w+",
     "generating the answer one token at a time, each step reading the model's weights from memory (for a mixture "
     "of experts, the shared layers and the experts its tokens are routed to)"),
    ("efficiency", r"efficiency|efficiencies",
     "the share of a device's datasheet peak that real software reaches; sizing's defaults come from published "
     "measurements (see how far to trust the estimates, in the method)"),
    ("FLOP, FLOP/s, TFLOP/s", r"t?flop(/s)?",
     "floating-point operations (arithmetic steps) and how many a device does per second (tera = 10¹²)"),
    ("held out (published runs)", r"held[- ]out",
     "published measurements sizing did not use when it chose its default efficiencies, kept aside to test them: "
     "how the estimates do on them is how they may do on yours"),
    ("headline figure", r"headline( figures?)?",
     "the figure a decision ranks its options by (a monthly cost, a cost of the run), shown for the recommendation"),
    ("HGX, SXM (NVIDIA server boards)", r"hgx|sxm\d?",
     "NVIDIA's board of eight GPUs joined by NVLink (HGX) and the socketed GPU module it carries (SXM): one server's "
     "GPUs, as bought"),
    ("hosted API", r"hosted api",
     "a provider's model service paid per token; its capacity and latency are the provider's"),
    ("horizon", r"horizon",
     "the months over which options are compared: the purchase's write-off period, else three years"),
    ("intensity (arithmetic intensity)", r"intensity",
     "operations done per byte read from memory; below the ridge point memory speed limits the device"),
    ("interconnect (NVLink, Infinity Fabric, ICI)", r"interconnect|nvlink|infinity fabric|\bici\b",
     "the fast links between the devices of one server that serve one model copy together"),
    ("MLA (multi-head latent attention)", r"\bmla\b",
     "an attention design (DeepSeek's) that keeps a compressed summary per token instead of every head's keys and "
     "values: a smaller KV cache"),
    ("KV cache", r"kv cache|kv-cache",
     "memory holding what the model has read of each conversation so far; grows with the context and the batch"),
    ("working memory", r"working memory",
     "the memory a model needs besides its weights: the KV cache of the conversations in flight and the scratch "
     "space of each step"),
    ("sharded to fit (an option named 'fit')", r"sharded to fit|fit(?=,)",
     "an option sizing adds where the model does not fit the devices given: the fewest devices that hold it "
     "together (a power of two)"),
    ("found by sizing", r"found by sizing",
     "an option sizing adds: the workload at the batch that serves it for least on a device while meeting each "
     "latency target with a tenth to spare (or at the median speed of the device's published runs, where slower); "
     "the scenario's own batch is ranked beside it"),
    ("latency", r"latency|latencies",
     "the time from a request's arrival to its answer; of a link, the fixed time a message takes besides its bytes"),
    ("device-hours", r"device-hours?",
     "devices × hours: what a rented run is billed on, whatever the number of devices"),
    ("gradient", r"gradients?",
     "how each trained weight should change, computed in a step's backward pass; the devices add theirs up "
     "(all-reduce) every step"),
    ("micro-batch", r"micro-batch\w*",
     "the slice of an optimizer step's sequences a device processes at once; a step runs several"),
    ("optimizer step", r"optimi[sz]er steps?",
     "one update of the weights, after the sequences of one batch"),
    ("recompute (activation checkpointing)", r"recomput\w*",
     "keeping fewer activations and computing them again in the backward pass: less memory for more arithmetic "
     "(recompute on: every layer, a third more; selective recompute of the attention alone, a few percent more, is "
     "not modelled)"),
    ("scale-up domain (server)", r"scale-up domains?",
     "the devices joined by the fast interconnect, typically one server of 8 GPUs; beyond it they talk over the "
     "slower network"),
    ("weights kept whole (ZeRO-1)", r"weights kept whole|kept whole",
     "each group of devices training one copy of the model keeps all its weights, and only the optimizer's figures "
     "are split over every device: the least traffic, if it fits"),
    ("sharded weights (ZeRO-3, FSDP)", r"zero-3|fsdp|weights sharded",
     "the weights split over the devices too, each gathering the rest for every micro-batch: less memory on each "
     "device, more traffic between them"),
    ("training state", r"training state",
     "what a training run keeps for each trained weight: the weight, its gradient and the optimizer's figures (16 "
     "bytes a weight with Adam in mixed precision)"),
    ("latency floor", r"latency floor|layer overhead|per-layer",
     "a fixed time per model layer and step (kernel launches, synchronisation) that no faster hardware removes"),
    ("layout (of a training run)", r"\blayouts?\b|tensor \d",
     "how a run is split over its devices: its tensor ways (devices sharing each layer's arithmetic and exchanging "
     "results every layer), whether activations are recomputed, and how many devices"),
    ("LoRA", r"lora",
     "fine-tuning a small set of added weights instead of the whole model: less memory and compute"),
    ("memory-bound", r"memory-bound",
     "limited by how fast the device reads memory, not by its arithmetic: memory bandwidth decides speed"),
    ("memory reserve", r"memory reserve|reserve",
     "the share of device memory the software (serving or training) keeps for itself and cannot give to the model"),
    ("mixture of experts (MoE)", r"mixture[- ]of[- ]experts|\bmoe\b|experts?",
     "a model whose layers have several expert networks of which each token uses a few: all must be held in "
     "memory, few are computed"),
    ("model-FLOPs utilisation (MFU)", r"model-flops utilisation|\bmfu\b",
     "the share of the devices' peak arithmetic a training run turns into model progress"),
    ("parallelism (tensor, pipeline, expert, data)", r"tensor[- ]parallel\w*|pipeline|expert[- ]parallel\w*|"
     r"data[- ]parallel\w*", "ways of splitting one model or job over several devices; the devices must then "
     "exchange data, which costs time"),
    ("pipeline bubble", r"bubble",
     "in a pipeline split over devices, the time at the start and end of each step when some devices wait for "
     "work: more micro-batches a step shrink it"),
    ("prefill", r"prefill\w*",
     "reading the prompt before the first output token: arithmetic-heavy, it sets the time to first token"),
    ("PUE", r"\bpue\b",
     "power usage effectiveness: data-centre power per watt the devices draw (1.3: 30 % more for cooling etc.)"),
    ("queueing (M/M/c, Erlang C)", r"queue\w*|erlang|m/m/c",
     "the waiting model: requests arrive at random and wait when every replica is busy; Erlang C gives the "
     "chance of waiting"),
    ("redundancy (N+k)", r"redundancy|n\+k",
     "spare replicas beyond what the peak needs (N replicas for the peak, k spares), so a failure does not drop "
     "requests"),
    ("replica", r"replicas?",
     "one complete copy of the model on its own devices, serving requests independently (in training, one "
     "data-parallel way)"),
    ("ridge point", r"ridge point",
     "the intensity at which a device's arithmetic and memory limits meet"),
    ("roofline", r"roofline",
     "the chart of the highest rate a device can reach at each intensity: a slope (memory) then a flat roof "
     "(arithmetic)"),
    ("running cost (opex)", r"running cost|opex|operating",
     "monthly costs besides capital: rent, or electricity and hosting for owned devices"),
    ("sensitivity (tornado chart)", r"sensitivity|tornado",
     "how the result moves when each assumption is moved by a quarter, one at a time"),
    ("SHA-256", r"sha-256",
     "a fingerprint of a file: any change to the scenario changes it"),
    ("triangular range", r"triangular",
     "an uncertain input drawn between a low and a high value, most often near the most likely one; never "
     "outside the two ends"),
    ("cost per million output tokens", r"cost per million output tokens|per million output tokens",
     "the whole monthly cost, prompts' processing included, divided by the answers' tokens (millions) in the "
     "month: what each million generated tokens costs, not a price per token read"),
    ("lognormal range", r"lognormal",
     "an uncertain input given by its median and its 95th percentile: never negative, with a long tail of high "
     "values (one chance in twenty above the 95th percentile)"),
    ("time between tokens", r"time between tokens|per-token time|between tokens",
     "the gap a user sees between two words (tokens) of the answer as it streams"),
    ("time to first token (TTFT)", r"time to first token|\bttft\b",
     "from the request's arrival to the first token of the answer: waiting, then reading the prompt"),
    ("token", r"tokens?",
     "the unit a model reads and writes: a word or part of one (about three quarters of a word in English)"),
    ("utilisation", r"utilisation|utilization",
     "the share of time devices are busy; idle time is still paid for when devices are held all month"),
)


def terms_in(text: str) -> tuple[tuple[str, str], ...]:
    """The glossary entries whose term appears in `text` (whole words, any case), in alphabetical order."""
    found = [(term, meaning) for term, pattern, meaning in TERMS
             if re.search(rf"(?<![\w-])(?:{pattern})(?![\w-])", text, re.I)]
    return tuple(sorted(found, key=lambda tm: tm[0].lower()))
