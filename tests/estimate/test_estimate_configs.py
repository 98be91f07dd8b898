"""Real config.json files from the Hub against their published parameter counts (issue 12).

``tests/data/hf_configs/published.json`` names, for each file, the Hub address it was copied
from and where its parameter count was published (paper, model card or Hugging Face page).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from comparator.cli import main
from comparator.errors import UnknownModelError
from comparator.estimate.hf_config import shape_from_config
from comparator.estimate.shapes import resolve_model

CONFIGS = Path(__file__).parents[1] / "data" / "hf_configs"
PUBLISHED: list[dict[str, Any]] = json.loads((CONFIGS / "published.json").read_text())["models"]
TOTAL_TOLERANCE = 0.01
ACTIVE_TOLERANCE = 0.02


def test_the_reference_set_is_wide_enough() -> None:
    assert len(PUBLISHED) >= 20
    families = {resolve_model(str(CONFIGS / row["file"])).family for row in PUBLISHED}
    wanted = {"deepseek_v3", "deepseek_v2", "qwen2_moe", "gemma", "gemma2", "phi3", "phi3small"}
    assert wanted | {"gpt_bigcode", "bloom", "gpt2", "chatglm", "mixtral"} <= families
    more = {"mpt", "opt", "gptj", "gpt_neo", "gpt_neox", "dbrx", "olmoe", "cohere", "internlm2"}
    more |= {"baichuan"}
    assert more | {"gemma3_text", "starcoder2", "qwen3_moe", "falcon"} <= families
    assert all(row["config_url"].startswith("https://huggingface.co/") for row in PUBLISHED)


@pytest.mark.parametrize("row", PUBLISHED, ids=[row["file"] for row in PUBLISHED])
def test_total_parameters_within_one_percent(row: dict[str, Any]) -> None:
    shape = resolve_model(str(CONFIGS / row["file"]))
    assert shape.params == pytest.approx(row["total"], rel=TOTAL_TOLERANCE)


@pytest.mark.parametrize(
    "row", [r for r in PUBLISHED if r["active"]], ids=[r["file"] for r in PUBLISHED if r["active"]]
)
def test_active_parameters_within_two_percent(row: dict[str, Any]) -> None:
    shape = resolve_model(str(CONFIGS / row["file"]))
    assert shape.is_moe
    assert shape.active_params == pytest.approx(row["active"], rel=ACTIVE_TOLERANCE)


def test_mpt_opt_gptj_and_dbrx_read_their_own_keys() -> None:
    """Exact counts of the Hugging Face implementations (the Hub pages' totals)."""
    exact = {
        "mpt-7b.json": 6_649_286_656,
        "opt-6.7b.json": 6_658_473_984,
        "gpt-j-6b.json": 6_050_882_784,
        "gpt-neox-20b.json": 20_554_567_680,
        "gpt-neo-125m.json": 125_198_592,  # GPTNeoForCausalLM built from it (transformers 5.17)
    }
    for name, count in exact.items():
        assert resolve_model(str(CONFIGS / name)).params == count, name
    assert resolve_model(str(CONFIGS / "starcoder2-3b.json")).params == 3_030_371_328
    assert resolve_model(str(CONFIGS / "gemma3-1b.json")).params == 999_885_952
    dbrx = resolve_model(str(CONFIGS / "dbrx-base.json"))
    assert (dbrx.experts, dbrx.active_experts, dbrx.kv_heads) == (16, 4, 8)


def test_projected_opt_embeddings_and_unknown_mpt_attention_are_errors(tmp_path: Path) -> None:
    opt = json.loads((CONFIGS / "opt-6.7b.json").read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**opt, "word_embed_proj_dim": 512}))
    with pytest.raises(UnknownModelError, match="word_embed_proj_dim"):
        resolve_model(str(path))
    mpt = json.loads((CONFIGS / "mpt-7b.json").read_text())
    mpt["attn_config"] = {**mpt["attn_config"], "lora_rank_q": 64}
    path.write_text(json.dumps(mpt))
    with pytest.raises(UnknownModelError, match="lora_rank_q"):
        resolve_model(str(path))


