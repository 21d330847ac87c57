"""The scenario language: declarative field specs, checking a loaded tree, and its JSON Schema."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, replace
from typing import Any

from .errors import Problem
from .kinds import WORKLOAD_KINDS
from .loader import Mapping, Node, Scalar, Sequence
from .units import KINDS, UnitError, parse_fraction, parse_number, parse_quantity

PRECISION_BYTES = {"fp64": 8.0, "fp32": 4.0, "tf32": 4.0, "bf16": 2.0, "fp16": 2.0,
                   "fp8": 1.0, "int8": 1.0, "fp4": 0.5, "int4": 0.5}
PRECISIONS = tuple(PRECISION_BYTES)
DEVICE_KINDS = ("cpu", "gpu", "tpu", "npu", "accelerator")
DEPLOYMENTS = ("cloud", "on-prem", "edge")
# Bytes of training state per trainable parameter (mixed precision: 16-bit weights and
# gradients, fp32 master copy, optimizer moments).
OPTIMIZER_STATE_BYTES = {"adam": 16.0, "adamw": 16.0, "adam8bit": 10.0, "sgd": 12.0}
MAX_TEXT = 4000
SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


@dataclass(frozen=True)
class Field:
    """One key of the language: its type, meaning, default and limits."""

    name: str
    type: str                 # see CHECKERS; "quantity:<kind>", "block", "map:<type>", "list:<type>"
    doc: str
    required: bool = False
    default: Any = None
    choices: tuple = ()
    positive: bool = False    # strictly greater than zero
    nonnegative: bool = False
    maximum: float | None = None
    fields: tuple["Field", ...] = ()
    keys: tuple = ()          # allowed keys of a map (e.g. precisions)
    example: str = ""


@dataclass(frozen=True)
class Value:
    """A checked value in SI base units, with where it came from."""

    value: Any
    unit: str | None
    text: str
    file: str
    line: int
    col: int
    source: str

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass
class Entity:
    """A device, model, workload or benchmark record: flat field paths to values."""

    kind: str
    id: str
    values: dict[str, Value] = field(default_factory=dict)
    line: int = 1
    col: int = 1

    def get(self, path: str, default: Any = None) -> Any:
        v = self.values.get(path)
        return default if v is None else v.value

    def has(self, path: str) -> bool:
        return path in self.values


@dataclass
class Scenario:
    """A checked scenario: SI values, resolved catalog entries, cross-references verified."""

    file: str
    data: bytes
    meta: dict[str, Value]
    devices: dict[str, Entity]
    models: dict[str, Entity]
    workloads: dict[str, Entity]
    compare: list[str]
    sweep: Entity | None
    decision: Entity | None
    benchmarks: list[Entity]
    catalog_used: dict[str, Entity] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.meta["name"].value

    @property
    def title(self) -> str:
        return self.meta["title"].value if "title" in self.meta else self.name


def q(kind: str) -> str:
    return f"quantity:{kind}"


SOURCE_ENTRY = (
    Field("title", "text", "What the source is.", required=True),
    Field("url", "text", "Where it is."),
    Field("date", "text", "When: YYYY, YYYY-MM or YYYY-MM-DD."),
    Field("repo", "text", "Repository (owner/name)."),
    Field("path", "text", "File in the repository."),
    Field("commit", "text", "Commit of the file."),
    Field("note", "text", "Remark."),
)

SOURCE_FIELDS = (
    Field("source", "text", "Where the entry's figures come from, in a few words."),
    Field("sources", "list:source", "Where the figures come from (title, url, date, repo, path, commit, note)."),
    Field("field_sources", "map:text", "Per-figure source, keyed by field path, where one figure came from elsewhere."),
    Field("illustrative", "bool", "The figures are invented round numbers (the reference's), not a product's."),
    Field("unverified", "list:text", "Figures without a firm source."),
    Field("notes", "text", "Free text."),
)

LINK_FIELDS = (
    Field("bandwidth", q("bandwidth"), "Host link bandwidth per direction.", positive=True, example="25 GB/s"),
    Field("copy_overhead", q("duration"), "Fixed time per copy call.", nonnegative=True, example="10 us"),
    Field("launch_overhead", q("duration"), "Fixed time to launch a kernel.", nonnegative=True, example="8 us"),
)

COST_FIELDS = (
    Field("reserved_discount", "fraction", "Committed-use discount on the hourly price.", nonnegative=True,
          maximum=1.0, default=0.0),
    Field("purchase", q("money"), "On-premises purchase price per device (with its share of the server).",
          positive=True, example="30000 USD"),
    Field("amortisation", q("duration"), "Period over which the purchase is written off.", positive=True,
          default="3 year", example="3 year"),
    Field("electricity", q("energy_price"), "Electricity price.", nonnegative=True, example="0.12 USD/kWh"),
    Field("pue", "count", "Power usage effectiveness of the data centre (>= 1).", positive=True, default=1.0),
    Field("hosting", q("hourly_price"), "Hosting per device (rack, network, staff).", nonnegative=True,
          example="150 USD/month"),
)

CPU_FIELDS = (
    Field("cores", "integer", "Physical cores.", positive=True, required=True),
    Field("fma_units", "integer", "Vector fused multiply-add units per core.", positive=True, required=True),
    Field("vector_width", q("width"), "Vector register width.", positive=True, required=True, example="256 bit"),
    Field("clock", q("frequency"), "Sustained clock.", positive=True, required=True, example="3 GHz"),
)

DEVICE_FIELDS = (
    Field("from", "catalog:device", "Start from a built-in catalog entry and override fields."),
    Field("name", "text", "Display name."),
    Field("kind", "enum", "Device class.", choices=DEVICE_KINDS, default="accelerator"),
    Field("compute", f"map:{q('compute_rate')}", "Peak dense rate per precision.", keys=PRECISIONS,
          positive=True, example="200 TFLOP/s"),
    Field("efficiency", "fraction", "Delivered / peak rate where no delivered rate is given.",
          positive=True, maximum=1.0, default=1.0),
    Field("delivered", f"map:{q('compute_rate')}", "Delivered (measured or assumed) rate per precision.",
          keys=PRECISIONS, positive=True, example="100 TFLOP/s"),
    Field("memory", q("memory"), "Device memory capacity.", positive=True, example="80 GB"),
    Field("memory_bandwidth", q("bandwidth"), "Device memory bandwidth.", positive=True, example="2 TB/s"),
    Field("link", "block", "Host link; omit when data is already local.", fields=LINK_FIELDS),
    Field("matrix_unit", "integer", "Matrix unit tile edge; dimensions are padded to multiples.", positive=True),
    Field("price", q("hourly_price"), "Rental price per device-hour.", positive=True, example="2.00 USD/hour"),
    Field("costs", "block", "Rental discount and on-premises costs.", fields=COST_FIELDS),
    Field("bandwidth_efficiency", "fraction", "Delivered / peak memory bandwidth.", positive=True, maximum=1.0,
          default=1.0),
    Field("power", q("power"), "Power draw.", positive=True, example="450 W"),
    Field("deployment", "list:enum", "Where it can be had.", choices=DEPLOYMENTS),
    Field("cpu", "block", "CPU micro-architecture: fp32 peak = cores x fma_units x lanes x 2 x clock.",
          fields=CPU_FIELDS),
    Field("vendor", "text", "Vendor."),
    Field("year", "integer", "Year of introduction.", positive=True),
    Field("sparse_note", "text", "Vendor's sparse figures, kept as a note only."),
    Field("sparse", f"map:{q('compute_rate')}", "Vendor's figures with 2:4 structured sparsity: recorded, never used.",
          keys=PRECISIONS, positive=True, example="1979 TFLOP/s"),
) + SOURCE_FIELDS

MODEL_FIELDS = (
    Field("from", "catalog:model", "Start from a built-in catalog entry and override fields."),
    Field("config", "text", "A local Hugging Face config.json (relative to the scenario) to read the fields from."),
    Field("name", "text", "Display name."),
    Field("parameters", "count", "Total parameters (weights memory).", positive=True, example="7e9"),
    Field("active_parameters", "count", "Parameters used per token (mixture-of-experts).", positive=True),
    Field("layers", "integer", "Transformer layers.", positive=True),
    Field("hidden", "integer", "Hidden size.", positive=True),
    Field("heads", "integer", "Attention heads.", positive=True),
    Field("kv_heads", "integer", "Key/value heads (grouped-query attention when fewer than heads).", positive=True),
    Field("head_dim", "integer", "Dimension per head (default hidden / heads).", positive=True),
    Field("context", "integer", "Maximum context in tokens.", positive=True),
    Field("kv_lora_rank", "integer", "Multi-head latent attention: latent KV rank.", positive=True),
    Field("qk_rope_head_dim", "integer", "Multi-head latent attention: decoupled RoPE key dimension.", positive=True),
    Field("intermediate", "integer", "Feed-forward size.", positive=True),
    Field("vocab", "integer", "Vocabulary size.", positive=True),
    Field("experts", "integer", "Routed experts (mixture-of-experts).", positive=True),
    Field("experts_per_token", "integer", "Experts active per token.", positive=True),
    Field("sliding_window", "integer", "Sliding attention window in tokens.", positive=True),
    Field("hf_repo", "text", "Hugging Face repository."),
) + SOURCE_FIELDS

TRAFFIC_FIELDS = (
    Field("peak", q("request_rate"), "Peak arrival rate.", positive=True, example="20 request/s"),
    Field("average", q("request_rate"), "Average arrival rate (sets the utilisation that prices idle time).",
          positive=True, example="8 request/s"),
    Field("utilisation", "fraction", "Average busy fraction of the devices (prices idle time).",
          positive=True, maximum=1.0, default=1.0),
    Field("max_utilisation", "fraction", "Highest planned utilisation at the peak (headroom).",
          positive=True, maximum=1.0, default=1.0),
    Field("redundancy", "integer", "Extra replicas beyond the peak's need (N+k).", nonnegative=True, default=0),
)

TARGET_FIELDS = (
    Field("per_token_p95", q("duration"), "Per-token (decode step) time target.", positive=True, example="50 ms"),
    Field("ttft_p95", q("duration"), "Time to first token target.", positive=True, example="1 s"),
    Field("latency_p95", q("duration"), "Request latency target.", positive=True, example="30 ms"),
)

API_FIELDS = (
    Field("output_price", q("token_price"), "API price per output token.", positive=True, required=True,
          example="0.90 USD/Mtoken"),
    Field("input_price", q("token_price"), "API price per input token.", nonnegative=True,
          example="0.30 USD/Mtoken"),
)

BATCH_JOB_FIELDS = (
    Field("items", "count", "Items in the bulk job.", positive=True, required=True),
    Field("tokens", "count", "Tokens per item.", positive=True, required=True),
)

COMMON_WORKLOAD = (
    Field("kind", "enum", "Workload kind.", choices=WORKLOAD_KINDS, required=True),
    Field("title", "text", "Display title."),
    Field("description", "text", "Free text."),
    Field("precision", "enum", "Numeric precision of weights and compute.", choices=PRECISIONS),
)

WORKLOAD_FIELDS = {
    "matmul": COMMON_WORKLOAD + (
        Field("m", "integer", "Rows of A and C.", positive=True, required=True),
        Field("n", "integer", "Columns of B and C.", positive=True, required=True),
        Field("k", "integer", "Inner dimension.", positive=True, required=True),
        Field("operands", "enum", "Where A, B and C live: host (copied over the link) or device.",
              choices=("host", "device"), default="device"),
    ),
    "generate": COMMON_WORKLOAD + (
        Field("model", "ref:model", "Model id.", required=True),
        Field("kv_precision", "enum", "KV cache precision (default: precision).", choices=PRECISIONS),
        Field("batch", "integer", "Sequences decoded together.", positive=True, default=1),
        Field("devices", "per_device:integer",
              "Devices serving one replica together (tensor parallel): a number, or one per device id.",
              positive=True, default=1),
        Field("input_tokens", "count", "Prompt tokens per request.", positive=True, default=1),
        Field("output_tokens", "count", "Generated tokens per request.", positive=True, default=1),
        Field("traffic", "block", "Arrival rate and utilisation.", fields=TRAFFIC_FIELDS),
        Field("targets", "block", "Latency targets.", fields=TARGET_FIELDS),
        Field("api", "block", "A hosted API's prices, for the make-or-buy comparison.", fields=API_FIELDS),
    ),
    "forward": COMMON_WORKLOAD + (
        Field("model", "ref:model", "Model id (or give parameters)."),
        Field("parameters", "count", "Parameters, when no model is named.", positive=True),
        Field("tokens", "count", "Tokens per request.", positive=True, default=1),
        Field("traffic", "block", "Arrival rate and utilisation.", fields=TRAFFIC_FIELDS),
        Field("targets", "block", "Latency targets.", fields=TARGET_FIELDS),
        Field("batch_job", "block", "A bulk job (e.g. re-indexing).", fields=BATCH_JOB_FIELDS),
    ),
    "train": COMMON_WORKLOAD + (
        Field("model", "ref:model", "Model id.", required=True),
        Field("method", "enum", "Full fine-tuning or LoRA adapters.", choices=("full", "lora"), default="full"),
        Field("optimizer", "enum", "Optimizer (mixed precision state bytes per parameter).",
              choices=tuple(OPTIMIZER_STATE_BYTES), default="adam"),
        Field("trainable", "fraction", "LoRA: trainable share of the parameters.", positive=True,
              maximum=1.0, default=0.01),
        Field("tokens", "count", "Training tokens.", positive=True, required=True),
        Field("devices", "integer", "Devices used (default: the fewest that hold the state).", positive=True),
    ),
}
ALL_WORKLOAD_FIELDS = {f.name: f for fs in WORKLOAD_FIELDS.values() for f in fs}

BENCHMARK_FIELDS = (
    Field("file", "text", "A JSON record file (the reference's format), relative to the scenario."),
    Field("id", "slug", "Record id (default bench-N)."),
    Field("model", "text", "Model as recorded."),
    Field("precision", "text", "Precision as recorded."),
    Field("device", "text", "Device as recorded."),
    Field("input_tokens", "count", "Prompt tokens.", positive=True),
    Field("output_tokens", "count", "Generated tokens.", positive=True),
    Field("batch_size", "count", "Batch size.", positive=True),
    Field("throughput_output_tokens_per_s", "count", "Measured output tokens per second.", positive=True),
    Field("latency_ms", "map:count", "Latency percentiles in ms.", nonnegative=True),
    Field("memory_gb", "map:count", "Memory allocated / peak used in GB.", nonnegative=True),
    Field("power_w_avg", "count", "Average power in W.", positive=True),
    Field("hourly_cost_usd", "count", "Price per device-hour in USD.", positive=True),
    Field("utilisation", "fraction", "Share of time real traffic keeps the device busy.", positive=True,
          maximum=1.0),
    Field("workload", "ref:workload", "Scenario workload predicting the same configuration (for calibration)."),
    Field("scenario_device", "ref:device", "Scenario device the record was measured on (for calibration)."),
)

# Requirement words and the check each names.
REQUIREMENTS = {"fits_memory": "fits", "fits": "fits", "meets_targets": "meets_targets",
                "cloud": "available_cloud", "on-prem": "available_on_prem", "edge": "available_edge"}

DECISION_FIELDS = (
    Field("objective", "text", "Quantity to minimise (or maximise for rates), e.g. cost_per_million_tokens.",
          default="cost_per_million_tokens"),
    Field("workload", "ref:workload", "Workload whose objective ranks the options (default: first that has it)."),
    Field("require", "list:text", "Checks every option must pass: fits_memory, meets_targets."),
)

TOP_FIELDS = (
    Field("sizing", "integer", "Format version: 1.", required=True, choices=(1,)),
    Field("name", "slug", "Scenario id: a-z 0-9 -.", required=True),
    Field("title", "text", "Title of the decision."),
    Field("description", "text", "Free text."),
    Field("owner", "text", "Who owns the decision."),
    Field("date", "date", "Date of the scenario, YYYY-MM-DD."),
    Field("status", "enum", "Status of the decision.", choices=("draft", "review", "final")),
    Field("devices", "map:device", "Devices by id.", required=True),
    Field("models", "map:model", "Models by id."),
    Field("workloads", "map:workload", "Workloads by id.", required=True),
    Field("compare", "list:ref:device", "Devices each workload is evaluated on (default: all)."),
    Field("sweep", "sweep", "One workload field swept over values, e.g. {batch: [1, 8, 64]}."),
    Field("decision", "block", "How the options are ranked.", fields=DECISION_FIELDS),
    Field("benchmarks", "list:benchmark", "Measured records."),
)

NUMERIC_TYPES = ("count", "integer", "fraction")


def numeric_workload_fields() -> dict[str, Field]:
    """Every numeric workload field by its path (`batch`, `traffic.peak`): what a sweep may vary."""
    out: dict[str, Field] = {}
    for f in ALL_WORKLOAD_FIELDS.values():
        for sub, path in ([(x, f"{f.name}.{x.name}") for x in f.fields] if f.type == "block" else [(f, f.name)]):
            if sub.type in NUMERIC_TYPES or sub.type.startswith("quantity:"):
                out.setdefault(path, sub)
    return out


SWEEP_FIELDS = {
    **numeric_workload_fields(),
    "size": Field("size", "integer", "Matrix size: m = n = k.", positive=True),
    "precision": Field("precision", "enum", "Precision.", choices=PRECISIONS),
    "utilisation": Field("utilisation", "fraction", "Average busy share (traffic.utilisation).", positive=True,
                         maximum=1.0),
}
SWEEP_KEYS = tuple(SWEEP_FIELDS)
SWEEP_RANGE = (
    Field("from", "count", "First value (with a unit where the field has one).", required=True),
    Field("to", "count", "Last value.", required=True),
    Field("points", "integer", "Number of points.", positive=True, required=True),
    Field("scale", "enum", "Spacing.", choices=("linear", "log"), default="linear"),
)
MAX_SWEEP_POINTS = 10_000_000


class Checker:
    """Walks a loaded tree against the field specs, collecting every problem."""

    def __init__(self, file: str, source: str = "scenario"):
        self.file = file
        self.source = source
        self.problems: list[Problem] = []

    def problem(self, node: Node | Scalar, path: str, message: str, level: str = "error") -> None:
        self.problems.append(Problem(self.file, node.line, node.col, path, message, level))

    def value(self, node: Scalar, v: Any, unit: str | None) -> Value:
        src = self.source if self.source != "scenario" else f"scenario line {node.line}"
        return Value(v, unit, node.text, self.file, node.line, node.col, src)

    # -- blocks --------------------------------------------------------------------------
    def block(self, node: Node, fields: tuple[Field, ...], path: str, out: dict[str, Value],
              prefix: str = "", extra: tuple[Field, ...] = ()) -> None:
        """Check a mapping against fields; store leaves into out under prefix-joined paths."""
        if not isinstance(node, Mapping):
            self.problem(node, path, f"expected a mapping of {', '.join(f.name for f in fields[:4])}, ...")
            return
        spec = {f.name: f for f in fields + extra}
        for key, child in node.entries:
            sub = f"{path}.{key.text}" if path else key.text
            f = spec.get(key.text)
            if f is None:
                self.unknown(key, sub, list(spec))
                continue
            self.field(child, f, sub, out, f"{prefix}{f.name}")
        self.require(node, fields, path)

    def require(self, node: Mapping, fields: tuple[Field, ...], path: str) -> None:
        for f in fields:
            if f.required and node.get(f.name) is None:
                example = f", e.g. '{f.example}'" if f.example else ""
                what = f.doc[0].lower() + f.doc[1:].rstrip(".")
                self.problem(node, path, f"missing required field '{f.name}': {what}{example}")

    def unknown(self, key: Scalar, path: str, known: list[str]) -> None:
        close = difflib.get_close_matches(key.text, known, n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'?" if close else f"expected one of: {', '.join(sorted(known))}"
        self.problem(key, path, f"unknown key '{key.text}'; {hint}")

    def field(self, node: Node, f: Field, path: str, out: dict[str, Value], key: str) -> None:
        if f.type.startswith("per_device:"):
            # one value for every device, or a mapping of device ids to values
            f = replace(f, type=("map:" if isinstance(node, Mapping) else "") + f.type[11:])
        if f.type == "block":
            self.block(node, f.fields, path, out, prefix=f"{key}.")
        elif f.type.startswith("map:"):
            self.map_of(node, f, path, out, key)
        elif f.type.startswith("list:"):
            self.list_of(node, f, path, out, key)
        else:
            v = self.leaf(node, f, path)
            if v is not None:
                out[key] = v

    def map_of(self, node: Node, f: Field, path: str, out: dict[str, Value], key: str) -> None:
        if not isinstance(node, Mapping):
            self.problem(node, path, f"expected a mapping, e.g. {{bf16: {f.example or '1'}}}")
            return
        inner = Field(f.name, f.type[4:], f.doc, positive=f.positive, nonnegative=f.nonnegative,
                      example=f.example)
        for k, child in node.entries:
            sub = f"{path}.{k.text}"
            if f.keys and k.text not in f.keys:
                self.unknown(k, sub, list(f.keys))
                continue
            v = self.leaf(child, inner, sub)
            if v is not None:
                out[f"{key}.{k.text}"] = v

    def list_of(self, node: Node, f: Field, path: str, out: dict[str, Value], key: str) -> None:
        if isinstance(node, Scalar) and not node.quoted and node.text in ("[]",):
            return
        if not isinstance(node, Sequence):
            self.problem(node, path, "expected a list, e.g. [a, b]")
            return
        inner = Field(f.name, f.type[5:], f.doc, choices=f.choices)
        for i, child in enumerate(node.items):
            if inner.type == "source":
                self.block(child, SOURCE_ENTRY, f"{path}[{i}]", out, prefix=f"{key}[{i}].")
                continue
            v = self.leaf(child, inner, f"{path}[{i}]")
            if v is not None:
                out[f"{key}[{i}]"] = v

    # -- leaves --------------------------------------------------------------------------
    def leaf(self, node: Node, f: Field, path: str) -> Value | None:
        if not isinstance(node, Scalar):
            what = "a mapping" if isinstance(node, Mapping) else "a list"
            self.problem(node, path, f"expected {describe(f)}, got {what}")
            return None
        if node.text == "" and not node.quoted:
            self.problem(node, path, f"no value given; expected {describe(f)}")
            return None
        try:
            v, unit = parse_leaf(node, f)
        except UnitError as e:
            self.problem(node, path, str(e))
            return None
        if not self.in_range(node, f, path, v):
            return None
        return self.value(node, v, unit)

    def in_range(self, node: Scalar, f: Field, path: str, v: Any) -> bool:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return True
        if f.positive and v <= 0:
            self.problem(node, path, f"must be greater than zero, got '{node.text}'")
            return False
        if f.nonnegative and v < 0:
            self.problem(node, path, f"must not be negative, got '{node.text}'")
            return False
        if f.maximum is not None and v > f.maximum:
            limit = f"{f.maximum:.0%}" if f.type == "fraction" else f"{f.maximum:g}"
            self.problem(node, path, f"must be at most {limit}, got '{node.text}'")
            return False
        return True


def describe(f: Field) -> str:
    """A short noun phrase for what a field expects, used in messages."""
    t = f.type
    if t.startswith("quantity:"):
        k = KINDS[t[9:]]
        return f"{k.noun} like '{k.example}'"
    return {
        "count": "a number like 7e9", "integer": "a whole number", "fraction": "a fraction like 40 % or 0.4",
        "bool": "true or false", "date": "a date 'YYYY-MM-DD'", "slug": "an id of a-z, 0-9 and -",
    }.get(t, "one of: " + ", ".join(map(str, f.choices)) if f.choices else "text")


def real_date(text: str) -> bool:
    import datetime as dt

    try:
        return dt.date.fromisoformat(text) is not None
    except ValueError:
        return False


def check_text(text: str) -> None:
    if CONTROL.search(text):
        raise UnitError("contains a control character or an unpaired surrogate; remove it")
    if len(text) > MAX_TEXT:
        raise UnitError(f"is {len(text):,} characters long; the limit is {MAX_TEXT:,}")


def parse_leaf(node: Scalar, f: Field) -> tuple[Any, str | None]:
    """Interpret a scalar's raw text for a field type; raise UnitError with the message."""
    t, text = f.type, node.text
    if t.startswith("quantity:"):
        kind = t[9:]
        return parse_quantity(text, kind), KINDS[kind].si_unit
    if t in ("count", "integer"):
        n = parse_number(text, integer=(t == "integer"))
        if f.choices and n not in f.choices:
            raise UnitError(f"expected one of {', '.join(map(str, f.choices))}, got '{text}'")
        return n, ""
    if t == "fraction":
        return parse_fraction(text), ""
    if t == "bool":
        if text not in ("true", "false"):
            raise UnitError(f"expected true or false, got '{text}'")
        return text == "true", None
    check_text(text)
    if t == "enum":
        if text not in f.choices:
            exact = [str(c) for c in f.choices if str(c).lower() == text.lower()]
            close = exact or difflib.get_close_matches(text.lower(), [str(c) for c in f.choices], n=1, cutoff=0.5)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise UnitError(f"{hint}expected one of: {', '.join(map(str, f.choices))}; got '{text}'")
    elif t == "slug" and not SLUG.match(text):
        raise UnitError(f"expected an id of lower-case letters, digits, '.', '_' and '-', got '{text}'")
    elif t == "date" and not DATE.match(text):
        raise UnitError(f"expected a date 'YYYY-MM-DD', got '{text}'")
    elif t == "date" and not real_date(text):
        raise UnitError(f"'{text}' is not a calendar date")
    return text, None


