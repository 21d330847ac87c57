"""Tests for config.json import: field mapping with positions, parameter counts, located problems."""

from __future__ import annotations

from pathlib import Path

import pytest

from sizing.evaluate import evaluate
from sizing.hfconfig import parameter_count, read_config
from sizing.scenario import catalog, load_scenario_bytes

FIXTURES = Path(__file__).parent / "fixtures" / "hf"

# Our catalog keys -> the HF config keys they come from (experts depends on the family, see hf_config).
HF_KEYS = {"layers": "num_hidden_layers", "hidden": "hidden_size", "heads": "num_attention_heads",
           "kv_heads": "num_key_value_heads", "head_dim": "head_dim", "intermediate": "intermediate_size",
           "vocab": "vocab_size", "context": "max_position_embeddings", "kv_lora_rank": "kv_lora_rank",
           "qk_rope_head_dim": "qk_rope_head_dim", "experts_per_token": "num_experts_per_tok",
           "sliding_window": "sliding_window"}

DEEPSEEK_V3 = {"q_lora_rank": 1536, "qk_nope_head_dim": 128, "v_head_dim": 128, "n_shared_experts": 1,
               "moe_intermediate_size": 2048, "first_k_dense_replace": 3, "moe_layer_freq": 1,
               "topk_method": "noaux_tc"}
# What public-models.yaml records beyond our keys: the family, and the config fields the count needs.
# tie_word_embeddings is left out where the config omits it (Gemma 2), so the family default is tested.
EXTRA = {
    "llama-3.1-8b": {"model_type": "llama", "tie_word_embeddings": False},
    "llama-3.1-70b": {"model_type": "llama", "tie_word_embeddings": False},
    "llama-3.1-405b": {"model_type": "llama", "tie_word_embeddings": False},
    "llama-2-7b": {"model_type": "llama", "tie_word_embeddings": False},
    "llama-2-70b": {"model_type": "llama", "tie_word_embeddings": False},
    "mistral-7b-v0.1": {"model_type": "mistral", "tie_word_embeddings": False},
    "mistral-7b-v0.3": {"model_type": "mistral", "tie_word_embeddings": False},
    "mixtral-8x7b": {"model_type": "mixtral", "tie_word_embeddings": False},
    "mixtral-8x22b": {"model_type": "mixtral"},
    "qwen2.5-7b": {"model_type": "qwen2", "tie_word_embeddings": False},
    "qwen2.5-14b": {"model_type": "qwen2", "tie_word_embeddings": False},
    "qwen2.5-32b": {"model_type": "qwen2", "tie_word_embeddings": False},
    "qwen2.5-72b": {"model_type": "qwen2", "tie_word_embeddings": False},
    "gemma-2-9b": {"model_type": "gemma2"},
    "gemma-2-27b": {"model_type": "gemma2"},
    "phi-3-mini-4k": {"model_type": "phi3", "tie_word_embeddings": False},
    "deepseek-v3": {"model_type": "deepseek_v3", "tie_word_embeddings": False, **DEEPSEEK_V3},
    "llama-3-8b": {"model_type": "llama", "tie_word_embeddings": False},
    "llama-3-70b": {"model_type": "llama", "tie_word_embeddings": False},
    "llama-3.3-70b": {"model_type": "llama", "tie_word_embeddings": False},
    "llama-3.2-3b": {"model_type": "llama", "tie_word_embeddings": True},
    "bert-base-uncased": {"model_type": "bert", "type_vocab_size": 2},
    "bert-large-uncased": {"model_type": "bert", "type_vocab_size": 2},
    "all-minilm-l6-v2": {"model_type": "bert", "type_vocab_size": 2},
    "gpt-j-6b": {"model_type": "gptj", "n_inner": None, "tie_word_embeddings": False},
    "gpt-3-175b": {"model_type": "gpt2"},            # learned positions, biases, tied logits: GPT-2's layout
}

ARCHITECTURES = sorted(mid for mid, m in catalog()[1].items() if m.has("layers"))


