"""`sizing init`: a starter scenario from a question (`sizing init chat --model llama-3.1-70b --devices h100,mi300x
--peak 5/s`), every field explained in a comment, valid as written. Devices and models come from the catalog."""

from __future__ import annotations

import re

from .scenario import catalog

KINDS = ("chat", "embed", "train")


class InitError(ValueError):
    """A question `init` cannot answer: an unknown model or device, a bad rate (the message says what is right)."""


def device_id(token: str, devices: dict) -> tuple[str, str]:
    """A catalog device for a short name: the id itself, else the first entry whose id contains it (noted)."""
    if token in devices:
        return token, ""
    found = [d for d in devices if token.lower() in d and not devices[d].get("illustrative")]
    if not found:
        raise InitError(f"no catalog device matches '{token}'; `sizing catalog --kind gpu` lists them")
    also = f" (also: {', '.join(found[1:])})" if len(found) > 1 else ""
    return found[0], f"{token}: took {found[0]}{also}"


def rate(text: str) -> float:
    """Requests per second from `--peak` as the scenario language takes a rate ('5/s', '1200 req/min', '20 rps'),
    or a bare number of them per second."""
    from .units import UnitError, parse_quantity
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*", text)
    try:
        value = float(m.group(1)) if m else parse_quantity(text, "request_rate")
    except UnitError as e:
        raise InitError(f"--peak {text}: {e}") from None
    if not value > 0:
        raise InitError(f"--peak {text}: expected a rate above zero, like '5/s'")
    return value


def common_precision(entries: list) -> tuple[str, str]:
    """The first of bf16, fp16, fp32 every device has a rate at (bf16 where none is common), and a note where it is
    not bf16 or where some device lacks it."""
    from .binding import rated
    lacking = ", ".join(e.id for e in entries if not rated(e, "bf16"))
    for p in ("bf16", "fp16", "fp32"):
        if all(rated(e, p) for e in entries):
            return p, (f"precision {p}: {lacking} has no bf16 rate, and {p} is the first precision every device has "
                       f"one at (--precision to choose)" if p != "bf16" else "")
    return "bf16", f"precision bf16: {lacking} has no bf16 rate and no precision is common to every device"


PEAK = "5/s"            # a starter's peak where none is given


def starter(kind: str, model: str, devices: list[str], peak: str = PEAK, precision: str | None = None,
            name: str = "starter", when: str | None = None) -> tuple[str, list[str]]:
    """The scenario text and the notes to print (which catalog entry each short device name took, the precision
    chosen when none is given)."""
    cat_devices, cat_models, _ = catalog()
    if model not in cat_models:
        import difflib

        close = list(dict.fromkeys([m for m in cat_models if model.lower() in m]
                                   + difflib.get_close_matches(model.lower(), list(cat_models), n=4, cutoff=0.6)))[:4]
        raise InitError(f"no catalog model '{model}'" + (f"; did you mean {', '.join(close)}?" if close else "")
                        + "; `sizing catalog` lists them")
    picked = [device_id(t, cat_devices) for t in devices]
    chosen = ""
    if precision is None:
        precision, chosen = common_precision([cat_devices[cat_id] for cat_id, _ in picked])
    ids = [re.sub(r"[^a-z0-9-]", "-", t.lower()) for t in devices]
    lines = ["sizing: 1                     # the language version",
             f"name: {name}                  # an id for the outputs",
             f"title: \"{TITLES[kind].format(model=model)}\"   # the report's headline",
             "owner: your team               # who prepares the decision (the report's sign-off)",
             "status: draft                 # draft, review or final",
             *([f"date: {when}              # the decision's date (the report's; sources are aged against it)"]
               if when else []),
             "",
             "devices:                      # the hardware to compare; `sizing catalog` lists the built-in entries"]
    for key, (cat_id, _) in zip(ids, picked):
        lines += [f"  {key}:",
                  f"    from: {cat_id}   # figures and their sources from the catalog; override any field here",
                  "    # price: 2.50 USD/hour     # your rental price per device-hour: add it to rank by cost"]
    lines += ["", "workloads:"] + WORKLOADS[kind].format(model=model, precision=precision,
                                                         peak=f"{rate(peak):g}").splitlines()
    lines += ["", f"compare: [{', '.join(ids)}]   # the devices every workload is evaluated on",
              "decision:                     # how the options are ranked", *DECISIONS[kind].splitlines()]
    return "\n".join(lines) + "\n", [note for _, note in picked if note] + ([chosen] if chosen else [])


TITLES = {"chat": "Serving {model}: which device, how many?",
          "embed": "Embedding with {model}: which device, how many?",
          "train": "Fine-tuning {model}: which device, how long?"}

WORKLOADS = {
    "chat": """\
  chat:
    title: Chat assistant      # how the outputs name this workload
    kind: generate              # token-by-token generation (an LLM answering requests)
    model: {model}      # a catalog model (`sizing catalog`), or your own under a models: block
    precision: {precision}             # bytes per weight and the rate used: fp32, bf16, fp8, int8, int4 ...
    batch: 16                   # sequences decoded together on one replica (the outputs say where another costs less)
    input_tokens: 1000          # prompt length per request
    output_tokens: 300          # generated tokens per request
    traffic:
      peak: {peak} request/s        # the busiest rate the fleet must serve
      utilisation: 40 %         # the average traffic as a share of the peak (what is paid for when renting by use)
      max_utilisation: 80 %     # the busiest share of a replica planned at the peak (headroom for bursts)
      redundancy: 1             # spare replicas beyond the peak (0 for none)
    targets:
      per_token_p95: 50 ms      # time between tokens for 95 % of requests
      ttft_p95: 1 s             # time to first token for 95 % of requests""",
    "embed": """\
  embed:
    title: Embedding service      # how the outputs name this workload
    kind: forward               # one forward pass per request (an encoder, a classifier, an embedder)
    model: {model}      # a catalog model (`sizing catalog`), or your own under a models: block
    precision: {precision}             # bytes per weight and the rate used
    tokens: 256                 # tokens per request
    batch: 8                    # requests processed together
    traffic: {{peak: {peak} request/s}}   # the busiest rate the fleet must serve
    targets: {{latency_p95: 100 ms}}     # response time for 95 % of requests""",
    "train": """\
  train:
    title: Fine-tuning run      # how the outputs name this workload
    kind: train                 # a training or fine-tuning run
    model: {model}      # a catalog model (`sizing catalog`), or your own under a models: block
    precision: {precision}             # the training precision
    method: lora                # full, or lora with `trainable` the share of parameters trained
    trainable: 1 %              # the share of parameters LoRA trains
    optimizer: adam             # adam, adamw, adam8bit, sgd or adamw-bf16: state bytes per parameter
    tokens: 1e9                 # tokens the run processes
    sequence: 4096              # tokens per sequence
    batch: 64                   # sequences per step
    recompute: false            # true: recompute activations in the backward pass (a third more work, far less
                                # memory): for a sequence whose activations outgrow a device
    deadline: 7 day             # the run must finish within this""",
}

DECISIONS = {
    "chat": "  objective: fleet_devices     # fewest devices that meet the targets; with prices: monthly_cost\n"
            "  require: [fits_memory, meets_targets]   # an option must hold the model and meet the targets",
    "embed": "  objective: fleet_devices     # fewest devices that meet the target; with prices: monthly_cost\n"
             "  require: [fits_memory, meets_targets]   # an option must hold the model and meet the targets",
    "train": "  objective: duration          # the shortest run that fits; with prices: cost\n"
             "  require: [fits_memory, meets_targets]   # an option must hold the run and finish by the deadline",
}
