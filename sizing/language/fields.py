"""The scenario language's declarations of workloads, benchmarks, decisions, sweeps, uncertainty and the top level:
every key, its type, meaning, default and limits (devices and models: hardware.py)."""

from __future__ import annotations

from dataclasses import replace

from ..kinds import WORKLOAD_KINDS
from .field import Field
from .hardware import DEVICE_FIELDS, MODEL_FIELDS, PRECISIONS
from .ranges import DEFAULT_DRAWS, MAX_DRAWS, SHAPE_HELP, RangesOf
from .types import (Block, Bool, Count, Currency, Date, Entries, Enum, Fraction, Integer, ListOf, MapOf, OneOrList,
                    PerDevice, Prose, Quantity, Ref, Slug, SweepOf, Text, Variants)
# Bytes of training state per trainable parameter (mixed precision: 16-bit weights and
# gradients, fp32 master copy, optimizer moments; adamw-bf16 keeps everything in 16 bits, no master copy).
OPTIMIZER_STATE_BYTES = {"adam": 16.0, "adamw": 16.0, "adam8bit": 10.0, "sgd": 12.0, "adamw-bf16": 8.0}


TRAFFIC_FIELDS = (
    Field("peak", Quantity("request_rate"), "Peak arrival rate.", positive=True, example="20 request/s"),
    Field("average", Quantity("request_rate"), "Average arrival rate: what the fleet serves in a month, so the "
          "cost per unit of work and the average utilisation.", positive=True, example="8 request/s"),
    Field("utilisation", Fraction(), "With a peak: the average traffic as a share of the peak (give this or "
          "`average`). Without: the busy share of one replica. Default 100 %.", positive=True, maximum=1.0),
    Field("max_utilisation", Fraction(), "Highest planned utilisation at the peak (headroom).",
          positive=True, maximum=1.0, default=1.0),
    Field("redundancy", Integer(), "Extra replicas beyond the peak's need (N+k).", nonnegative=True, default=0),
)

TARGET_FIELDS = (
    Field("per_token_p95", Quantity("duration"), "Per-token (decode step) time target.", positive=True,
          example="50 ms"),
    Field("ttft_p95", Quantity("duration"), "Time to first token target.", positive=True, example="1 s"),
    Field("latency_p95", Quantity("duration"), "Request latency target.", positive=True, example="30 ms"),
)

API_FIELDS = (
    Field("output_price", Quantity("token_price"), "API price per output token.", positive=True, required=True,
          example="0.90 USD/Mtoken"),
    Field("input_price", Quantity("token_price"), "API price per input token.", nonnegative=True,
          example="0.30 USD/Mtoken"),
    Field("ttft_p95", Quantity("duration"), "The provider's stated time to first token at the 95th percentile (its "
          "service level): checked against the workload's target.", positive=True, example="800 ms"),
    Field("per_token_p95", Quantity("duration"), "The provider's stated time per output token at the 95th "
          "percentile: checked against the workload's target.", positive=True, example="30 ms"),
)

BATCH_JOB_FIELDS = (
    Field("items", Count(), "Items in the bulk job.", positive=True, required=True),
    Field("tokens", Count(), "Tokens per item.", positive=True, required=True),
)

SERVE_PARALLEL = (
    Field("tensor", Integer(), "Tensor-parallel ways (default: devices / pipeline).", positive=True),
    Field("pipeline", Integer(), "Pipeline stages.", positive=True, default=1),
    Field("expert", Integer(), "Expert-parallel ways (mixture of experts; within the replica's devices, at most "
          "as many as a replica has).", positive=True, default=1),
)

TRAIN_PARALLEL = (
    Field("tensor", Integer(), "Tensor-parallel ways.", positive=True, default=1),
    Field("pipeline", Integer(), "Pipeline stages.", positive=True, default=1),
    Field("data", Integer(), "Data-parallel ways (default: devices / (tensor x pipeline)).", positive=True),
    Field("micro_batches", Integer(), "Micro-batches per step in the pipeline (bubble = (stages - 1) / "
          "micro-batches; default: one sequence each, batch / data-parallel ways).", positive=True),
)

COMMON_WORKLOAD = (
    Field("kind", Enum(WORKLOAD_KINDS), "Workload kind.", required=True),
    Field("title", Text(), "Display title."),
    Field("description", Prose(), "Free text."),
    Field("precision", Enum(PRECISIONS), "Numeric precision of weights and compute."),
)