def hf_config(model_id: str) -> dict:
    """The HF config.json dict of a catalog model, from the catalog's own fields plus EXTRA."""
    m = catalog()[1][model_id]
    cfg = {hf: m.get(ours) for ours, hf in HF_KEYS.items() if m.has(ours)} | EXTRA[model_id]
    if m.has("experts"):
        experts_key = "n_routed_experts" if cfg["model_type"].startswith("deepseek") else "num_local_experts"
        cfg[experts_key] = m.get("experts")
    return cfg


# -- parameter counts against the catalog ---------------------------------------------------
def test_every_catalog_architecture_has_a_config():
    assert sorted(EXTRA) == ARCHITECTURES


@pytest.mark.parametrize("model_id", ARCHITECTURES)
def test_parameter_count_matches_catalog(model_id):
    m = catalog()[1][model_id]
    total, active = parameter_count(hf_config(model_id))
    assert total == pytest.approx(m.get("parameters"), rel=0.01)
    if m.has("active_parameters"):
        assert active == pytest.approx(m.get("active_parameters"), rel=0.01)
    else:
        assert active is None


def test_active_parameters_follow_each_family_convention():
    # Mixtral's figure includes the input embedding, DeepSeek's excludes it (public-models.yaml).
    assert parameter_count(hf_config("mixtral-8x7b")) == (46702792704, 12879925248)
    assert parameter_count(hf_config("deepseek-v3")) == (671026419200, 36625618432)


def test_encoder_counts_embeddings_and_pooler():
    assert parameter_count(hf_config("bert-base-uncased")) == (109482240, None)


def test_gpt2_counts_positions_and_ties_the_head():
    gpt2 = {"model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_layer": 12, "n_inner": None,
            "vocab_size": 50257, "n_positions": 1024}
    assert parameter_count(gpt2) == (124439808, None)


def test_qkv_bias_and_text_config():
    qwen = hf_config("qwen2.5-7b")
    assert parameter_count({"model_type": "llava", "text_config": qwen}) == parameter_count(qwen)
    # The same shapes without Qwen2's q/k/v biases: 28 layers x (3584 + 2 x 512) fewer.
    assert parameter_count(qwen)[0] - parameter_count(qwen | {"model_type": "llama"})[0] == 28 * 4608


# -- KV cache per token through the engine ---------------------------------------------------
SCENARIO = """\
sizing: 1
name: kv
devices:
  acc: {{from: illustrative-accelerator}}
models:
{models}
workloads:
  gen: {{kind: generate, model: {model}, precision: bf16, batch: 1, input_tokens: 100, output_tokens: 100}}
compare: [acc]
"""


def kv_bytes_per_token(model: str, models: str = "  {}") -> float:
    scn, problems = load_scenario_bytes(SCENARIO.format(model=model, models=models).encode(), "t.yaml")
    assert scn is not None, [str(p) for p in problems]
    return evaluate(scn).pair("gen", "acc").values["kv_bytes_per_token"]


@pytest.mark.parametrize("model_id, expected", [
    ("llama-3.1-8b", 2 * 32 * 8 * 128 * 2),      # GQA: 131072
    ("llama-2-7b", 2 * 32 * 32 * 128 * 2),       # MHA: 524288
    ("deepseek-v3", (512 + 64) * 61 * 2),        # MLA latent + RoPE key: 70272
])
def test_kv_bytes_per_token(model_id, expected):
    assert kv_bytes_per_token(model_id) == expected


@pytest.mark.parametrize("fixture, model_id", [
    ("llama-3.1-8b", "llama-3.1-8b"), ("mixtral-8x7b", "mixtral-8x7b"), ("deepseek-v3", "deepseek-v3"),
])
def test_imported_fields_load_as_a_model_with_the_catalog_kv(fixture, model_id):
    fields, problems = read_config(FIXTURES / f"{fixture}.json", f"{fixture}.json")
    assert problems == []
    entry = "\n".join(f"    {key}: {text}" for key, (text, _, _) in fields.items())
    assert kv_bytes_per_token("imported", f"  imported:\n{entry}") == kv_bytes_per_token(model_id)