def test_an_unknown_starcoder2_mlp_type_is_an_error(tmp_path: Path) -> None:
    config = json.loads((CONFIGS / "starcoder2-3b.json").read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**config, "mlp_type": "glu"}))
    with pytest.raises(UnknownModelError, match="mlp_type"):
        resolve_model(str(path))


def test_deepseek_v3_reads_mla_shared_experts_and_dense_layers() -> None:
    v3 = resolve_model(str(CONFIGS / "deepseek-v3.json"))
    assert v3.mla is not None and v3.mla.q_lora_rank == 1536 and v3.mla.kv_lora_rank == 512
    assert (v3.experts, v3.active_experts, v3.dense_layers) == (256, 8, 3)
    assert v3.shared_intermediate == 2048 and v3.router_bias
    assert v3.params == 671_026_419_200


def test_cli_reports_deepseek_v3_as_671b_total_37b_active(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["estimate", "--model", str(CONFIGS / "deepseek-v3.json"), "--json"])
    out, _ = capsys.readouterr()
    assert code == 0, out
    model = json.loads(out)["model"]
    assert model["params"] == pytest.approx(671e9, rel=0.02)
    assert model["active_params"] == pytest.approx(37e9, rel=0.02)
    assert model["attention"] == "mla"


def test_qwen_moe_counts_its_shared_expert() -> None:
    qwen = resolve_model(str(CONFIGS / "qwen1.5-moe-a2.7b.json"))
    assert qwen.shared_intermediate == 5632 and qwen.shared_gate
    dropped = qwen.active_params - qwen.layers * qwen.mlp_params(5632)
    assert dropped < 0.75 * qwen.active_params  # the shared expert is a third of the active


@pytest.mark.parametrize(
    ("filename", "kv_heads"),
    [
        ("starcoder.json", 1),  # gpt_bigcode multi_query
        ("falcon-7b.json", 1),  # falcon multi_query
        ("falcon-40b.json", 8),  # falcon num_kv_heads
        ("chatglm3-6b.json", 2),  # multi_query_group_num
        ("gemma-2b.json", 1),  # num_key_value_heads
        ("qwen2-57b-a14b.json", 4),
    ],
)
def test_key_value_heads_in_every_spelling(filename: str, kv_heads: int) -> None:
    assert resolve_model(str(CONFIGS / filename)).kv_heads == kv_heads


def test_n_head_kv_spelling() -> None:
    data = json.loads((CONFIGS / "falcon-40b.json").read_text())
    data["n_head_kv"] = data.pop("num_kv_heads")
    assert shape_from_config(data, "falcon.json").kv_heads == 8


def test_family_defaults_for_tied_embeddings() -> None:
    assert resolve_model(str(CONFIGS / "gemma-7b.json")).tied_embeddings  # key absent
    assert resolve_model(str(CONFIGS / "starcoder.json")).tied_embeddings
    assert not resolve_model(str(CONFIGS / "phi-3-mini-4k.json")).tied_embeddings


def test_gemma2_has_four_norms_per_layer_and_its_own_head_size() -> None:
    gemma = resolve_model(str(CONFIGS / "gemma-2-9b.json"))
    assert gemma.norms_per_layer == 4 and gemma.dim_per_head == 256
    assert gemma.q_dim == 4096 != gemma.hidden


def test_phi3_small_reads_ff_intermediate_size() -> None:
    phi = resolve_model(str(CONFIGS / "phi-3-small-8k.json"))
    assert phi.intermediate == 14336 and phi.kv_heads == 8


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ({"qk_layernorm": True}, "qk_layernorm"),
        ({"num_experts": 16, "num_experts_per_tok": 2, "expert_layer_period": 2}, "expert_layer"),
        ({"linear_num_key_heads": 4, "linear_key_head_dim": 128}, "linear_key_head_dim"),
        ({"index_n_heads": 64}, "index_n_heads"),
    ],
)
def test_unknown_count_changing_keys_are_an_error_naming_them(
    extra: dict[str, Any], named: str
) -> None:
    data = json.loads((CONFIGS / "llama-2-7b.json").read_text())
    with pytest.raises(UnknownModelError, match=named):
        shape_from_config({**data, **extra}, "cfg.json")


