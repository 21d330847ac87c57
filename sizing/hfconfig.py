"""Read a local Hugging Face config.json into model fields, counting parameters from the architecture."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .errors import Problem
from .loader import Mapping, Node, Scalar, Sequence, load_text, read_file
from .units import UnitError, parse_number

PATH = "model.config"
MAX_FIELD = 1_000_000_000      # the largest layer count, width or vocabulary believed
Located = tuple[str, int, int]  # (raw text, line, col)

# Our model key -> the config keys that may hold it, first present wins
# (Llama/Mistral style, GPT-2 style, then T5/OPT style names).
ALIASES: dict[str, tuple[str, ...]] = {
    "layers": ("num_hidden_layers", "n_layer", "num_layers"),
    "hidden": ("hidden_size", "n_embd", "d_model"),
    "heads": ("num_attention_heads", "n_head"),
    "kv_heads": ("num_key_value_heads", "num_kv_heads"),
    "head_dim": ("head_dim",),
    "intermediate": ("intermediate_size", "n_inner", "ffn_dim"),
    "vocab": ("vocab_size",),
    "context": ("max_position_embeddings", "n_positions", "max_seq_len"),
    "kv_lora_rank": ("kv_lora_rank",),
    "qk_rope_head_dim": ("qk_rope_head_dim",),
    "experts": ("num_local_experts", "n_routed_experts"),
    "experts_per_token": ("num_experts_per_tok",),
    "sliding_window": ("sliding_window",),
}
REQUIRED = {"layers": "the number of transformer layers", "hidden": "the hidden size",
            "heads": "the number of attention heads", "vocab": "the vocabulary size",
            "intermediate": "the feed-forward size, needed to count parameters"}
# Only the parameter formula reads these; zero is meaningful (no shared experts, no dense layers).
FORMULA_KEYS = ("q_lora_rank", "qk_nope_head_dim", "v_head_dim", "moe_intermediate_size", "n_shared_experts",
                "first_k_dense_replace", "moe_layer_freq", "type_vocab_size")
# State-space and recurrent models: no attention, no KV cache, so none of our formulas apply.
NOT_TRANSFORMERS = ("mamba", "rwkv", "recurrent_gemma", "recurrentgemma", "xlstm", "jamba", "zamba")


@dataclass(frozen=True)
class Layout:
    """How a model family lays out its weights, where the config does not say."""

    kind: str = "decoder"             # "decoder" (Llama-like), "encoder" (BERT-like), "gpt2" or "gptj"
    norms_per_layer: int = 2          # RMSNorm weight vectors per layer
    qkv_bias: bool = False            # Qwen2 always has q/k/v biases (its config has no flag)
    tied: bool = False                # the family's default for an absent tie_word_embeddings
    active_with_embedding: bool = True  # how the family's own figures count active parameters


LAYOUTS: dict[str, Layout] = {
    "llama": Layout(), "mistral": Layout(), "mixtral": Layout(),
    "phi3": Layout(),                 # fused qkv and gate_up: the same matrices, concatenated
    "qwen2": Layout(qkv_bias=True),
    "gemma": Layout(tied=True),
    "gemma2": Layout(norms_per_layer=4, tied=True),  # pre- and post-norms around attention and MLP
    # DeepSeek reports activated parameters without the input embedding.
    "deepseek_v2": Layout(active_with_embedding=False), "deepseek_v3": Layout(active_with_embedding=False),
    "bert": Layout(kind="encoder"), "roberta": Layout(kind="encoder"), "xlm-roberta": Layout(kind="encoder"),
    "gpt2": Layout(kind="gpt2", tied=True), "gpt_bigcode": Layout(kind="gpt2", tied=True),
    "gptj": Layout(kind="gptj"),
}


# -- reading ---------------------------------------------------------------------------------
def read_config(path: Path, name: str) -> tuple[dict[str, Located], list[Problem]]:
    """Our model fields from a config.json as {key: (raw text, line, col)}, and every problem found."""
    root, problems = _load(path, name)
    if root is None:
        return {}, problems
    if not isinstance(root, Mapping):
        return {}, problems + [Problem(name, root.line, root.col, PATH,
                                       f"expected a JSON object like {{\"hidden_size\": 4096, ...}}, got "
                                       f"{'a list' if isinstance(root, Sequence) else 'text'} (not shown: the file "
                                       "may hold anything)", code="wrong-shape")]
    text, prefix = _text_part(root, name, problems)
    if unsupported := _unsupported(root, text, prefix, name):
        return {}, problems + [unsupported]
    fields, bad = _fields(text, prefix, name)
    problems += bad
    if not any(p.level == "error" for p in bad):
        problems += _layout_warning(text, prefix, name)
        total, active = parameter_count(plain(root))
        fields["parameters"] = (str(total), root.line, root.col)
        if tied_embeddings(plain(root)):
            fields["tied_embeddings"] = ("true", root.line, root.col)
        if active is not None:
            fields["active_parameters"] = (str(active), root.line, root.col)
    return fields, sorted(problems)


def _load(path: Path, name: str) -> tuple[Node | None, list[Problem]]:
    node, (data, problems) = None, read_file(path, name)          # read once, with the bound
    if data is not None:
        node, problems = load_text(data, name)
    if node is None and data is not None and any("'\\t'" in p.message for p in problems):
        # JSON allows tabs between tokens and never inside strings, YAML does not: a space reads the same.
        node, problems = load_text(data.replace(b"\t", b" "), name)
    # The loader's wording speaks of scenarios.
    return node, [replace(p, message="the file is empty; expected a JSON object") if p.code == "empty-file"
                  else p for p in problems]


def _text_part(root: Mapping, name: str, problems: list[Problem]) -> tuple[Mapping, str]:
    """The mapping holding the language model: `text_config` of a multimodal wrapper, else the root."""
    text = root.get("text_config")
    if not isinstance(text, Mapping):
        return root, PATH
    problems.append(Problem(name, text.line, text.col, f"{PATH}.text_config",
                            "parameters count the language model in text_config only; add the vision "
                            "or audio encoder's parameters by hand", "warning", code="text-config-only"))
    return text, f"{PATH}.text_config"


def _unsupported(root: Mapping, text: Mapping, prefix: str, name: str) -> Problem | None:
    """A problem if the config names a state-space or recurrent model, or has no attention at all."""
    names = _names(root, PATH) + (_names(text, prefix) if text is not root else [])
    hit = next(((p, n) for p, n in names if any(s in n.text.lower() for s in NOT_TRANSFORMERS)), None)
    if hit is None and _text(text.get("model_type")) not in LAYOUTS and _first(text, ALIASES["heads"]) is None:
        hit = (_names(text, prefix) or names or [(prefix, text)])[0]
    if hit is None:
        return None
    path, node = hit
    label = f"'{node.text}'" if isinstance(node, Scalar) else "(no model_type)"
    return Problem(name, node.line, node.col, path,
                   f"unsupported architecture {label}: sizing models transformer decoders and encoders; "
                   "give parameters and the attention fields by hand", code="unsupported-architecture")


def _names(m: Mapping, prefix: str) -> list[tuple[str, Scalar]]:
    """Where the config names its architecture: model_type, then each of architectures."""
    named = [(f"{prefix}.model_type", m.get("model_type"))]
    if isinstance(archs := m.get("architectures"), Sequence):
        named += [(f"{prefix}.architectures[{i}]", a) for i, a in enumerate(archs.items)]
    return [(p, n) for p, n in named if isinstance(n, Scalar)]


def _fields(m: Mapping, prefix: str, name: str) -> tuple[dict[str, Located], list[Problem]]:
    """Each of our keys the config gives, checked as a positive whole number, with the derived defaults."""
    fields, problems = {}, []
    # GPT-2 leaves n_inner null for 4 x hidden; every other layout needs the width to count parameters.
    optional = ("intermediate",) if LAYOUTS.get(_text(m.get("model_type")), Layout()).kind in ("gpt2", "gptj") else ()
    for key, aliases in ALIASES.items():
        found = _first(m, aliases)
        if found is None:
            if key in REQUIRED and key not in optional:
                also = f" (or {', '.join(aliases[1:])})" if len(aliases) > 1 else ""
                problems.append(Problem(name, m.line, m.col, prefix,
                                        f"missing '{aliases[0]}'{also}: {REQUIRED[key]}", code="missing-field"))
            continue
        config_key, node = found
        if (bad := _check(node, f"{prefix}.{config_key}", name, positive=True)) is not None:
            problems.append(bad)
        else:
            fields[key] = (node.text, node.line, node.col)
    for key in FORMULA_KEYS:
        if (node := m.get(key)) is not None and not _is_null(node):
            if (bad := _check(node, f"{prefix}.{key}", name, positive=False)) is not None:
                problems.append(bad)
    if _text(m.get("use_sliding_window")) == "false":
        fields.pop("sliding_window", None)  # Qwen2 gives a window it does not use
    _defaults(m, fields)
    return fields, problems


def _defaults(m: Mapping, fields: dict[str, Located]) -> None:
    """kv_heads and head_dim as the model would read them when the config leaves them out."""
    if "heads" not in fields or "hidden" not in fields:
        return
    heads_text, line, col = fields["heads"]
    if "kv_heads" not in fields:
        multi_query = m.get("multi_query")
        if _text(multi_query) == "true":
            fields["kv_heads"] = ("1", multi_query.line, multi_query.col)  # one K/V head shared by all
        else:
            fields["kv_heads"] = fields["heads"]
    # MLA has no single head_dim (Q/K 192, V 128 in DeepSeek-V3): its cache is sized by kv_lora_rank.
    if "head_dim" not in fields and "kv_lora_rank" not in fields:
        hidden, heads = parse_number(fields["hidden"][0], integer=True), parse_number(heads_text, integer=True)
        fields["head_dim"] = (str(hidden // heads), line, col)


def _first(m: Mapping, keys: tuple[str, ...]) -> tuple[str, Node] | None:
    """The first of `keys` with a non-null value; null means 'not set' in HF configs."""
    return next(((k, m.get(k)) for k in keys if m.get(k) is not None and not _is_null(m.get(k))), None)


def _check(node: Node, path: str, name: str, positive: bool) -> Problem | None:
    """A problem unless `node` is a bare whole number (> 0 if `positive`, else >= 0)."""
    like = "a positive whole number like 4096" if positive else "a whole number like 0 or 2048"
    code = "wrong-shape" if not isinstance(node, Scalar) else "not-an-integer"
    if isinstance(node, Scalar) and not node.quoted:
        try:
            value = parse_number(node.text, integer=True)
            if value > MAX_FIELD:       # no model has it; and the parameter count walks the layers
                return Problem(name, node.line, node.col, path, f"{value:,} is beyond any real model; "
                                                                f"expected at most {MAX_FIELD:,}", code="out-of-range")
            if value > 0 or (value == 0 and not positive):
                return None
            code = "out-of-range"
        except UnitError:
            pass
    return Problem(name, node.line, node.col, path, f"expected {like}, got {_shown(node)}", code=code)


def _shown(node: Node) -> str:
    """What a config value is: a number or true, false or null as written, never a string's text (a config may
    hold secrets; its line and column say where to look)."""
    if isinstance(node, Mapping):
        return "an object"
    if isinstance(node, Sequence):
        return "a list"
    literal = not node.quoted and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?|true|false|null", node.text)
    return node.text if literal else "a string (not shown)"


def _layout_warning(m: Mapping, prefix: str, name: str) -> list[Problem]:
    model_type = m.get("model_type")
    if _text(model_type) in LAYOUTS:
        return []
    where = model_type if isinstance(model_type, Scalar) else m
    label = f"model type '{model_type.text}'" if isinstance(model_type, Scalar) else "a config without model_type"
    return [Problem(name, where.line, where.col, f"{prefix}.model_type",
                    f"{label} has no parameter formula here; parameters are estimated with the Llama layout "
                    "(SwiGLU, RMSNorm, untied embeddings); give parameters by hand if the model card differs",
                    "warning", code="unknown-model-type")]


def _text(node: Node | None) -> str | None:
    return node.text if isinstance(node, Scalar) else None


def _is_null(node: Node) -> bool:
    return isinstance(node, Scalar) and not node.quoted and node.text == "null"


def plain(node: Node) -> Any:
    """The node tree as the Python values json.load would give (the loader keeps text only)."""
    if isinstance(node, Mapping):
        return {k.text: plain(v) for k, v in node.entries}
    if isinstance(node, Sequence):
        return [plain(item) for item in node.items]
    if node.quoted:
        return node.text
    try:
        return json.loads(node.text)
    except ValueError:
        return node.text  # YAML plain text, which JSON would have quoted


# -- parameter count -------------------------------------------------------------------------
def tied_embeddings(fields: dict) -> bool:
    """A decoder whose output projection is its input embedding (tie_word_embeddings, else its family's default)."""
    cfg = fields.get("text_config") if isinstance(fields.get("text_config"), dict) else fields
    layout = LAYOUTS.get(cfg.get("model_type"), Layout())
    return layout.kind != "encoder" and cfg.get("tie_word_embeddings", layout.tied) is True


def parameter_count(fields: dict) -> tuple[int, int | None]:
    """Total and active (None unless mixture-of-experts) parameters from an HF config dict."""
    cfg = fields.get("text_config") if isinstance(fields.get("text_config"), dict) else fields
    layout = LAYOUTS.get(cfg.get("model_type"), Layout())
    if layout.kind == "encoder":
        return _encoder(cfg), None
    if layout.kind == "gpt2":
        return _gpt2(cfg), None
    if layout.kind == "gptj":
        return _gptj(cfg), None
    return _decoder(cfg, layout)


def _n(cfg: dict, *keys: str, default: int = 0) -> int:
    """The first of `keys` set (not null) in cfg, as an int."""
    value = next((cfg[k] for k in keys if cfg.get(k) is not None), default)
    # Text that parse_number accepted but JSON would not ('4096.', '+8') reaches here unconverted.
    return value if isinstance(value, int) else int(float(value))


def _dims(cfg: dict) -> tuple[int, int, int, int, int, int]:
    """vocab, hidden, layers, heads, kv_heads, head_dim."""
    hidden, heads = _n(cfg, *ALIASES["hidden"]), _n(cfg, *ALIASES["heads"])
    kv = 1 if cfg.get("multi_query") is True else _n(cfg, *ALIASES["kv_heads"], default=heads)
    return (_n(cfg, "vocab_size"), hidden, _n(cfg, *ALIASES["layers"]), heads, kv,
            _n(cfg, "head_dim", default=hidden // heads))


def _decoder(cfg: dict, layout: Layout) -> tuple[int, int | None]:
    vocab, hidden, layers, *_ = _dims(cfg)
    tied = cfg.get("tie_word_embeddings", layout.tied)
    embedding, head = vocab * hidden, 0 if tied else vocab * hidden
    shared = _attention(cfg, layout) + layout.norms_per_layer * hidden  # in every layer
    moe = _moe_layers(cfg, layers)
    dense = shared + _mlp(cfg, hidden, _n(cfg, *ALIASES["intermediate"]))
    all_experts, used = _moe(cfg) if moe else (0, 0)
    total = (layers - moe) * dense + moe * (shared + all_experts)
    active = (layers - moe) * dense + moe * (shared + used)
    outside = embedding + hidden + head  # embedding, final norm, lm_head
    if not _n(cfg, *ALIASES["experts"]):
        return total + outside, None
    return total + outside, active + outside - (0 if layout.active_with_embedding else embedding)


def _attention(cfg: dict, layout: Layout) -> int:
    _, hidden, _, heads, kv, head_dim = _dims(cfg)
    if cfg.get("kv_lora_rank"):
        return _mla(cfg, hidden, heads)
    q, kv_width = heads * head_dim, kv * head_dim
    weights = hidden * q + 2 * hidden * kv_width + q * hidden
    if cfg.get("attention_bias"):  # Llama's flag: biases on q, k, v and o
        return weights + q + 2 * kv_width + hidden
    return weights + (q + 2 * kv_width if layout.qkv_bias else 0)


def _mla(cfg: dict, hidden: int, heads: int) -> int:
    """DeepSeek multi-head latent attention: low-rank Q and KV projections with their norms."""
    rope, nope, v_dim = _n(cfg, "qk_rope_head_dim"), _n(cfg, "qk_nope_head_dim"), _n(cfg, "v_head_dim")
    q_rank, kv_rank = _n(cfg, "q_lora_rank"), _n(cfg, "kv_lora_rank")
    q_out = heads * (nope + rope)
    query = hidden * q_rank + q_rank + q_rank * q_out if q_rank else hidden * q_out  # DeepSeek-V2-Lite: no Q LoRA
    key_value = hidden * (kv_rank + rope) + kv_rank + kv_rank * heads * (nope + v_dim)
    return query + key_value + heads * v_dim * hidden


def _mlp(cfg: dict, hidden: int, intermediate: int) -> int:
    """Gated MLP (gate, up, down), biases only where the config sets mlp_bias."""
    return 3 * hidden * intermediate + (2 * intermediate + hidden if cfg.get("mlp_bias") else 0)


def _moe_layers(cfg: dict, layers: int) -> int:
    """How many layers are mixture-of-experts: DeepSeek keeps its first layers dense and may place MoE
    every n-th layer (counted, not walked: a config's layer count is not to be trusted)."""
    if not _n(cfg, *ALIASES["experts"]):
        return 0
    freq = _n(cfg, "moe_layer_freq") or 1
    start = -(-_n(cfg, "first_k_dense_replace") // freq) * freq      # first multiple of freq not below k
    return len(range(start, layers, freq))


def _moe(cfg: dict) -> tuple[int, int]:
    """(all, used per token) parameters of one MoE block: router, routed experts, shared experts."""
    hidden, experts = _n(cfg, *ALIASES["hidden"]), _n(cfg, *ALIASES["experts"])
    expert = _mlp(cfg, hidden, _n(cfg, "moe_intermediate_size", *ALIASES["intermediate"]))
    # DeepSeek-V3's aux-loss-free routing adds one bias per expert to the router.
    router = experts * hidden + (experts if cfg.get("topk_method") == "noaux_tc" else 0)
    shared = _n(cfg, "n_shared_experts") * expert
    return router + experts * expert + shared, router + _n(cfg, "num_experts_per_tok") * expert + shared


def _encoder(cfg: dict) -> int:
    """BERT: word, position and token-type embeddings, post-LN layers with biases, pooler."""
    vocab, hidden, layers, *_ = _dims(cfg)
    intermediate, norm = _n(cfg, *ALIASES["intermediate"]), 2 * hidden  # LayerNorm: weight and bias
    positions, types = _n(cfg, *ALIASES["context"]), _n(cfg, "type_vocab_size", default=2)
    embeddings = (vocab + positions + types) * hidden + norm
    layer = 4 * (hidden * hidden + hidden) + norm + 2 * hidden * intermediate + intermediate + hidden + norm
    return embeddings + layers * layer + hidden * hidden + hidden


def _gpt2(cfg: dict) -> int:
    """GPT-2 / GPT-BigCode: learned positions, pre-LN with biases, 2-matrix MLP, tied lm_head."""
    vocab, hidden, layers, heads, kv, head_dim = _dims(cfg)
    intermediate = _n(cfg, *ALIASES["intermediate"], default=4 * hidden)
    qkv = heads * head_dim + 2 * kv * head_dim
    attention = hidden * qkv + qkv + hidden * hidden + hidden
    mlp = 2 * hidden * intermediate + intermediate + hidden
    embeddings = (vocab + _n(cfg, *ALIASES["context"])) * hidden
    return embeddings + layers * (attention + mlp + 4 * hidden) + 2 * hidden


def _gptj(cfg: dict) -> int:
    """GPT-J: rotary positions, one LayerNorm per layer (attention and MLP in parallel), bias-free attention
    projections, a 2-matrix MLP with biases, an untied lm_head with a bias."""
    vocab, hidden, layers, heads, _, head_dim = _dims(cfg)
    intermediate = _n(cfg, *ALIASES["intermediate"], default=4 * hidden)
    attention = 4 * hidden * heads * head_dim
    mlp = 2 * hidden * intermediate + intermediate + hidden
    return vocab * hidden + layers * (attention + mlp + 2 * hidden) + 2 * hidden + hidden * vocab + vocab