# -- config.json fixtures --------------------------------------------------------------------
def read(fixture: str) -> tuple[dict, list[str]]:
    fields, problems = read_config(FIXTURES / fixture, fixture)
    return fields, [str(p) for p in problems]


def test_llama_fixture_fields_and_positions():
    assert read("llama-3.1-8b.json") == ({
        "parameters": ("8030261248", 1, 1),
        "layers": ("32", 17, 24), "hidden": ("4096", 10, 18), "heads": ("32", 16, 26), "kv_heads": ("8", 18, 26),
        "head_dim": ("128", 16, 26),  # hidden / heads, located at num_attention_heads
        "intermediate": ("14336", 12, 24), "vocab": ("128256", 33, 17), "context": ("131072", 13, 30),
    }, [])


def test_mixtral_fixture_fields():
    fields, problems = read("mixtral-8x7b.json")
    assert problems == []
    assert {k: text for k, (text, _, _) in fields.items()} == {
        "parameters": "46702792704", "active_parameters": "12879925248", "layers": "32", "hidden": "4096",
        "heads": "32", "kv_heads": "8", "head_dim": "128", "intermediate": "14336", "vocab": "32000",
        "context": "32768", "experts": "8", "experts_per_token": "2"}  # sliding_window null: left out
    assert fields["experts"] == ("8", 18, 24)


def test_deepseek_fixture_fields():
    fields, problems = read("deepseek-v3.json")
    assert problems == []
    assert {k: text for k, (text, _, _) in fields.items()} == {
        "parameters": "671026419200", "active_parameters": "36625618432", "layers": "61", "hidden": "7168",
        "heads": "128", "kv_heads": "128", "intermediate": "18432", "vocab": "129280", "context": "163840",
        "kv_lora_rank": "512", "qk_rope_head_dim": "64", "experts": "256", "experts_per_token": "8"}
    assert fields["kv_lora_rank"] == ("512", 20, 19)


def test_bert_fixture_fields():
    fields, problems = read("bert-base-uncased.json")
    assert problems == []
    assert {k: text for k, (text, _, _) in fields.items()} == {
        "parameters": "109482240", "layers": "12", "hidden": "768", "heads": "12", "kv_heads": "12",
        "head_dim": "64", "intermediate": "3072", "vocab": "30522", "context": "512"}


def test_unsupported_fixture():
    assert read("mamba-2.8b.json") == ({}, [
        "mamba-2.8b.json:13:17: error: model.config.model_type: unsupported architecture 'mamba': sizing models "
        "transformer decoders and encoders; give parameters and the attention fields by hand"])


def test_malformed_fixture():
    assert read("malformed.json") == ({}, [
        "malformed.json:7:3: error: expected ',' or '}', but got '<scalar>' (while parsing a flow mapping at line 1); "
        "close the {...} mapping on the line where it starts, or check the commas"])


# -- inline configs --------------------------------------------------------------------------
LLAMA_LIKE = """\
{
  "model_type": "llama",
  "hidden_size": 4096,
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "intermediate_size": 11008,
  "vocab_size": 32000
}
"""


def read_text(tmp_path: Path, text: str) -> tuple[dict, list[str]]:
    path = tmp_path / "config.json"
    path.write_text(text)
    fields, problems = read_config(path, "config.json")
    return fields, [str(p) for p in problems]


def test_not_an_object(tmp_path):
    assert read_text(tmp_path, '[{"hidden_size": 4096}]\n') == ({}, [
        'config.json:1:1: error: model.config: expected a JSON object like {"hidden_size": 4096, ...}, got a list '
        '(not shown: the file may hold anything)'])


def test_empty_file(tmp_path):
    assert read_text(tmp_path, "") == ({}, ["config.json:1:1: error: the file is empty; expected a JSON object"])


