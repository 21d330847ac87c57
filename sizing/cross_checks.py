"""Located warnings across entities, once alternatives are expanded: a workload's context and heads against its
model, LoRA shares, alternatives that change only what is asked, a hosted API's prompt price, a device's discounts,
purchase and narrow efficiencies. Each is said where the file writes the field (an alternative's own fields under
`alternatives:`)."""

from __future__ import annotations

from . import schema as S
from .schema import Checker, Entity

LORA_USUAL = 0.10         # a LoRA share above it, written as a bare number, is more likely a slip (0.5 for 0.5 %)


def inherits(workloads: dict, w: Entity, fields: tuple[str, ...]) -> bool:
    """Whether `w` is an alternative that sets none of `fields` (by their first key): what a check says of them is
    said once, at its workload, not again at a path the file does not have (a new user read each line twice)."""
    from .alternatives import given_by
    return bool(w.alternative_of) and not any(k.split(".")[0] in fields for k in given_by(workloads, w))


def field_path(workloads: dict, w: Entity, field: str = "") -> str:
    """A workload's field as the file writes it: 'workloads.chat.alternatives.bf16.devices.h100' for what an
    alternative sets, 'workloads.chat.model' for what it inherits (a new user read 'workloads.chat-bf16.devices.h100',
    a path the file does not have)."""
    from .alternatives import given_by
    tail = f".{field}" if field else ""
    if not w.alternative_of:
        return f"workloads.{w.id}{tail}"
    given = given_by(workloads, w)
    if field and not any(field == g or field.startswith(g + ".") or g.startswith(field + ".") for g in given):
        return f"workloads.{w.alternative_of}{tail}"
    return f"workloads.{w.alternative_of}.alternatives.{w.alternative}{tail}"


def check_context(chk: Checker, models: dict, workloads: dict) -> None:
    """A request longer than the model's context length is a located warning (an error with --strict)."""
    for w in workloads.values():
        m = models.get(w.get("model")) if w.has("model") else None
        if m is None or not m.has("context") or \
                inherits(workloads, w, ("model", "input_tokens", "output_tokens", "tokens", "sequence")):
            continue
        # a generated sequence holds its prompt and every output token but the last, which is never read back (a
        # 2,048-token prompt with one output token fits a 2,048-token context: how time to first token is measured)
        tokens = w.get("input_tokens", 0) + max(w.get("output_tokens", 0) - 1, 0) if w.get("kind") == "generate" \
            else w.get("tokens", 0) if w.get("kind") == "forward" else w.get("sequence", 0)
        if tokens > m.get("context"):
            at = next((w.values[k] for k in ("input_tokens", "tokens", "sequence") if k in w.values), w.values["kind"])
            chk.problem(at, field_path(workloads, w), f"{tokens:,.0f} tokens per sequence exceed the context length of "
                        f"model '{m.id}' ({m.get('context'):,}); shorten the request or choose a model with a "
                        "longer context", "over-context", "warning")


def check_unused_share(chk: Checker, workloads: dict) -> None:
    """A LoRA share on a full training run trains nothing less: every parameter is trained, so the share is
    ignored, with a located warning (said where it is written, not at an alternative that only inherits it)."""
    for w in workloads.values():
        v = w.values.get("trainable")
        if w.get("kind") != "train" or v is None or v.source == "default" or inherits(workloads, w, ("trainable",)):
            continue
        if w.get("method") == "lora":
            if v.value > LORA_USUAL and "%" not in str(v.text):      # a bare 0.5 is half, not 0.5 %
                chk.problem(v, field_path(workloads, w, "trainable"), f"'{v.text}' trains {v.value * 100:g} % of the "
                            f"parameters as LoRA adapters, where LoRA usually trains 0.1-5 %; did you mean "
                            f"{v.text} %? (a bare number is a share of 1)", "large-lora-share", "warning")
            continue
        chk.problem(v, field_path(workloads, w, "trainable"), f"'{v.text}' is the share of the parameters LoRA trains, but "
                    f"method {w.get('method')} trains all of them, so it is ignored; set method: lora, or remove "
                    "trainable", "unused-field", "warning")


DEMAND = ("traffic", "targets", "input_tokens", "output_tokens", "tokens", "deadline", "title")


def check_demand_alternatives(chk: Checker, workloads: dict) -> None:
    """An alternative that changes only what is asked (the traffic, the targets, the tokens, the deadline) is ranked
    beside the workload as if it were another way to serve the same demand, and the smaller demand wins (a new
    user's 'think' alternative with a lower peak was recommended): a located warning."""
    from .alternatives import given_by
    for w in workloads.values():
        given = given_by(workloads, w) if w.alternative_of and not w.automatic else {}
        asked = [k for k in given if k.split(".")[0] in DEMAND and k != "title"]
        if asked and all(k.split(".")[0] in DEMAND for k in given):
            chk.problem(given[asked[0]], field_path(workloads, w, asked[0]),
                        f"the alternative '{w.alternative}' changes only what is asked ({', '.join(asked)}), not how "
                        "it is served, so it is ranked against the workload as if it met the same demand; ask it "
                        "as a sweep (sweep: {" + asked[0] + ": [...]}) or a second scenario (sizing diff)",
                        "alternative-changes-demand", "warning")


def check_api_input_price(chk: Checker, workloads: dict) -> None:
    """A hosted API priced by its output tokens only prices the prompt at nothing: a located warning (a provider
    charges for input tokens too, and prompts are often most of the tokens)."""
    for w in workloads.values():
        if w.alternative_of or not w.has("api.output_price") or w.has("api.input_price") \
                or not w.get("input_tokens", 0):
            continue
        tokens, out = w.get("input_tokens"), w.get("output_tokens", 0)
        chk.problem(w.values["api.output_price"], f"workloads.{w.id}.api", f"no input_price: the hosted API's "
                    f"{tokens:,.0f} input tokens a request ({tokens / (tokens + out) * 100:.0f} % of its tokens) are "
                    "priced at nothing; give the provider's price per input token (input_price: 0.30 USD/Mtoken), or "
                    "0 USD/Mtoken if it charges none", "missing-input", "warning")


