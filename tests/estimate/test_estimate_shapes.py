"""Model shapes: the built-in table, config.json files and bare sizes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparator.errors import UnknownModelError
from comparator.estimate.hf_config import shape_from_config
from comparator.estimate.shapes import BUILTIN_SHAPES, find_builtin, parse_size, resolve_model

CONFIGS = Path(__file__).parents[1] / "data" / "hf_configs"

# Parameter counts as the Hugging Face model pages report them (safetensors totals).
PUBLISHED_PARAMS = {
    "Llama-2-7b": 6_738_415_616,
    "Llama-2-13b": 13_015_864_320,
    "Llama-2-70b": 68_976_648_192,
    "Llama-3.1-8B": 8_030_261_248,
    "Llama-3.1-70B": 70_553_706_496,
    "Qwen2.5-0.5B": 494_032_768,
    "Qwen2.5-7B": 7_615_616_512,
    "Mistral-7B-v0.1": 7_241_732_096,
    "Mixtral-8x7B": 46_702_792_704,
}
# Rounded figures from model cards and papers: within half of the last printed digit.
ROUNDED_PARAMS = {
    "Llama-3.1-405B": (406e9, 0.5e9),  # the Hugging Face page shows 406B
    "Qwen2.5-1.5B": (1.54e9, 0.005e9),
    "Qwen2.5-3B": (3.09e9, 0.005e9),
    "Qwen2.5-72B": (72.7e9, 0.05e9),
    "Qwen3-0.6B": (0.6e9, 0.05e9),
    "Qwen3-1.7B": (1.7e9, 0.05e9),
    "Qwen3-4B": (4.0e9, 0.05e9),
    "Qwen3-8B": (8.2e9, 0.05e9),
    "Qwen3-14B": (14.8e9, 0.05e9),
    "Qwen3-32B": (32.8e9, 0.05e9),
    "GLM-4-9B": (9.4e9, 0.05e9),
    "Yi-6B": (6.06e9, 0.005e9),
    "Yi-34B": (34.4e9, 0.05e9),
    "DeepSeek-LLM-7B": (6.9e9, 0.05e9),
    "DeepSeek-LLM-67B": (67.4e9, 0.05e9),
    "Baichuan2-7B": (7.5e9, 0.05e9),
    "Baichuan2-13B": (13.9e9, 0.05e9),
}


@pytest.mark.parametrize(("name", "params"), sorted(PUBLISHED_PARAMS.items()))
def test_builtin_parameter_counts_are_exact(name: str, params: int) -> None:
    assert resolve_model(name).params == params


@pytest.mark.parametrize(("name", "expected"), sorted(ROUNDED_PARAMS.items()))
def test_builtin_parameter_counts_match_model_cards(
    name: str, expected: tuple[float, float]
) -> None:
    value, half_digit = expected
    assert resolve_model(name).params == pytest.approx(value, abs=half_digit)


def test_every_builtin_required_by_the_issue_is_there() -> None:
    wanted = [
        "Llama-2-7b",
        "Llama-2-13b",
        "Llama-2-70b",
        "Llama-3.1-8B",
        "Llama-3.1-70B",
        "Llama-3.1-405B",
        "Qwen2.5-0.5B",
        "Qwen2.5-72B",
        "Qwen3-8B",
        "Mistral-7B",
        "Mixtral-8x7B",
        "GLM-4-9B",
        "Baichuan2-7B",
        "Baichuan2-13B",
        "Yi-6B",
        "Yi-34B",
        "DeepSeek-LLM-7B",
        "DeepSeek-LLM-67B",
    ]
    assert all(find_builtin(name) is not None for name in wanted)
    assert len({s.name for s in BUILTIN_SHAPES}) == len(BUILTIN_SHAPES)


def test_mixtral_counts_active_experts_separately() -> None:
    mixtral = resolve_model("Mixtral-8x7B")
    assert (mixtral.experts, mixtral.active_experts) == (8, 2)
    assert mixtral.active_params == pytest.approx(12.9e9, abs=0.05e9)  # Mistral AI: 12.9B


@pytest.mark.parametrize(
    "spelling",
    [
        "Llama-2-7b",
        "llama-2-7b",
        "meta-llama/Llama-2-7b-hf",
        "Llama-2-7b-chat-hf",
        "LLAMA 2 7B",
        "llama_2_7b",
    ],
)
def test_llama2_spellings(spelling: str) -> None:
    assert resolve_model(spelling).name == "Llama-2-7b"


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("Qwen/Qwen2.5-7B-Instruct", "Qwen2.5-7B"),
        ("meta-llama/Meta-Llama-3.1-8B-Instruct", "Llama-3.1-8B"),
        ("Llama-3-70B", "Llama-3.1-70B"),
        ("mistralai/Mixtral-8x7B-Instruct-v0.1", "Mixtral-8x7B"),
        ("mistralai/Mistral-7B-Instruct-v0.3", "Mistral-7B-v0.3"),
        ("THUDM/glm-4-9b-chat", "GLM-4-9B"),
        ("deepseek-ai/deepseek-llm-67b-base", "DeepSeek-LLM-67B"),
    ],
)
def test_organisation_prefixes_and_chat_suffixes(spelling: str, name: str) -> None:
    assert resolve_model(spelling).name == name


def test_a_misspelt_name_suggests_close_ones() -> None:
    with pytest.raises(UnknownModelError, match="did you mean Llama-2-7b"):
        resolve_model("Lama-2-7b")


# -- config.json ---------------------------------------------------------------------------

FIXTURE_PARAMS = {
    "llama-2-7b.json": 6_738_415_616,
    "qwen2.5-7b.json": 7_615_616_512,
    "mixtral-8x7b.json": 46_702_792_704,
    "gpt2.json": 124_439_808,
    "bloom-560m.json": 559_214_592,
    "tinyllama-1.1b.json": 1_100_048_384,
    "glm-4-9b.json": 9_399_951_360,
}


@pytest.mark.parametrize(("filename", "params"), sorted(FIXTURE_PARAMS.items()))
def test_config_json_parameter_counts(filename: str, params: int) -> None:
    shape = resolve_model(str(CONFIGS / filename))
    assert shape.params == params and shape.source == "config"


def test_config_json_of_the_builtin_has_the_builtin_shape() -> None:
    from_file = resolve_model(str(CONFIGS / "llama-2-7b.json"))
    builtin = resolve_model("Llama-2-7b")
    keys = ("layers", "hidden", "heads", "kv_heads", "intermediate", "vocab", "params")
    assert [getattr(from_file, k) for k in keys] == [getattr(builtin, k) for k in keys]
    assert from_file.name == "Llama-2-7b-hf"


def test_gpt2_style_keys() -> None:
    gpt2 = resolve_model(str(CONFIGS / "gpt2.json"))
    assert (gpt2.layers, gpt2.hidden, gpt2.heads, gpt2.intermediate) == (12, 768, 12, 3072)
    assert gpt2.tied_embeddings and not gpt2.gated_mlp and gpt2.position_embeddings == 1024


def test_a_folder_holding_config_json(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text((CONFIGS / "qwen2.5-7b.json").read_text())
    shape = resolve_model(str(tmp_path))
    assert shape.params == 7_615_616_512 and shape.name == tmp_path.name


def test_missing_key_names_the_file_and_the_key() -> None:
    path = CONFIGS / "missing-hidden-size.json"
    with pytest.raises(UnknownModelError) as caught:
        resolve_model(str(path))
    message = str(caught.value)
    assert str(path) in message and "'hidden_size'" in message and "n_embd" in message


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (
            {
                "num_hidden_layers": 2,
                "hidden_size": "4096",
                "num_attention_heads": 32,
                "intermediate_size": 8,
                "vocab_size": 8,
            },
            "'hidden_size' must be a positive integer",
        ),
        (
            {
                "num_hidden_layers": 2,
                "hidden_size": 100,
                "num_attention_heads": 32,
                "intermediate_size": 8,
                "vocab_size": 8,
            },
            "not a multiple of 32 heads",
        ),
        (
            {
                "num_hidden_layers": 2,
                "hidden_size": 64,
                "num_attention_heads": 4,
                "num_key_value_heads": 3,
                "intermediate_size": 8,
                "vocab_size": 8,
            },
            "key/value heads",
        ),
        (
            {
                "num_hidden_layers": 2,
                "hidden_size": 64,
                "num_attention_heads": 4,
                "intermediate_size": 8,
                "vocab_size": 8,
                "num_local_experts": 8,
            },
            "num_experts_per_tok",
        ),
        ([1, 2], "expected a JSON object"),
    ],
)
def test_malformed_configs(data: object, fragment: str) -> None:
    with pytest.raises(UnknownModelError, match=fragment):
        shape_from_config(data, "cfg.json")


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"hidden_size": 4096,\n  oops}')
    with pytest.raises(UnknownModelError, match=r"not valid JSON \(line 2"):
        resolve_model(str(path))


def test_a_missing_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(UnknownModelError, match=r"no such config\.json"):
        resolve_model(str(tmp_path / "nope.json"))


def test_multimodal_wrapper_reads_text_config(tmp_path: Path) -> None:
    text = json.loads((CONFIGS / "llama-2-7b.json").read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llava", "text_config": text}))
    assert resolve_model(str(path)).params == 6_738_415_616


# -- bare sizes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "params"),
    [
        ("7B", 7_000_000_000),
        ("7.5B", 7_500_000_000),
        ("350M", 350_000_000),
        ("70b", 70_000_000_000),
        ("1.5T", 1_500_000_000_000),
        ("125m", 125_000_000),
    ],
)
def test_bare_sizes_keep_the_stated_count(text: str, params: int) -> None:
    shape = resolve_model(text)
    assert shape.params == params and shape.inferred and shape.source == "size"


def test_inferred_shape_of_7b_is_llama_like() -> None:
    shape = resolve_model("7B")
    assert (shape.hidden, shape.heads, shape.intermediate, shape.vocab) == (4096, 32, 11008, 32000)
    assert shape.layers == 33  # (7e9 − 2·V·h) / (4h² + 3hI)
    blocks = shape.layers * (4 * 4096**2 + 3 * 4096 * 11008) + 2 * 32000 * 4096
    assert blocks == pytest.approx(7e9, rel=0.02)


@pytest.mark.parametrize("text", ["7Q", "seven billion", "B7", "7BB", ""])
def test_unreadable_models_are_one_clear_error(text: str) -> None:
    with pytest.raises(UnknownModelError, match="model"):
        resolve_model(text)


def test_a_size_below_a_million_is_refused() -> None:
    with pytest.raises(UnknownModelError, match="too small"):
        resolve_model("500k")


def test_parse_size() -> None:
    assert parse_size("13B") == 13_000_000_000
    assert parse_size("7000000000") == 7_000_000_000
    assert parse_size("Llama") is None