# -- JSON Schema ----------------------------------------------------------------------------
QUANTITY_PATTERN = r"^\$?[-+]?[0-9][0-9_]*(\.[0-9]+)?([eE][-+]?[0-9]+)?\s*\S.*$"
NUMBER_PATTERN = r"^[-+]?[0-9][0-9_]*(\.[0-9]+)?([eE][-+]?[0-9]+)?$"


def json_type(f: Field) -> dict:
    """The JSON Schema of one field (editors complete and check scenario files with it)."""
    t = f.type
    doc = {"description": f.doc}
    if t.startswith("quantity:"):
        k = KINDS[t[9:]]
        return {**doc, "type": "string", "pattern": QUANTITY_PATTERN, "examples": [f.example or k.example]}
    if t in ("count", "integer"):
        return {**doc, "anyOf": [{"type": "number"}, {"type": "string", "pattern": NUMBER_PATTERN}]}
    if t == "fraction":
        return {**doc, "anyOf": [{"type": "number", "minimum": 0, "maximum": 1},
                                 {"type": "string", "pattern": r"^[0-9.]+\s*%$"}]}
    if t == "bool":
        return {**doc, "type": "boolean"}
    if t == "enum":
        return {**doc, "enum": list(f.choices)}
    if t in ("slug", "ref:device", "ref:model", "ref:workload", "catalog:device", "catalog:model"):
        return {**doc, "type": "string", "pattern": SLUG.pattern}
    if t == "date":
        return {**doc, "type": "string", "pattern": DATE.pattern}
    if t == "block":
        return {**doc, **object_schema(f.fields)}
    if t.startswith("map:"):
        inner = json_type(Field(f.name, t[4:], f.doc, choices=f.choices, fields=f.fields))
        if f.keys:
            return {**doc, "type": "object", "properties": {k: inner for k in f.keys}, "additionalProperties": False}
        return {**doc, "type": "object", "additionalProperties": inner}
    if t.startswith("list:"):
        inner = json_type(Field(f.name, t[5:], f.doc, choices=f.choices))
        return {**doc, "type": "array", "items": inner}
    if t == "source":
        return object_schema(SOURCE_ENTRY)
    if t.startswith("per_device:"):
        one = json_type(replace(f, type=t[11:]))
        return {**doc, "anyOf": [one, {"type": "object", "additionalProperties": one}]}
    return {**doc, "type": "string", "maxLength": MAX_TEXT}