WORKLOAD_FIELDS = {
    "matmul": COMMON_WORKLOAD + (
        Field("m", Integer(), "Rows of A and C.", positive=True, required=True),
        Field("n", Integer(), "Columns of B and C.", positive=True, required=True),
        Field("k", Integer(), "Inner dimension.", positive=True, required=True),
        Field("operands", Enum(("host", "device")),
              "Where A, B and C live: host (copied over the link) or device.", default="device"),
    ),
    "generate": COMMON_WORKLOAD + (
        Field("model", Ref("model"), "Model id.", required=True),
        Field("kv_precision", Enum(PRECISIONS), "KV cache precision (default: precision)."),
        Field("batch", Integer(), "Sequences decoded together.", positive=True, default=1),
        Field("devices", PerDevice(Integer()),
              "Devices serving one replica together (tensor parallel): a number, or one per device id.",
              positive=True, default=1),
        Field("parallel", Block(SERVE_PARALLEL), "How the replica's devices split the model (default: tensor "
              "parallel across all of them)."),
        Field("input_tokens", Count(), "Prompt tokens per request.", positive=True, default=1),
        Field("output_tokens", Count(), "Generated tokens per request.", positive=True, default=1),
        Field("traffic", Block(TRAFFIC_FIELDS), "Arrival rate and utilisation."),
        Field("targets", Block(TARGET_FIELDS), "Latency targets."),
        Field("api", Block(API_FIELDS), "A hosted API's prices, for the make-or-buy comparison."),
    ),
    "forward": COMMON_WORKLOAD + (
        Field("model", Ref("model"), "Model id (or give parameters)."),
        Field("parameters", Count(), "Parameters, when no model is named.", positive=True),
        Field("tokens", Count(), "Tokens per request.", positive=True, default=1),
        Field("batch", Integer(), "Requests processed together.", positive=True, default=1),
        Field("devices", PerDevice(Integer()), "Devices serving one replica together (tensor parallel).",
              positive=True, default=1),
        Field("traffic", Block(TRAFFIC_FIELDS), "Arrival rate and utilisation."),
        Field("targets", Block(TARGET_FIELDS), "Latency targets."),
        Field("batch_job", Block(BATCH_JOB_FIELDS), "A bulk job (e.g. re-indexing)."),
    ),
    "train": COMMON_WORKLOAD + (
        Field("model", Ref("model"), "Model id.", required=True),
        Field("method", Enum(("full", "lora")), "Full fine-tuning or LoRA adapters.", default="full"),
        Field("optimizer", Enum(tuple(OPTIMIZER_STATE_BYTES)),
              "Optimizer (state bytes per parameter: mixed precision, or pure 16-bit for adamw-bf16).",
              default="adam"),
        Field("trainable", Fraction(), "LoRA: trainable share of the parameters.", positive=True,
              maximum=1.0, default=0.01),
        Field("tokens", Count(), "Training tokens.", positive=True, required=True),
        Field("devices", Integer(), "Devices used (default: the fewest that hold the state, or the fewest that "
              "finish by the deadline).", positive=True,
              shape="a training run's devices are one count for every compared device; to try another count, add "
                    "an alternative, e.g. alternatives: {more: {devices: 16}}"),
        Field("deadline", Quantity("duration"), "Time the training must finish in: sets the devices when "
              "`devices` is not given.", positive=True, example="30 day"),
        Field("sequence", Integer(), "Tokens per training sequence (attention work).", positive=True, default=4096),
        Field("batch", Integer(), "Sequences per optimizer step, all devices together.", positive=True, default=512),
        Field("recompute", Bool(), "Activations recomputed in the backward pass (one more forward).",
              default=False),
        Field("parallel", Block(TRAIN_PARALLEL), "How the devices split the model (default: data parallel "
              "across all)."),
    ),
}


def alternative_fields(fields: tuple[Field, ...]) -> tuple[Field, ...]:
    """What an alternative may change: any field of its workload's kind but the kind, each optional and without
    a default (an alternative states only what differs)."""
    return tuple(replace(f, required=False, default=None) for f in fields if f.name not in ("kind", "description"))


