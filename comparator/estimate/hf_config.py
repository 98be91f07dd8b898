"""Read a Hugging Face ``config.json`` into a :class:`~comparator.estimate.shapes.ModelShape`.

Understood key sets:

* llama / qwen2 / qwen3 / mistral / mixtral / yi / baichuan / deepseek style:
  ``num_hidden_layers``, ``hidden_size``, ``num_attention_heads``, ``intermediate_size``,
  ``vocab_size``; optional ``num_key_value_heads``, ``head_dim``, ``tie_word_embeddings``,
  ``attention_bias``, and for MoE ``num_local_experts`` / ``num_experts`` with
  ``num_experts_per_tok`` (``moe_intermediate_size`` when present);
* gpt2 / bloom style: ``n_layer``, ``n_embd`` (or ``hidden_size``), ``n_head``,
  ``vocab_size``; optional ``n_inner`` (default 4 × hidden) and ``n_positions`` (GPT-2);
* chatglm (GLM-4): ``num_layers``, ``hidden_size``, ``num_attention_heads``,
  ``multi_query_group_num``, ``ffn_hidden_size``, ``padded_vocab_size``.

A missing or malformed key raises :class:`UnknownModelError` naming the file and the key.
Not modelled: shared experts (Qwen-MoE, DeepSeek-MoE) and multi-head latent attention
(DeepSeek-V2/V3) — such configs read as their plain counterparts and undercount slightly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from comparator.errors import UnknownModelError
from comparator.estimate.shapes import ModelShape

_LLAMA_KEYS = "num_hidden_layers, hidden_size, num_attention_heads, intermediate_size, vocab_size"
_GPT2_KEYS = "n_layer, n_embd, n_head, vocab_size"
_EXPECTED = (
    f"a llama/qwen2/mistral/mixtral-style config.json ({_LLAMA_KEYS}) "
    f"or a gpt2/bloom-style one ({_GPT2_KEYS})"
)
#: model_type values whose MLP is fc1 → GELU → fc2 with biases and LayerNorm.
_GELU_TYPES = frozenset({"gpt_neox", "gptj", "opt", "falcon", "phi", "gpt_bigcode", "starcoder2"})


class _Reader:
    """Typed access to one config dict, with errors that name the file and key."""

    def __init__(self, data: Mapping[str, Any], source: str) -> None:
        self.data = data
        self.source = source

    def fail(self, message: str) -> UnknownModelError:
        return UnknownModelError(f"{self.source}: {message}")

    def positive(self, key: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise self.fail(f"key {key!r} must be a positive integer, got {value!r}")
        return value

    def first(self, *keys: str) -> int:
        for key in keys:
            if self.data.get(key) is not None:
                return self.positive(key, self.data[key])
        wanted = " or ".join(repr(k) for k in keys)
        raise self.fail(f"missing key {wanted}; expected {_EXPECTED}")

    def optional(self, key: str, default: int) -> int:
        value = self.data.get(key)
        return default if value is None else self.positive(key, value)

    def flag(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(f"key {key!r} must be true or false, got {value!r}")
        return value


def _name(data: Mapping[str, Any], source: str) -> str:
    declared = data.get("_name_or_path")
    if isinstance(declared, str) and declared.strip():
        return declared.strip().rsplit("/", 1)[-1]
    path = Path(source)
    return path.parent.name if path.name == "config.json" and path.parent.name else path.stem


def _gpt2_style(read: _Reader, name: str, model_type: str) -> ModelShape:
    hidden = read.first("n_embd", "hidden_size", "n_embed")
    bloom = model_type == "bloom"
    return ModelShape(
        name=name,
        layers=read.first("n_layer", "num_hidden_layers"),
        hidden=hidden,
        heads=read.first("n_head", "num_attention_heads"),
        kv_heads=read.first("n_head", "num_attention_heads"),
        intermediate=read.optional("n_inner", 4 * hidden),
        vocab=read.first("vocab_size"),
        tied_embeddings=read.flag("tie_word_embeddings", True),
        gated_mlp=False,
        linear_bias=True,
        layer_norm=True,
        position_embeddings=0 if bloom else read.optional("n_positions", 1024),
        extra_norms=1 if bloom else 0,
        source="config",
    )


def _chatglm_style(read: _Reader, name: str) -> ModelShape:
    heads = read.first("num_attention_heads")
    multi_query = read.flag("multi_query_attention", True)
    return ModelShape(
        name=name,
        layers=read.first("num_layers", "num_hidden_layers"),
        hidden=read.first("hidden_size"),
        heads=heads,
        kv_heads=read.optional("multi_query_group_num", heads) if multi_query else heads,
        intermediate=read.first("ffn_hidden_size", "intermediate_size"),
        vocab=read.first("padded_vocab_size", "vocab_size"),
        tied_embeddings=read.flag("tie_word_embeddings", False),
        head_dim=read.optional("kv_channels", 0) or None,
        qkv_bias=read.flag("add_qkv_bias", True),
        source="config",
    )


def _llama_style(read: _Reader, name: str, model_type: str) -> ModelShape:
    heads = read.first("num_attention_heads")
    experts = read.optional("num_local_experts", read.optional("num_experts", 1))
    moe_size = read.optional("moe_intermediate_size", 0) if experts > 1 else 0
    gelu = model_type in _GELU_TYPES
    return ModelShape(
        name=name,
        layers=read.first("num_hidden_layers"),
        hidden=read.first("hidden_size"),
        heads=heads,
        kv_heads=read.optional("num_key_value_heads", heads),
        intermediate=moe_size or read.first("intermediate_size"),
        vocab=read.first("vocab_size"),
        tied_embeddings=read.flag("tie_word_embeddings", False),
        experts=experts,
        active_experts=read.first("num_experts_per_tok") if experts > 1 else 1,
        head_dim=read.optional("head_dim", 0) or None,
        gated_mlp=not gelu,
        qkv_bias=read.flag("attention_bias", model_type in ("qwen2", "qwen2_moe")),
        linear_bias=gelu,
        layer_norm=gelu,
        qk_norm=model_type in ("qwen3", "qwen3_moe"),
        source="config",
    )


def _check(shape: ModelShape, read: _Reader) -> ModelShape:
    if shape.head_dim is None and shape.hidden % shape.heads:
        raise read.fail(f"hidden size {shape.hidden} is not a multiple of {shape.heads} heads")
    if shape.heads % shape.kv_heads:
        raise read.fail(
            f"{shape.heads} attention heads are not a multiple of {shape.kv_heads} key/value heads"
        )
    if shape.active_experts > shape.experts:
        raise read.fail(f"{shape.active_experts} active experts exceed {shape.experts} experts")
    return shape


def shape_from_config(data: Any, source: str) -> ModelShape:
    """The shape described by a parsed config.json (``source`` names it in errors)."""
    if not isinstance(data, Mapping):
        raise UnknownModelError(f"{source}: expected a JSON object, got {type(data).__name__}")
    text_config = data.get("text_config")
    if "num_hidden_layers" not in data and isinstance(text_config, Mapping):
        data = {**data, **text_config}  # multimodal wrappers keep the LM in text_config
    read = _Reader(data, source)
    model_type = str(data.get("model_type", "")).lower()
    name = _name(data, source)
    if model_type in ("gpt2", "bloom") or "n_layer" in data or "n_embd" in data:
        shape = _gpt2_style(read, name, model_type)
    elif model_type == "chatglm" or "ffn_hidden_size" in data:
        shape = _chatglm_style(read, name)
    else:
        shape = _llama_style(read, name, model_type)
    return _check(shape, read)


def load_config(path: Path) -> ModelShape:
    """Read ``path`` (a config.json, or a folder holding one) into a shape."""
    if path.is_dir():
        path = path / "config.json"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UnknownModelError(f"{path}: no such config.json file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UnknownModelError(f"{path}: cannot read config.json ({exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnknownModelError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    return shape_from_config(data, str(path))