def object_schema(fields: tuple[Field, ...]) -> dict:
    return {"type": "object", "properties": {f.name: json_type(f) for f in fields},
            "required": [f.name for f in fields if f.required], "additionalProperties": False}


def json_schema() -> dict:
    """JSON Schema (draft 2020-12) of the scenario language v1."""
    workload_variants = []
    for kind, fields in WORKLOAD_FIELDS.items():
        s = object_schema(fields)
        s["properties"]["kind"] = {"const": kind, "description": "Workload kind."}
        workload_variants.append(s)
    top = object_schema(TOP_FIELDS)
    props = top["properties"]
    props["sizing"] = {"const": 1, "description": "Format version: 1."}
    props["devices"] = {"type": "object", "description": "Devices by id.",
                        "additionalProperties": object_schema(DEVICE_FIELDS)}
    props["models"] = {"type": "object", "description": "Models by id.",
                       "additionalProperties": object_schema(MODEL_FIELDS)}
    props["workloads"] = {"type": "object", "description": "Workloads by id.",
                          "additionalProperties": {"oneOf": workload_variants}}
    props["sweep"] = {"type": "object", "description": "One workload field swept over values.",
                      "properties": {**{k: {"oneOf": [{"type": "array"}, object_schema(SWEEP_RANGE)]}
                                        for k in SWEEP_KEYS}, "workload": {"type": "string"}},
                      "additionalProperties": False}
    props["benchmarks"] = {"type": "array", "items": object_schema(BENCHMARK_FIELDS)}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://sizing.invalid/schema/v1.json", "title": "sizing scenario (v1)", **top}