def test_missing_and_bad_values_are_all_reported(tmp_path):
    text = """\
{
  "model_type": "llama",
  "hidden_size": "4096",
  "num_attention_heads": 0,
  "num_key_value_heads": -8,
  "intermediate_size": 14336.5,
  "max_position_embeddings": true,
  "moe_intermediate_size": {"size": 1},
  "vocab_size": 32000
}
"""
    assert read_text(tmp_path, text) == ({"vocab": ("32000", 9, 17)}, [
        "config.json:1:1: error: model.config: missing 'num_hidden_layers' (or n_layer, num_layers): "
        "the number of transformer layers",
        'config.json:3:18: error: model.config.hidden_size: expected a positive whole number like 4096, '
        'got a string (not shown)',
        "config.json:4:26: error: model.config.num_attention_heads: expected a positive whole number like 4096, "
        "got 0",
        "config.json:5:26: error: model.config.num_key_value_heads: expected a positive whole number like 4096, "
        "got -8",
        "config.json:6:24: error: model.config.intermediate_size: expected a positive whole number like 4096, "
        "got 14336.5",
        "config.json:7:30: error: model.config.max_position_embeddings: expected a positive whole number like "
        "4096, got true",
        "config.json:8:28: error: model.config.moe_intermediate_size: expected a whole number like 0 or 2048, "
        "got an object",
    ])


def test_kv_heads_and_head_dim_defaults(tmp_path):
    fields, problems = read_text(tmp_path, LLAMA_LIKE)
    assert problems == []
    assert (fields["kv_heads"], fields["head_dim"]) == (("32", 4, 26), ("128", 4, 26))


def test_multi_query_has_one_kv_head(tmp_path):
    text = '{"model_type": "gpt_bigcode", "n_embd": 6144, "n_head": 48, "n_layer": 40, "n_inner": 24576,\n' \
           ' "vocab_size": 49152, "n_positions": 8192, "multi_query": true}\n'
    fields, problems = read_text(tmp_path, text)
    assert problems == []
    assert fields["kv_heads"] == ("1", 2, 59)
    assert fields["layers"] == ("40", 1, 72)


def test_unused_sliding_window_is_left_out(tmp_path):
    text = LLAMA_LIKE.replace('"llama",', '"qwen2",\n  "sliding_window": 131072,\n  "use_sliding_window": false,')
    assert "sliding_window" not in read_text(tmp_path, text)[0]
    text = LLAMA_LIKE.replace('"llama",', '"mistral",\n  "sliding_window": 4096,')
    assert read_text(tmp_path, text)[0]["sliding_window"] == ("4096", 3, 21)


def test_text_config_of_a_multimodal_wrapper(tmp_path):
    inner = LLAMA_LIKE.replace("\n", "\n  ").rstrip()
    fields, problems = read_text(tmp_path, f'{{\n  "model_type": "llava",\n  "text_config": {inner}\n}}\n')
    assert problems == [
        "config.json:3:18: warning: model.config.text_config: parameters count the language model in "
        "text_config only; add the vision or audio encoder's parameters by hand"]
    assert fields["layers"] == ("32", 7, 26)
    assert fields["parameters"] == ("6738415616", 1, 1)  # Llama 2 7B


def test_unknown_family_is_estimated_with_a_warning(tmp_path):
    fields, problems = read_text(tmp_path, LLAMA_LIKE.replace('"llama"', '"falcon"'))
    assert problems == [
        "config.json:2:17: warning: model.config.model_type: model type 'falcon' has no parameter formula here; "
        "parameters are estimated with the Llama layout (SwiGLU, RMSNorm, untied embeddings); give parameters "
        "by hand if the model card differs"]
    assert "parameters" in fields


def test_no_attention_fields_is_unsupported(tmp_path):
    text = '{"model_type": "hyena", "hidden_size": 256, "num_hidden_layers": 4, "vocab_size": 100}\n'
    assert read_text(tmp_path, text)[1] == [
        "config.json:1:16: error: model.config.model_type: unsupported architecture 'hyena': sizing models "
        "transformer decoders and encoders; give parameters and the attention fields by hand"]