WORKLOAD_FIELDS = {kind: fields + (
    Field("alternatives", MapOf(Block(alternative_fields(fields))),
          "Variants of this workload ranked as options beside it, each by an id and what it changes "
          "(`{fp8: {precision: fp8}}`, `{lora: {method: lora}}`, `{tp8: {devices: 8}}`): every decision on the "
          "workload ranks each variant on each device too.", example="{precision: bf16}"),)
    for kind, fields in WORKLOAD_FIELDS.items()}
ALL_WORKLOAD_FIELDS = {f.name: f for fs in WORKLOAD_FIELDS.values() for f in fs}
WORKLOAD = Variants(WORKLOAD_FIELDS, needs={"forward": ("model", "parameters")})

BENCHMARK_FIELDS = (
    Field("file", Text(), "A JSON record file (the reference's format), relative to the scenario."),
    Field("id", Slug(), "Record id (default bench-N)."),
    Field("model", Text(), "Model as recorded."),
    Field("precision", Text(), "Precision as recorded."),
    Field("device", Text(), "Device as recorded."),
    Field("input_tokens", Count(), "Prompt tokens.", positive=True),
    Field("output_tokens", Count(), "Generated tokens.", positive=True),
    Field("batch_size", Count(), "Batch size.", positive=True),
    Field("throughput_output_tokens_per_s", Count(), "Measured output tokens per second.", positive=True),
    Field("latency_ms", MapOf(Count()), "Latency percentiles in ms.", nonnegative=True),
    Field("memory_gb", MapOf(Count()), "Memory allocated / peak used in GB.", nonnegative=True),
    Field("power_w_avg", Count(), "Average power in W.", positive=True),
    Field("hourly_cost_usd", Count(), "Price per device-hour in USD.", positive=True),
    Field("utilisation", Fraction(), "Share of time real traffic keeps the device busy.", positive=True,
          maximum=1.0),
    Field("workload", Ref("workload"), "Scenario workload predicting the same configuration (for calibration)."),
    Field("scenario_device", Ref("device"), "Scenario device the record was measured on (for calibration)."),
)

# Requirement words and the check each names.
REQUIREMENTS = {"fits_memory": "fits", "fits": "fits", "meets_targets": "meets_targets",
                "cloud": "available_cloud", "on-prem": "available_on_prem", "edge": "available_edge"}

BUDGET_FIELDS = (
    Field("monthly", Quantity("money"), "Most an option may cost per month (its monthly cost, the busy hours' or "
          "the API's).", positive=True, example="50000 USD"),
    Field("capex", Quantity("money"), "Most capital an option may need (the purchase of an owned fleet).",
          positive=True, example="2000000 USD"),
    Field("total", Quantity("money"), "Most a training run may cost in all (its `cost`).", positive=True,
          example="50000 USD"),
)

DECISION_FIELDS = (
    Field("title", Text(), "What this decision settles (a heading in the report)."),
    Field("objective", Text(), "Quantity to minimise (or maximise for rates), e.g. cost_per_million_tokens.",
          default="cost_per_million_tokens"),
    Field("workload", Ref("workload"), "Workload whose objective ranks the options (default: first that has it)."),
    Field("require", ListOf(Enum(tuple(REQUIREMENTS), noun="requirement")),
          "Checks every option must pass: fits_memory, meets_targets."),
    Field("budget", Block(BUDGET_FIELDS), "A budget every option must keep within: monthly, capex (serving), total (a training run)."),
    Field("options", ListOf(Enum(("fleet", "busy_hours", "api"), noun="option"), unique=True),
          "Which options are ranked: fleet (each device's fleet, held all month), busy_hours (each device rented "
          "on demand for the hours the average traffic keeps busy), api (the workload's hosted API). Default: all "
          "that the objective prices."),
)

def numeric_workload_fields() -> dict[str, Field]:
    """Every numeric workload field by its path (`batch`, `traffic.peak`): what a sweep may vary."""
    out: dict[str, Field] = {}
    for f in ALL_WORKLOAD_FIELDS.values():
        subs = [(x, f"{f.name}.{x.name}") for x in f.type.fields] if isinstance(f.type, Block) else [(f, f.name)]
        for sub, path in subs:
            if sub.type.numeric:
                out.setdefault(path, sub)
    return out


