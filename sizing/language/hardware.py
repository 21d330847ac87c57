"""The scenario language's devices and models: precisions and their bytes, device kinds, and the keys of a device,
its links, interconnect, network and costs, and of a model."""

from __future__ import annotations

from .field import Field
from .types import Block, Bool, CatalogRef, Count, Enum, Fraction, Integer, ListOf, MapOf, Prose, Quantity, Text

PRECISION_BYTES = {"fp64": 8.0, "fp32": 4.0, "tf32": 4.0, "bf16": 2.0, "fp16": 2.0,
                   "fp8": 1.0, "int8": 1.0, "fp4": 0.5, "int4": 0.5,
                   # Grouped weight-only formats: the weights plus a 16-bit scale per group (and a 4-bit zero
                   # point per group where asymmetric), dequantised to 16-bit before the arithmetic.
                   "q8_0": 8.5 / 8,                  # llama.cpp: 32 int8 weights + one fp16 scale
                   "q4_0": 4.5 / 8,                  # llama.cpp: 32 int4 weights + one fp16 scale
                   "int4-g32": (4 + 20 / 32) / 8,    # GPTQ/AWQ style, group 32: fp16 scale + 4-bit zero point
                   "int4-g128": (4 + 20 / 128) / 8}  # GPTQ/AWQ style, group 128
PRECISIONS = tuple(PRECISION_BYTES)
# Weight-only formats and the precision their arithmetic (and their KV cache) runs at.
WEIGHT_ONLY = {"q8_0": "fp16", "q4_0": "fp16", "int4-g32": "fp16", "int4-g128": "fp16"}


def compute_precision(precision: str) -> str:
    """The precision whose peak rate a format's arithmetic runs at (weight-only formats dequantise)."""
    return WEIGHT_ONLY.get(precision, precision)
DEVICE_KINDS = ("cpu", "gpu", "tpu", "npu", "accelerator")
DEPLOYMENTS = ("cloud", "on-prem", "edge")


SOURCE_ENTRY = (
    Field("title", Text(), "What the source is.", required=True),
    Field("url", Text(), "Where it is."),
    Field("date", Text(), "When: YYYY, YYYY-MM or YYYY-MM-DD."),
    Field("repo", Text(), "Repository (owner/name)."),
    Field("path", Text(), "File in the repository."),
    Field("commit", Text(), "Commit of the file."),
    Field("note", Prose(), "Remark."),
)

SOURCE_FIELDS = (
    Field("source", Prose(), "Where the entry's figures come from, in a few words."),
    Field("sources", ListOf(Block(SOURCE_ENTRY)),
          "Where the figures come from (title, url, date, repo, path, commit, note)."),
    Field("field_sources", MapOf(Text()),
          "Per-figure source, keyed by field path, where one figure came from elsewhere."),
    Field("illustrative", Bool(), "The figures are invented round numbers (the reference's), not a product's."),
    Field("unverified", ListOf(Text()), "Figures without a firm source; a note headed by the fields it is about "
          "('compute.int8: ...') is a risk only of the options those fields move."),
    Field("notes", Prose(), "Free text."),
)

LINK_FIELDS = (
    Field("bandwidth", Quantity("bandwidth"), "Host link bandwidth per direction.", positive=True, example="25 GB/s"),
    Field("copy_overhead", Quantity("duration"), "Fixed time per copy call.", nonnegative=True, example="10 us"),
    Field("launch_overhead", Quantity("duration"), "Fixed time to launch a kernel.", nonnegative=True,
          example="8 us"),
)

INTERCONNECT_FIELDS = (
    Field("bandwidth", Quantity("bandwidth"), "Scale-up fabric bandwidth per device, one direction.", positive=True,
          required=True, example="450 GB/s"),
    Field("latency", Quantity("duration"), "Fixed time per collective step (small-message latency).", nonnegative=True,
          default="0 s", example="5 us"),
    Field("domain", Integer(), "Devices that share the scale-up fabric (e.g. 8 on an HGX board).", positive=True,
          default=1),
    Field("topology", Enum(("switch", "mesh")), "switch: every device reaches any other at the whole bandwidth "
          "(NVLink through NVSwitch); mesh: the bandwidth is links spread evenly over the domain's other devices, so "
          "a collective over fewer of them uses only their share (Gaudi, Instinct boards). Default switch."),
)