def test_llama_mlp_bias_is_counted() -> None:
    data = json.loads((CONFIGS / "llama-2-7b.json").read_text())
    biased = shape_from_config({**data, "mlp_bias": True}, "cfg.json")
    assert biased.params - 6_738_415_616 == 32 * (2 * 11008 + 4096)


def test_deepseek_keys_on_a_config_without_experts_are_not_read_as_dense() -> None:
    data = json.loads((CONFIGS / "llama-2-7b.json").read_text())
    with pytest.raises(UnknownModelError, match="n_shared_experts"):
        shape_from_config({**data, "n_shared_experts": 2}, "cfg.json")


def test_neutral_keys_are_accepted() -> None:
    data = json.loads((CONFIGS / "llama-2-7b.json").read_text())
    extra = {"rope_scaling": {"type": "yarn"}, "sliding_window": 4096, "hidden_dropout": 0.1}
    assert shape_from_config({**data, **extra}, "cfg.json").params == 6_738_415_616


@pytest.mark.parametrize(
    ("name", "filename"),
    [
        ("deepseek-ai/DeepSeek-V3", "deepseek-v3.json"),
        ("deepseek-ai/DeepSeek-V2", "deepseek-v2.json"),
        ("deepseek-ai/DeepSeek-V2-Lite", "deepseek-v2-lite.json"),
        ("Qwen/Qwen1.5-MoE-A2.7B-Chat", "qwen1.5-moe-a2.7b.json"),
        ("Qwen/Qwen2-57B-A14B", "qwen2-57b-a14b.json"),
        ("Qwen/Qwen3-30B-A3B", "qwen3-30b-a3b.json"),
        ("mistralai/Mixtral-8x22B-v0.1", "mixtral-8x22b.json"),
        ("google/gemma-2b", "gemma-2b.json"),
        ("google/gemma-7b", "gemma-7b.json"),
        ("google/gemma-2-2b-it", "gemma-2-2b.json"),
        ("google/gemma-2-9b", "gemma-2-9b.json"),
        ("google/gemma-2-27b", "gemma-2-27b.json"),
        ("microsoft/Phi-3-mini-4k-instruct", "phi-3-mini-4k.json"),
        ("microsoft/Phi-3-small-8k-instruct", "phi-3-small-8k.json"),
        ("microsoft/phi-2", "phi-2.json"),
        ("THUDM/chatglm3-6b", "chatglm3-6b.json"),
        ("bigcode/starcoder", "starcoder.json"),
        ("bigscience/bloom-7b1", "bloom-7b1.json"),
        ("openai-community/gpt2", "gpt2.json"),
        ("openai-community/gpt2-xl", "gpt2-xl.json"),
        ("tiiuae/falcon-7b", "falcon-7b.json"),
    ],
)
def test_new_builtin_names_match_their_config_files(name: str, filename: str) -> None:
    builtin = resolve_model(name)
    from_file = resolve_model(str(CONFIGS / filename))
    assert builtin.source == "builtin"
    assert (builtin.params, builtin.active_params) == (from_file.params, from_file.active_params)


def test_gpt_neo_lists_a_global_or_local_attention_for_each_layer(tmp_path: Path) -> None:
    """GPT-Neo's local layers share the global layers' weights; any other kind, or a list of
    another length than the layers, is refused by name rather than guessed."""
    data = json.loads((CONFIGS / "gpt-neo-125m.json").read_text())
    for wrong in (["global"] * 11, ["global", "sparse"] * 6):
        path = tmp_path / "config.json"
        path.write_text(json.dumps({**data, "attention_layers": wrong}))
        with pytest.raises(UnknownModelError, match="attention_layers"):
            resolve_model(str(path))