def check_unused_discount(chk: Checker, devices: dict) -> None:
    """A commitment discount on a device whose cost basis is forced to rent or own is never applied: a located
    warning (a finance reviewer typed a reserved discount and saw nothing move)."""
    for d in devices.values():
        v, basis = d.values.get("costs.reserved_discount"), d.get("costs.basis")
        if v is None or v.source == "default" or not v.value or basis not in ("rent", "own"):
            continue
        chk.problem(v, f"devices.{d.id}.costs.reserved_discount", f"'{v.text}' is a commitment discount, but basis "
                    f"{basis} prices the device {'at the hourly price on demand' if basis == 'rent' else 'as bought'}"
                    ", so it is not used; set basis: reserved (or cheapest) to use it, or remove it",
                    "unused-field", "warning")


def check_unsold_purchase(chk: Checker, devices: dict) -> None:
    """A purchase price on a device whose deployment list has no on-prem (a cloud TPU) cannot be used: owning it is
    not an option, so the price is ignored, with a located warning."""
    from .binding import deployments, sold_on_premises
    for d in devices.values():
        v = d.values.get("costs.purchase")
        if v is None or sold_on_premises(d):
            continue
        chk.problem(v, f"devices.{d.id}.costs.purchase", f"the device is not sold for use on premises (deployment: "
                    f"{', '.join(deployments(d))}): owning it is not priced; remove the purchase price, or add on-prem "
                    "to its deployment if you can buy it", "not-sold", "warning")


def check_narrow_efficiency(chk: Checker, devices: dict, workloads: dict, compare: list[str]) -> None:
    """A device whose `efficiency` the scenario states, without `efficiency_8bit`, runs 8-bit arithmetic at that
    16-bit figure (8-bit kernels reach a smaller share of a doubled peak): a located warning naming the workloads."""
    from .catalog import family_defaults
    narrow = [w.id for w in workloads.values() if w.get("kind") in ("generate", "forward", "train")
              and S.PRECISION_BYTES.get(S.compute_precision(w.get("precision") or "bf16"), 2) <= 1]
    if not narrow:
        return
    for did in compare:
        d = devices[did]
        v = d.values.get("efficiency")
        if v is None or not v.source.startswith("scenario") or d.has("efficiency_8bit"):
            continue
        default = family_defaults().get(d.get("kind"), {}).get("efficiency_8bit", {}).get("value")
        chk.problem(v, f"devices.{did}.efficiency", f"{v.text} is also used for the 8-bit arithmetic of "
                    f"{', '.join(narrow)} (no efficiency_8bit given); state efficiency_8bit for the 8-bit kernels"
                    + (f" (the {d.get('kind')} family's default: {default})" if default else ""),
                    "missing-input", "warning")


def check_heads(chk: Checker, models: dict, workloads: dict) -> None:
    """Tensor parallelism splits the attention heads: a degree that does not divide the heads (nor the key/value
    heads, or is a multiple of them, which runtimes replicate) is a layout no runtime runs; a located warning."""
    for w in workloads.values():
        m = models.get(w.get("model")) if w.has("model") else None
        if m is None or not m.has("heads") or w.get("kind") not in ("generate", "forward", "train") or \
                inherits(workloads, w, ("parallel", "devices", "model")):
            continue
        heads, kv = m.get("heads"), m.get("kv_heads", m.get("heads"))
        pipeline = w.get("parallel.pipeline", 1)
        if m.has("layers") and pipeline > m.get("layers"):
            chk.problem(w.values.get("parallel.pipeline"), field_path(workloads, w, "parallel.pipeline"),
                        f"{pipeline} pipeline stages exceed the {m.get('layers')} layers of model '{m.id}' (a stage "
                        f"holds one layer at least); give at most {m.get('layers')}", "parallel-mismatch")
        counts = [(p, v) for p, v in w.values.items() if (p == "devices" or p.startswith("devices."))
                  and isinstance(v.value, (int, float))]
        if w.get("kind") == "train":          # a training run's tensor ways are given, never read from its devices
            counts = [("parallel.tensor", w.values["parallel.tensor"])] if w.has("parallel.tensor") else []
        for p, v in counts:
            tensor = w.get("parallel.tensor") or max(1, int(v.value) // pipeline)
            if tensor > 1 and not splits_heads(heads, kv, tensor):
                chk.problem(w.values.get("parallel.tensor", v), field_path(workloads, w, p),
                            f"tensor parallelism {tensor} ways does not split the {heads} attention heads ({kv} "
                            f"key/value heads) of model '{m.id}' evenly, as runtimes need; give a tensor-parallel "
                            f"degree that does (e.g. {even_split(heads, kv, tensor)})",
                            "uneven-heads", "warning")


def splits_heads(heads: int, kv: int, tensor: int) -> bool:
    """Whether `tensor` ways split the attention heads evenly, and the key/value heads (or are a multiple of them,
    which runtimes replicate)."""
    return not heads % tensor and (not kv % tensor or not tensor % kv)


def even_split(heads: int, kv: int, near: int) -> int:
    """The tensor-parallel degree nearest `near` (the larger on a tie) that splits the heads evenly."""
    ok = [t for t in range(1, heads + 1) if splits_heads(heads, kv, t)]
    return min(ok, key=lambda t: (abs(t - near), -t))
