"""Configs people train today (issue 23, item 7): gpt-oss, Llama 4 with its vision tower,
other vision or audio towers and NAS ``block_configs`` refused by name, never dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparator.cli import main
from comparator.errors import UnknownModelError
from comparator.estimate import EstimateRequest, estimate
from comparator.estimate.shapes import resolve_model

CONFIGS = Path(__file__).parents[1] / "data" / "hf_configs"
GPT_OSS = CONFIGS / "gpt-oss-20b.json"
SCOUT = CONFIGS / "llama-4-scout-17b-16e.json"


def test_gpt_oss_20b_is_20_9b_total_and_3_6b_active(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["estimate", "--model", str(GPT_OSS), "--tokens", "1B", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    assert doc["model"]["params"] == pytest.approx(20.9e9, rel=0.03)
    assert doc["model"]["active_params"] == pytest.approx(3.6e9, rel=0.03)
    shape = resolve_model(str(GPT_OSS))
    assert (shape.experts, shape.active_experts) == (32, 4)
    assert shape.attention_sinks and shape.o_bias and shape.router_bias and shape.mlp_bias


def test_gpt_oss_120b_layout_is_116_8b_total_and_5_1b_active(tmp_path: Path) -> None:
    """gpt-oss-120b is the 20b recipe with 36 layers and 128 experts (Sebastian Raschka's LLM
    architecture gallery, 'GPT-OSS (120B)': 117B total, 5.1B active; the model card: 116.8B)."""
    data = json.loads(GPT_OSS.read_text())
    data.update(num_hidden_layers=36, num_local_experts=128)
    data["layer_types"] = ["sliding_attention", "full_attention"] * 18
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    shape = resolve_model(str(path))
    assert shape.params == pytest.approx(116.8e9, rel=0.01)
    assert shape.active_params == pytest.approx(5.1e9, rel=0.03)


def test_llama_4_scout_is_109b_total_and_17b_active_with_its_vision_tower() -> None:
    shape = resolve_model(str(SCOUT))
    assert shape.params == pytest.approx(109e9, rel=0.03)
    assert shape.active_params == pytest.approx(17e9, rel=0.03)
    # Llama4VisionModel as the per-module listing of the same source counts it
    assert shape.vision_params == 871_932_416
    assert shape.shared_intermediate == 8192 and shape.moe_layers == 48
    result = estimate(EstimateRequest(model=str(SCOUT), method="lora", tokens=10**9))
    assert result.memory.base_weights >= shape.params * 2 / max(result.cards, 1) * 0.99


def test_interleaved_moe_layers_and_their_dense_width(tmp_path: Path) -> None:
    """Maverick's layout: every second layer routes (interleave_moe_layer_step 2), the others
    run the 16,384-wide dense MLP (intermediate_size_mlp)."""
    data = json.loads(SCOUT.read_text())
    text = data["text_config"]
    del text["moe_layers"]
    text.update(interleave_moe_layer_step=2, num_local_experts=128)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    shape = resolve_model(str(path))
    assert shape.moe_layers == 24 and shape.dense_layers == 24
    assert shape.dense_intermediate == 16384
    assert shape.params == pytest.approx(400e9, rel=0.03)  # Maverick: 400B total
    assert shape.active_params == pytest.approx(17e9, rel=0.05)


def test_another_vision_tower_is_refused_by_name(tmp_path: Path) -> None:
    data = json.loads(SCOUT.read_text())
    data["vision_config"]["model_type"] = "siglip_vision_model"
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    with pytest.raises(UnknownModelError, match="'vision_config'"):
        resolve_model(str(path))
    qwen = json.loads((CONFIGS / "qwen2.5-7b.json").read_text())
    path.write_text(json.dumps({**qwen, "vision_config": {"depth": 32, "embed_dim": 1280}}))
    with pytest.raises(UnknownModelError, match="'vision_config'"):
        resolve_model(str(path))
    path.write_text(json.dumps({**qwen, "mm_vision_tower": "openai/clip-vit-large-patch14"}))
    with pytest.raises(UnknownModelError, match="'mm_vision_tower'"):
        resolve_model(str(path))


def test_a_nas_config_is_refused_naming_block_configs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qwen = json.loads((CONFIGS / "qwen2.5-7b.json").read_text())
    blocks = [{"attention": {"n_heads_in_group": 8}, "ffn": {"ffn_mult": 5.25}}]
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**qwen, "model_type": "nemotron-nas", "block_configs": blocks}))
    with pytest.raises(UnknownModelError, match="'block_configs'"):
        resolve_model(str(path))
    code = main(["--lang", "en", "estimate", "--model", str(path)])
    captured = capsys.readouterr()
    assert code != 0 and "block_configs" in captured.err + captured.out
    assert "Traceback" not in captured.err