NETWORK_FIELDS = (
    Field("bandwidth", Quantity("bandwidth"), "Scale-out network bandwidth per device, one direction.", positive=True,
          required=True, example="50 GB/s"),
    Field("latency", Quantity("duration"), "Fixed time per message across the network.", nonnegative=True,
          default="0 s", example="10 us"),
)

COST_FIELDS = (
    Field("basis", Enum(("cheapest", "rent", "reserved", "own")), "How every total costs the device: the cheapest of "
          "those priced, or forced: rent (the hourly price on demand), reserved (less the commitment discount), own "
          "(purchase amortised + running costs).", default="cheapest"),
    Field("reserved_discount", Fraction(), "Committed-use discount on the hourly price.", nonnegative=True,
          maximum=1.0, default=0.0),
    Field("purchase", Quantity("money"), "On-premises purchase price per device (with its share of the server).",
          positive=True, example="30000 USD"),
    Field("amortisation", Quantity("duration"), "Period over which the purchase is written off.", positive=True,
          default="3 year", example="3 year"),
    Field("electricity", Quantity("energy_price"), "Electricity price.", nonnegative=True, example="0.12 USD/kWh"),
    Field("pue", Count(), "Power usage effectiveness of the data centre (>= 1).", positive=True, default=1.0),
    Field("hosting", Quantity("hourly_price"), "Hosting per device (rack, network, staff).", nonnegative=True,
          example="150 USD/month"),
)

CPU_FIELDS = (
    Field("cores", Integer(), "Physical cores.", positive=True, required=True),
    Field("fma_units", Integer(), "Vector fused multiply-add units per core.", positive=True, required=True),
    Field("vector_width", Quantity("width"), "Vector register width.", positive=True, required=True,
          example="256 bit"),
    Field("clock", Quantity("frequency"), "Sustained clock.", positive=True, required=True, example="3 GHz"),
)