SWEEP_FIELDS = {
    **numeric_workload_fields(),
    "size": Field("size", Integer(), "Matrix size: m = n = k.", positive=True),
    "precision": Field("precision", Enum(PRECISIONS), "Precision."),
    "utilisation": Field("utilisation", Fraction(), "Average busy share (traffic.utilisation).", positive=True,
                         maximum=1.0),
}
SWEEP_KEYS = tuple(SWEEP_FIELDS)
SWEEP_RANGE = (
    Field("from", Count(), "First value (with a unit where the field has one).", required=True),
    Field("to", Count(), "Last value.", required=True),
    Field("points", Integer(), "Number of points.", positive=True, required=True),
    Field("scale", Enum(("linear", "log")), "Spacing.", default="linear"),
)
SWEEP = SweepOf(SWEEP_FIELDS, SWEEP_RANGE)
MAX_SWEEP_POINTS = 1_000_000      # limits that `build` finishes in under a minute and 2 GB on a 2-core machine:
MAX_SWEPT = 5_000_000            # sweep points x compared devices (1,000,000 x 5 devices: 45 s, 0.8 GB)
MAX_COMPARED = 64                # devices compared at once (64: 35 s, 0.5 GB)
MAX_PAIRS = 128                  # workloads (alternatives included) x compared devices (64 x 2: 35 s, 0.6 GB)
MAX_GRID_CELLS = 400             # a two-field sweep: each cell is a decision

UNCERTAINTY_FIELDS = (
    Field("draws", Integer(), f"How many draws of the inputs are evaluated (at most {MAX_DRAWS:,}).",
          default=DEFAULT_DRAWS, positive=True, maximum=MAX_DRAWS),
    Field("seed", Integer(), "The random generator's seed: the same seed gives the same draws and the same outputs, "
          "byte for byte.", default=1, nonnegative=True),
    Field("inputs", Text(), "Each uncertain input's range by field path, e.g. `devices.mi300x.price: {low: 1.5 "
          "USD/hour, high: 2.6 USD/hour}`; `*` stands for every id (a path naming the id wins over it). "
          f"{SHAPE_HELP[0].upper()}{SHAPE_HELP[1:]}: inputs of one group move together (they share each draw).",
          required=True),
)

TOP_FIELDS = (
    Field("sizing", Integer(choices=(1,)), "Format version: 1.", required=True),
    Field("name", Slug(), "Scenario id: a-z 0-9 -.", required=True),
    Field("title", Text(), "Title of the decision."),
    Field("description", Prose(), "Free text."),
    Field("owner", Text(), "Who owns the decision (the report's author and its sign-off's first line).",
          example="Platform architecture"),
    Field("reviewer", Text(), "Who reviewed the decision (signs the report second).", example="Finance, J. Doe"),
    Field("approver", Text(), "Who approves the purchase (signs the report last).", example="CTO"),
    Field("date", Date(), "Date of the scenario, YYYY-MM-DD."),
    Field("status", Enum(("draft", "review", "final")), "Status of the decision: a final one needs an owner."),
    Field("currency", Currency(), "The currency of every amount in the scenario (ISO 4217 code; no conversion): "
          "prices and costs are written and shown in it.", default="USD", example="EUR"),
    Field("devices", Entries(Block(DEVICE_FIELDS)), "Devices by id.", required=True),
    Field("models", Entries(Block(MODEL_FIELDS)), "Models by id."),
    Field("workloads", Entries(WORKLOAD), "Workloads by id.", required=True),
    Field("compare", ListOf(Ref("device"), unique=True), "Devices each workload is evaluated on (default: all)."),
    Field("sweep", SWEEP, "One workload field swept over values, e.g. {batch: [1, 8, 64]}; or two, a grid: "
          "{batch: [1, 8, 64], precision: [bf16, fp8]} (rows, then columns)."),
    Field("decision", OneOrList(Block(DECISION_FIELDS)), "How the options are ranked: one block, or a list of "
          "blocks, one per workload decided (each with `workload:`)."),
    Field("benchmarks", ListOf(Block(BENCHMARK_FIELDS)), "Measured records."),
    Field("uncertainty", RangesOf(UNCERTAINTY_FIELDS), "Ranges on inputs (prices, efficiencies, traffic): the "
          "scenario is evaluated over many draws, and every output says how likely each option is to be the "
          "recommendation."),
)
TOP = {f.name: f for f in TOP_FIELDS}