def test_rnn_named_only_in_architectures(tmp_path):
    text = '{"architectures": ["RwkvForCausalLM"], "hidden_size": 2560, "num_hidden_layers": 32,\n' \
           ' "num_attention_heads": 40, "vocab_size": 50277}\n'
    assert read_text(tmp_path, text)[1] == [
        "config.json:1:20: error: model.config.architectures[0]: unsupported architecture 'RwkvForCausalLM': "
        "sizing models transformer decoders and encoders; give parameters and the attention fields by hand"]


def test_tab_indented_json(tmp_path):
    fields, problems = read_text(tmp_path, LLAMA_LIKE.replace("  ", "\t"))
    assert problems == []
    assert fields["hidden"] == ("4096", 3, 17)


def test_feed_forward_size_is_needed_except_for_gpt2(tmp_path):
    assert read_text(tmp_path, LLAMA_LIKE.replace('  "intermediate_size": 11008,\n', ""))[1] == [
        "config.json:1:1: error: model.config: missing 'intermediate_size' (or n_inner, ffn_dim): "
        "the feed-forward size, needed to count parameters"]
    gpt2 = '{"model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_layer": 12, "n_inner": null,\n' \
           ' "vocab_size": 50257, "n_positions": 1024}\n'
    fields, problems = read_text(tmp_path, gpt2)
    assert problems == []
    assert fields["parameters"] == ("124439808", 1, 1)
    assert "intermediate" not in fields


def test_a_scenario_model_reads_its_config_and_overrides_win(tmp_path):
    import shutil

    from sizing.evaluate import evaluate
    from sizing.scenario import load_scenario

    shutil.copy(FIXTURES / "llama-3.1-8b.json", tmp_path / "config.json")
    text = ("sizing: 1\nname: cfg\ndevices:\n  acc: {from: illustrative-accelerator}\nmodels:\n"
            "  l8:\n    config: config.json\n    context: 8192\nworkloads:\n"
            "  chat: {kind: generate, model: l8, batch: 8, input_tokens: 1000, output_tokens: 200}\n")
    (tmp_path / "s.yaml").write_text(text)
    scn, problems = load_scenario(tmp_path / "s.yaml")
    assert scn is not None and problems == []
    m = scn.models["l8"]
    assert m.get("parameters") == 8030261248 and m.get("context") == 8192
    assert m.values["layers"].source == "config config.json" and m.values["layers"].file.endswith("config.json")
    assert evaluate(scn).pair("chat", "acc").values["kv_bytes_per_token"] == 131072
    (tmp_path / "s.yaml").write_text(text.replace("config.json", "missing.json"))
    _, problems = load_scenario(tmp_path / "s.yaml")
    assert [str(p) for p in problems] == [
        f"{tmp_path / 's.yaml'}:7:13: error: models.l8.config: cannot read 'missing.json': no such file next to "
        "the scenario"]


def test_a_tied_output_projection_is_imported_and_its_family_default_kept(tmp_path):
    """tie_word_embeddings becomes the model's tied_embeddings (the table is the output projection, read and
    multiplied every generated token); absent, the family's default: Gemma ties, Llama does not; an encoder's table is
    only looked up."""
    from sizing.hfconfig import tied_embeddings
    tied, _ = read_text(tmp_path, LLAMA_LIKE.replace('"vocab_size": 32000', '"vocab_size": 32000,\n'
                                                     '  "tie_word_embeddings": true'))
    assert tied["tied_embeddings"][0] == "true"
    untied, _ = read_text(tmp_path, LLAMA_LIKE)
    assert "tied_embeddings" not in untied
    assert tied_embeddings({"model_type": "gemma2"}) and not tied_embeddings({"model_type": "llama"})
    assert not tied_embeddings({"model_type": "bert", "tie_word_embeddings": True})
    for mid in ("gemma-2-9b", "gemma-2-27b"):
        assert catalog()[1][mid].get("tied_embeddings") is True == tied_embeddings(hf_config(mid))
    assert all(not m.get("tied_embeddings") for mid, m in catalog()[1].items() if mid.startswith(("llama", "mixtral"))
               and not mid.startswith("llama-3.2"))            # Llama 3.2's small models tie theirs
    assert catalog()[1]["llama-3.2-3b"].get("tied_embeddings") is True
