"""The workload-kind registry: every per-kind word, default and list of quantities, in one place."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Memory:
    """How a kind's memory is drawn: the parts stacked to make the need of its `fits` check, which names
    the need and the capacity it is held against (sizing/formulas/)."""

    parts: tuple[tuple[str, str], ...]       # (label, quantity id)
    check: str = "fits"


@dataclass(frozen=True)
class Kind:
    """One workload kind (or the benchmark records): what renderers and the engine need to know of it."""

    id: str
    words: str                                       # what a person calls it
    default_precision: str | None = None
    devices_role: str | None = None                  # the input role `devices` fills
    objectives: dict[str, str] = field(default_factory=dict)   # objective words -> quantity id
    crossover: str | None = None                     # the time quantity compared between devices in sweeps
    size_crossover: bool = False                     # the engine searches the square size where devices cross
    key_figures: tuple[str, ...] = ()                # the report's comparison and overview tables
    headline: tuple[str, ...] = ()                   # the workbook's Results sheet
    swept: tuple[str, ...] = ()                      # shown for a numeric sweep (terminal, workbook)
    swept_precision: tuple[str, ...] = ()            # shown for a precision sweep (terminal, workbook, report)
    memory: Memory | None = None                     # the memory chart
    roofline_point: str = ""                         # what its dot on a roofline is (none: no roofline chart)
    cost_per_unit: str | None = None                 # cost per unit of work (cost vs utilisation chart)
    default_utilisation: bool = False                # gets a 100 % utilisation input when none is given
    workload: bool = True                            # a kind a scenario may declare
    limits: tuple[str, ...] = ()                     # what the model leaves out for this kind (the report's method)


QUEUE = "Queueing is M/M/c: Poisson arrivals, exponential service, every slot of every replica shared by all requests."
# What the model leaves out whatever the workload (the report's method lists these, then each kind's own).
LIMITS = ("Times follow the roofline (the larger of work at the delivered rate and bytes at the delivered bandwidth) "
          "plus a fixed floor per layer and pass, and the communication between the devices of a replica (a latency "
          "and a bandwidth term per collective). Kernel fusion, caching and scheduling are folded into the "
          "efficiencies: the device family's defaults, read from published measurements (how far to trust "
          "them: the section above), unless the scenario states its own.",
          "Costs use the price or purchase figures stated in the scenario; power is drawn in full whenever the "
          "device is owned.")

KINDS: dict[str, Kind] = {k.id: k for k in (
    Kind("matmul", "matrix product", default_precision="fp32",
         objectives={"latency": "total_time"}, crossover="total_time", size_crossover=True,
         key_figures=("total_time", "kernel_time", "transfer_share", "effective_rate"),
         headline=("flops", "bytes", "intensity", "bound", "attainable_rate", "compute_time", "transfer_time",
                   "overhead_time", "total_time", "transfer_share", "effective_rate"),
         swept=("total_time", "effective_rate", "transfer_share"),
         roofline_point="the kernel",
         limits=("The host link is a bandwidth and a fixed overhead per copy; the three copies and the kernel run one "
                 "after another (no overlap of transfers with compute).",)),
    Kind("generate", "LLM serving", default_precision="bf16", devices_role="replica_devices",
         objectives={"latency": "request_latency", "cost": "cost_per_million_tokens"}, crossover="step_time",
         key_figures=("memory_required", "replica_memory", "token_interval", "ttft_p95", "ttft", "tokens_per_s",
                      "fleet_devices", "cost_per_million_tokens", "monthly_cost", "monthly_cost_own", "api_monthly_cost"),
         headline=("memory_required", "replica_memory", "fits", "max_batch", "step_time", "token_interval", "bound",
                   "tokens_per_s_per_user", "tokens_per_s", "ttft", "ttft_p95", "request_latency",
                   "cost_per_million_tokens",
                   "replicas", "monthly_cost", "meets_targets"),
         swept=("step_time", "token_interval", "tokens_per_s_per_user", "tokens_per_s", "cost_per_million_tokens",
                "fits"),
         swept_precision=("weights_bytes", "memory_required", "fits", "step_time", "tokens_per_s",
                          "cost_per_million_tokens"),
         memory=Memory((("weights", "weights_bytes"), ("KV cache", "kv_cache_bytes"),
                        ("workspace", "workspace_bytes"))),
         roofline_point="the decode step", cost_per_unit="cost_per_million_tokens",
         default_utilisation=True,
         limits=("Serving throughput counts the device time benchmark tables measure: a replica prefills its batch's "
                 "prompts and decodes every answer together. Latency assumes continuous batching: a request's first "
                 "token follows its own prompt's prefill (so it does not grow with the batch), and the other "
                 "requests' prefills interrupt its decoding (the time between tokens and the request latency count "
                 "them). Speculative decoding, prefix caching and the finer interference of chunked prefills with "
                 "decoding are not modelled.",
                 "Mixture-of-experts tokens are routed independently and evenly, which touches the most distinct "
                 "experts; real routing is skewed, which touches fewer but loads some experts (and the devices "
                 "holding them) more than others.",
                 "Sliding-window attention and tied embeddings are not modelled: attention covers the whole context, "
                 "and the output projection is counted apart from the input embedding.",
                 QUEUE)),
    Kind("forward", "single forward pass", default_precision="fp32", devices_role="replica_devices",
         objectives={"cost": "cost_per_million_requests"}, crossover="latency",
         key_figures=("footprint_bytes", "latency", "response_p95", "requests_per_s", "devices_needed",
                      "monthly_cost", "batch_job_time"),
         headline=("footprint_bytes", "fits", "latency", "requests_per_s", "devices_needed", "monthly_cost",
                   "meets_targets", "batch_job_time", "batch_job_cost"),
         swept=("latency", "requests_per_s", "footprint_bytes", "fits"),
         swept_precision=("footprint_bytes", "fits", "latency", "requests_per_s"),
         memory=Memory((("weights", "footprint_bytes"),)),
         cost_per_unit="cost_per_million_requests", default_utilisation=True,
         limits=("A request is one forward pass over its tokens at the stated batch; the wait to fill a batch is not "
                 "counted.", QUEUE)),
    Kind("train", "training", default_precision="bf16", devices_role="train_devices",
         objectives={"latency": "duration", "cost": "cost"},
         key_figures=("state_bytes", "fits", "devices", "duration", "cost"),
         headline=("state_bytes", "fits", "devices_to_fit", "devices", "duration", "cost"),
         swept=("duration", "state_bytes", "fits"),
         memory=Memory((("training state (with any frozen weights)", "state_bytes"),
                        ("activations (every device's)", "activations_total")), check="fits"),
         limits=("Training state counts weights, gradients and optimizer moments; a run holds it when it fits "
                 "sharded evenly over the devices (ZeRO-3 or FSDP), and is laid out the cheapest way its memory "
                 "allows: weights kept whole on each data-parallel way, some layers recomputed to make room for "
                 "them, or the weights sharded too and gathered for every micro-batch. Each device keeps the "
                 "activations of its micro-batch for the backward pass, "
                 "counted for flash attention without dropout, with sequence parallelism over the tensor-parallel "
                 "ways and 32-bit logits for the loss (a fused or chunked loss keeps less; an eager PyTorch stack up "
                 "to a quarter more: published peaks ran 0.79-1.20x the count). The pipeline bubble is that of a "
                 "plain one-forward-one-backward schedule (interleaved schedules shrink it); the gradient all-reduce "
                 "overlaps the backward pass.",
                 "Data loading, checkpointing, failures and restarts are not counted: a real run takes longer than "
                 "its compute.")),
    Kind("benchmark", "benchmark record", workload=False,
         limits=("A benchmark record is compared with the engine's prediction of the same configuration; the "
                 "record's runtime and conditions are as its source states them.",),
         headline=("cost_per_million_tokens", "effective_throughput", "cost_per_million_tokens_at_utilisation")),
)}
WORKLOAD_KINDS = tuple(k for k, v in KINDS.items() if v.workload)
OBJECTIVE_WORDS = tuple(dict.fromkeys(w for k in KINDS.values() for w in k.objectives))
UNKNOWN = Kind("unknown", "workload")


def get(kind: str | None) -> Kind:
    """The registry entry of a kind (an empty one for an unknown kind: renderers then show nothing special)."""
    return KINDS.get(kind or "", UNKNOWN)


def objective_id(objective: str, kind: str) -> str:
    """The quantity an objective word means for a workload kind ('latency' is total_time for a matmul)."""
    return get(kind).objectives.get(objective, objective)