DEVICE_FIELDS = (
    Field("from", CatalogRef("device"), "Start from a built-in catalog entry and override fields."),
    Field("name", Text(), "Display name."),
    Field("kind", Enum(DEVICE_KINDS), "Device class.", default="accelerator"),
    Field("compute", MapOf(Quantity("compute_rate"), PRECISIONS), "Peak dense rate per precision.",
          positive=True, example="200 TFLOP/s"),
    Field("efficiency", Fraction(), "Delivered / peak rate where no delivered rate is given (prefill, encoders, "
          "matrix products, decode arithmetic). Default: the device family's calibrated figure.",
          positive=True, maximum=1.0),
    Field("efficiency_8bit", Fraction(), "The same for 8-bit and narrower arithmetic (fp8, int8, fp4, int4). "
          "Default: `efficiency` where one is given, else the device family's calibrated figure.",
          positive=True, maximum=1.0),
    Field("train_efficiency", Fraction(), "Model-FLOPs utilisation in training. Default: the device family's "
          "calibrated figure (the `efficiency` where one is given).", positive=True, maximum=1.0),
    Field("train_efficiency_8bit", Fraction(), "The same for 8-bit and narrower arithmetic. Default: "
          "`train_efficiency` (or `efficiency`) where given, else the family's figure.", positive=True, maximum=1.0),
    Field("delivered", MapOf(Quantity("compute_rate"), PRECISIONS),
          "Delivered (measured or assumed) rate per precision.", positive=True, example="100 TFLOP/s"),
    Field("memory", Quantity("memory"), "Device memory capacity.", positive=True, example="80 GB"),
    Field("memory_bandwidth", Quantity("bandwidth"), "Device memory bandwidth.", positive=True, example="2 TB/s"),
    Field("link", Block(LINK_FIELDS), "Host link; omit when data is already local."),
    Field("matrix_unit", Integer(), "Matrix unit tile edge; dimensions are padded to multiples.", positive=True),
    Field("price", Quantity("hourly_price"), "Rental price per device-hour.", positive=True,
          example="2.00 USD/hour"),
    Field("costs", Block(COST_FIELDS), "Rental discount and on-premises costs."),
    Field("bandwidth_efficiency", Fraction(), "Delivered / peak memory bandwidth. Default: the device family's "
          "calibrated figure.", positive=True, maximum=1.0),
    Field("layer_overhead", Quantity("duration"), "Fixed time per layer and step that does not overlap (kernel "
          "launches, synchronisation): the latency floor. Default: the device family's figure.", nonnegative=True,
          example="15 us"),
    Field("memory_reserve", Fraction(), "Share of memory the runtime keeps (context, allocator slack, "
          "workspace). Default: the device family's figure.", nonnegative=True, maximum=0.9),
    Field("interconnect", Block(INTERCONNECT_FIELDS), "Scale-up fabric between the devices of one server "
          "(NVLink, Infinity Fabric, ICI)."),
    Field("network", Block(NETWORK_FIELDS), "Scale-out network per device (collectives beyond the domain)."),
    Field("power", Quantity("power"), "Power draw.", positive=True, example="450 W"),
    Field("deployment", ListOf(Enum(DEPLOYMENTS)), "Where it can be had."),
    Field("cpu", Block(CPU_FIELDS), "CPU micro-architecture: fp32 peak = cores x fma_units x lanes x 2 x clock."),
    Field("vendor", Text(), "Vendor."),
    Field("year", Integer(), "Year of introduction.", positive=True),
    Field("sparse_note", Prose(), "Vendor's sparse figures, kept as a note only."),
    Field("sparse", MapOf(Quantity("compute_rate"), PRECISIONS),
          "Vendor's figures with 2:4 structured sparsity: recorded, never used.", positive=True,
          example="1979 TFLOP/s"),
) + SOURCE_FIELDS

MODEL_FIELDS = (
    Field("from", CatalogRef("model"), "Start from a built-in catalog entry and override fields."),
    Field("config", Text(), "A local Hugging Face config.json (relative to the scenario) to read the fields from."),
    Field("name", Text(), "Display name."),
    Field("parameters", Count(), "Total parameters (weights memory).", positive=True, example="7e9"),
    Field("active_parameters", Count(), "Parameters used per token (mixture-of-experts).", positive=True),
    Field("layers", Integer(), "Transformer layers.", positive=True),
    Field("hidden", Integer(), "Hidden size.", positive=True),
    Field("heads", Integer(), "Attention heads.", positive=True),
    Field("kv_heads", Integer(), "Key/value heads (grouped-query attention when fewer than heads).", positive=True),
    Field("head_dim", Integer(), "Dimension per head (default hidden / heads).", positive=True),
    Field("context", Integer(), "Maximum context in tokens.", positive=True),
    Field("kv_lora_rank", Integer(), "Multi-head latent attention: latent KV rank.", positive=True),
    Field("qk_rope_head_dim", Integer(), "Multi-head latent attention: decoupled RoPE key dimension.", positive=True),
    Field("intermediate", Integer(), "Feed-forward size.", positive=True),
    Field("vocab", Integer(), "Vocabulary size.", positive=True),
    Field("tied_embeddings", Bool(), "The output projection shares the input embedding's weights "
          "(tie_word_embeddings): the table is read and multiplied for every generated token, not only looked up. "
          "Default no."),
    Field("experts", Integer(), "Routed experts (mixture-of-experts).", positive=True),
    Field("experts_per_token", Integer(), "Experts active per token.", positive=True),
    Field("sliding_window", Integer(), "Sliding attention window in tokens.", positive=True),
    Field("hf_repo", Text(), "Hugging Face repository."),
) + SOURCE_FIELDS
