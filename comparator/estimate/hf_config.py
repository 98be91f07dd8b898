"""Read a Hugging Face ``config.json`` into a :class:`~comparator.estimate.architecture.ModelShape`.

Families and the keys read (spellings in use across the Hub):

* llama / mistral / qwen2 / qwen3 / yi / baichuan / gemma / gemma2 / phi3 / starcoder2 /
  gpt_neox … — ``num_hidden_layers``, ``hidden_size``, ``num_attention_heads``,
  ``intermediate_size``, ``vocab_size``; ``head_dim``; key/value heads as
  ``num_key_value_heads``, ``num_kv_heads``, ``n_head_kv``, ``multi_query_group_num`` or
  ``multi_query``; ``attention_bias``, ``use_bias``, q/k norms (Qwen3, Gemma-3,
  ``use_qk_norm``);
* mixture of experts — ``num_local_experts`` (Mixtral), ``num_experts`` (Qwen-MoE),
  ``n_routed_experts`` (DeepSeek, GLM-4.5) with ``num_experts_per_tok``,
  ``moe_intermediate_size``, shared experts (``n_shared_experts`` × the expert width, or
  ``shared_expert_intermediate_size``), dense layers (``first_k_dense_replace`` and
  ``moe_layer_freq``; ``decoder_sparse_step`` and ``mlp_only_layers``);
* DeepSeek-V2/V3 multi-head latent attention — ``q_lora_rank`` (null: a plain q projection),
  ``kv_lora_rank``, ``qk_rope_head_dim``, ``qk_nope_head_dim``, ``v_head_dim``. The
  multi-token-prediction module (``num_nextn_predict_layers``) is not counted, as in the
  published 671B;
* gpt2 / gpt_bigcode / bloom — ``n_layer``, ``n_embd`` (or ``hidden_size``), ``n_head``,
  ``n_inner`` (default 4 × hidden), ``n_positions``; BigCode's ``multi_query``;
* falcon — ``multi_query``, ``new_decoder_architecture`` with ``num_kv_heads``,
  ``parallel_attn``, ``bias``; phi (Phi-2) — parallel block, biased output head;
  phi3small — ``ff_intermediate_size``, GeGLU; chatglm (ChatGLM3, GLM-4) — ``num_layers``,
  ``multi_query_group_num``, ``ffn_hidden_size``, ``padded_vocab_size``, ``kv_channels``;
* mpt, opt, gptj, dbrx — their own keys (``d_model``/``expansion_ratio``, ``ffn_dim``/
  ``word_embed_proj_dim``, ``n_embd``/``rotary_dim``), read in
  :mod:`comparator.estimate.hf_families`.

A missing ``tie_word_embeddings`` takes the family's own default (tied for Gemma, GPT-2,
BigCode, BLOOM, Falcon, Phi-3-small, StarCoder2; untied otherwise). A missing or malformed key
raises :class:`UnknownModelError` naming the file and the key, and so does any set key that
would change the count but that no reader understood (:func:`~comparator.estimate.hf_reader.
unread_count_keys`) — never a silent dense reading.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from comparator.errors import Msg, UnknownModelError
from comparator.estimate.architecture import Mla, ModelShape
from comparator.estimate.hf_families import dbrx, gpt_neo, gptj, mpt, opt, unfused_gelu
from comparator.estimate.hf_reader import Reader, unread_count_keys

#: model_type values whose MLP is fc1 → GELU → fc2 with biases and LayerNorm.
_GELU_TYPES = frozenset({"gpt_neox", "gptj", "opt", "falcon", "phi", "gpt_bigcode", "starcoder2"})
#: model_type values whose config class ties the output head to the embeddings by default.
_TIED_BY_DEFAULT = frozenset(
    {
        "gemma",
        "gemma2",
        "gemma3",
        "gemma3_text",
        "gpt2",
        "gpt_bigcode",
        "bloom",
        "falcon",
        "phi3small",
        "starcoder2",
        "opt",
        "cohere",
    }
)
_FOUR_NORMS = frozenset({"gemma2", "gemma3", "gemma3_text"})
_QK_NORM_TYPES = frozenset({"qwen3", "qwen3_moe", "gemma3", "gemma3_text"})
_QKV_BIAS_TYPES = frozenset({"qwen2", "qwen2_moe"})
#: Families with a reader of their own (``hf_families``).
_FAMILIES = {"mpt": mpt, "opt": opt, "gptj": gptj, "gpt_neo": gpt_neo, "dbrx": dbrx}
#: Keys read and deliberately not counted (they do not change the published totals).
_NOT_COUNTED = ("num_nextn_predict_layers", "quantization_config")


def _name(data: Mapping[str, Any], source: str) -> str:
    declared = data.get("_name_or_path")
    if isinstance(declared, str) and declared.strip():
        return declared.strip().rsplit("/", 1)[-1]
    path = Path(source)
    return path.parent.name if path.name == "config.json" and path.parent.name else path.stem


def _tied(read: Reader, model_type: str) -> bool:
    return read.flag("tie_word_embeddings", model_type in _TIED_BY_DEFAULT)


def _kv_heads(read: Reader, heads: int) -> int:
    """Key/value heads under every spelling: GQA counts, ChatGLM groups, MQA flags."""
    for key in ("num_key_value_heads", "num_kv_heads", "n_head_kv"):
        if read.has(key):
            return read.first(key)
    if read.has("multi_query_group_num") and read.flag("multi_query_attention", True):
        return read.first("multi_query_group_num")
    return 1 if read.flag("multi_query", False) else heads


def _gpt2_style(read: Reader, name: str, model_type: str) -> ModelShape:
    hidden = read.first("n_embd", "hidden_size", "n_embed")
    heads = read.first("n_head", "num_attention_heads")
    bloom = model_type == "bloom"
    bigcode = model_type == "gpt_bigcode"
    return ModelShape(
        name=name,
        layers=read.first("n_layer", "num_hidden_layers"),
        hidden=hidden,
        heads=heads,
        kv_heads=1 if read.flag("multi_query", bigcode) else heads,
        intermediate=read.optional("n_inner", 4 * hidden),
        vocab=read.first("vocab_size"),
        tied_embeddings=_tied(read, model_type or "gpt2"),
        gated_mlp=False,
        unfused_gelu=unfused_gelu(read, model_type or "gpt2"),
        linear_bias=True,
        layer_norm=True,
        position_embeddings=0 if bloom else read.optional("n_positions", 1024),
        extra_norms=1 if bloom else 0,
        source="config",
        family=model_type or "gpt2",
    )


def _falcon(read: Reader, name: str) -> ModelShape:
    heads = read.first("num_attention_heads", "n_head")
    hidden = read.first("hidden_size", "n_embed")
    new = read.flag("new_decoder_architecture", False)
    if new:
        read.flag("multi_query", True)  # the new architecture reads num_kv_heads instead
        kv = (
            read.first("num_kv_heads", "n_head_kv")
            if read.has("num_kv_heads") or read.has("n_head_kv")
            else heads
        )
    else:
        kv = 1 if read.flag("multi_query", True) else heads
    parallel = read.flag("parallel_attn", True)
    return ModelShape(
        name=name,
        layers=read.first("num_hidden_layers", "n_layer"),
        hidden=hidden,
        heads=heads,
        kv_heads=kv,
        intermediate=read.optional("ffn_hidden_size", 4 * hidden),
        vocab=read.first("vocab_size"),
        tied_embeddings=_tied(read, "falcon"),
        gated_mlp=False,
        linear_bias=read.flag("bias", False),
        layer_norm=True,
        norms_per_layer=2 if new or not parallel else 1,
        source="config",
        family="falcon",
    )


def _chatglm_style(read: Reader, name: str) -> ModelShape:
    heads = read.first("num_attention_heads")
    read.flag("post_layer_norm", True)
    return ModelShape(
        name=name,
        layers=read.first("num_layers", "num_hidden_layers"),
        hidden=read.first("hidden_size"),
        heads=heads,
        kv_heads=_kv_heads(read, heads),
        intermediate=read.first("ffn_hidden_size", "intermediate_size"),
        vocab=read.first("padded_vocab_size", "vocab_size"),
        tied_embeddings=read.flag("tie_word_embeddings", False),
        head_dim=read.optional("kv_channels", 0) or None,
        qkv_bias=read.flag("add_qkv_bias", True),
        linear_bias=read.flag("add_bias_linear", False),
        layer_norm=not read.flag("rmsnorm", True),
        source="config",
        family="chatglm",
    )


def _moe_layer_count(read: Reader, layers: int) -> int:
    """How many layers route to experts (the others have a dense MLP)."""
    step = read.optional("decoder_sparse_step", 1)
    step = read.optional("interleave_moe_layer_step", step)  # Llama 4: every step-th layer
    if read.has("moe_layers"):  # Llama 4's config object lists them
        listed = read.int_list("moe_layers")
        if listed:
            return len(set(listed))
    first_dense = read.count("first_k_dense_replace")
    freq = read.optional("moe_layer_freq", 1)
    mlp_only = set(read.int_list("mlp_only_layers"))
    return sum(
        1
        for i in range(layers)
        if i >= first_dense and i % freq == 0 and (i + 1) % step == 0 and i not in mlp_only
    )


def _moe(read: Reader, layers: int, model_type: str) -> dict[str, Any]:
    """ModelShape keyword arguments for the mixture-of-experts keys ({} for a dense model)."""
    routed = next(
        (
            read.count(k)
            for k in ("n_routed_experts", "num_local_experts", "num_experts")
            if read.has(k)
        ),
        0,
    )
    if routed <= 1:
        return {}
    width = read.optional("moe_intermediate_size", 0) or read.first("intermediate_size")
    shared = read.count("n_shared_experts") * width + read.count("shared_expert_intermediate_size")
    if model_type == "llama4_text":
        shared = width  # Llama4TextMoe: one shared expert as wide as a routed one, always on
    moe_layers = _moe_layer_count(read, layers)
    dense_width = read.optional("intermediate_size_mlp", 0)  # Llama 4's dense layers
    return {
        "experts": routed,
        "active_experts": read.first("num_experts_per_tok", "experts_per_token"),
        "intermediate": width,
        "dense_intermediate": dense_width or read.optional("intermediate_size", width),
        "dense_layers": layers - moe_layers,
        "shared_intermediate": shared,
        "shared_gate": model_type == "qwen2_moe" and shared > 0,
        "router_bias": read.raw("topk_method") == "noaux_tc" or model_type == "gpt_oss",
    }


def _mla(read: Reader) -> Mla | None:
    if not read.has("kv_lora_rank"):
        return None
    read.raw("qk_head_dim")
    return Mla(
        q_lora_rank=read.count("q_lora_rank"),
        kv_lora_rank=read.first("kv_lora_rank"),
        rope_dim=read.first("qk_rope_head_dim"),
        nope_dim=read.first("qk_nope_head_dim"),
        v_dim=read.first("v_head_dim"),
    )


def _qk_norm(read: Reader, model_type: str) -> bool:
    explicit = read.flag("use_qk_norm", False) or read.flag("add_qk_norm", False)
    if model_type == "llama4_text":
        read.int_list("no_rope_layers")  # which layers skip RoPE: no parameters
        return False  # Llama 4's q/k norm is a weightless L2 norm
    return explicit or model_type in _QK_NORM_TYPES


def _starcoder2_kinds(read: Reader) -> None:
    """StarCoder2's GELU MLP and LayerNorm are the defaults; other kinds are not understood."""
    for key, known in (("mlp_type", "default"), ("norm_type", "layer_norm")):
        value = read.raw(key)
        if value not in (None, known):
            raise read.fail(
                "key {key!r} = {value!r} is not understood (only {known!r})",
                key=key,
                value=value,
                known=known,
            )


def _llama_style(read: Reader, name: str, model_type: str) -> ModelShape:
    heads = read.first("num_attention_heads")
    layers = read.first("num_hidden_layers")
    gelu = model_type in _GELU_TYPES
    if model_type == "gpt_neox":
        read.flag("use_parallel_residual", True)
    if model_type == "starcoder2":
        _starcoder2_kinds(read)
    phi = model_type == "phi"
    oss = model_type == "gpt_oss"
    moe = _moe(read, layers, model_type)
    dense_width = read.first("ff_intermediate_size", "intermediate_size")
    return ModelShape(
        name=name,
        layers=layers,
        hidden=read.first("hidden_size"),
        heads=heads,
        kv_heads=_kv_heads(read, heads),
        intermediate=moe.pop("intermediate", dense_width),
        vocab=read.first("vocab_size"),
        tied_embeddings=_tied(read, model_type),
        head_dim=read.optional("head_dim", 0) or None,
        gated_mlp=not gelu,
        unfused_gelu=unfused_gelu(read, model_type) if gelu else "",
        qkv_bias=read.flag("attention_bias", model_type in _QKV_BIAS_TYPES),
        linear_bias=gelu and read.flag("use_bias", True),
        layer_norm=gelu or model_type in ("phi3small", "phimoe"),
        mlp_bias=read.flag("mlp_bias", oss),
        o_bias=oss and read.flag("attention_bias", True),
        attention_sinks=oss,
        active_excludes_embedding=oss,
        qk_norm=_qk_norm(read, model_type),
        mla=_mla(read),
        norms_per_layer=4 if model_type in _FOUR_NORMS else (1 if phi else 2),
        lm_head_bias=read.flag("lm_head_bias", phi),
        source="config",
        family=model_type,
        **moe,
    )


def _check(shape: ModelShape, read: Reader) -> ModelShape:
    if shape.head_dim is None and shape.mla is None and shape.hidden % shape.heads:
        raise read.fail(
            "hidden size {hidden} is not a multiple of {heads} heads",
            hidden=shape.hidden,
            heads=shape.heads,
        )
    if shape.heads % shape.kv_heads:
        raise read.fail(
            "{heads} attention heads are not a multiple of {kv_heads} key/value heads",
            heads=shape.heads,
            kv_heads=shape.kv_heads,
        )
    if shape.active_experts > shape.experts:
        raise read.fail(
            "{active} active experts exceed {experts} experts",
            active=shape.active_experts,
            experts=shape.experts,
        )
    for key in _NOT_COUNTED:
        read.raw(key)
    unknown = unread_count_keys(read)
    if unknown:
        raise read.fail(
            "keys {keys} would change the parameter count but are not understood for "
            "model_type {family!r}; the estimator refuses to guess (a dense reading would be "
            "wrong)",
            keys=", ".join(repr(k) for k in unknown),
            family=shape.family or "unknown",
        )
    return shape


def _read(read: Reader, data: Mapping[str, Any], name: str, model_type: str) -> ModelShape:
    if model_type in ("falcon", "refinedweb", "refinedwebmodel"):
        return _falcon(read, name)
    family = _FAMILIES.get(model_type)
    if family is not None:
        return family(read, name)
    if model_type in ("gpt2", "bloom", "gpt_bigcode") or "n_layer" in data or "n_embd" in data:
        return _gpt2_style(read, name, model_type)
    if model_type == "chatglm" or "ffn_hidden_size" in data:
        return _chatglm_style(read, name)
    return _llama_style(read, name, model_type)


#: Keys of a multimodal config that hold a tower the reader does not count.
_OTHER_TOWERS = ("vision_tower", "mm_vision_tower", "visual", "audio_config", "speech_config")


def _refuse(source: str, key: str, why: Msg) -> UnknownModelError:
    return UnknownModelError(
        "{source}: key {key!r} is not understood ({why}); the estimator refuses to drop it "
        "silently — give the language model's own config.json, or a size such as 7B",
        source=source,
        key=key,
        why=why,
    )


def _vision_params(data: Mapping[str, Any], source: str) -> int:
    """The vision tower's parameters (Llama 4's); a refusal naming any other tower."""
    for key in _OTHER_TOWERS:
        if data.get(key):
            raise _refuse(source, key, Msg("a vision or audio tower of an unknown kind"))
    vision = data.get("vision_config")
    if not vision:
        return 0
    kind = str(vision.get("model_type", "")) if isinstance(vision, Mapping) else ""
    if kind != "llama4_vision_model":
        raise _refuse(source, "vision_config", Msg("a vision tower other than Llama 4's"))
    return _llama4_vision(Reader(vision, f"{source} vision_config"), data)


def _llama4_vision(read: Reader, outer: Mapping[str, Any]) -> int:
    """Llama 4's vision encoder, adapter and projector (Llama4VisionModel in transformers).

    Patch embedding (no bias), class embedding, positional embedding over the patches plus
    the class token, LayerNorms before and after, ``num_hidden_layers`` ViT layers (biased
    q/k/v/o, fc1/fc2, two LayerNorms), the pixel-shuffle adapter MLP (no biases) and the
    projector into the text model (no bias).
    """
    h, width = read.first("hidden_size"), read.first("intermediate_size")
    layers, patch = read.first("num_hidden_layers"), read.first("patch_size")
    image, channels = read.first("image_size"), read.optional("num_channels", 3)
    shuffled = int(h / read_ratio(read) ** 2)
    adapter_in, adapter_out = read.first("projector_input_dim"), read.first("vision_output_dim")
    text = outer.get("text_config") or {}
    text_hidden = int(text.get("hidden_size", 0)) if isinstance(text, Mapping) else 0
    patches = (image // patch) ** 2
    layer = 4 * (h * h + h) + (h * width + width) + (width * h + h) + 2 * 2 * h
    embeddings = channels * patch * patch * h + h + (patches + 1) * h + 2 * 2 * h
    adapter = shuffled * adapter_in + adapter_in * adapter_out
    return embeddings + layers * layer + adapter + read.first("projector_output_dim") * text_hidden


def read_ratio(read: Reader) -> float:
    value = read.raw("pixel_shuffle_ratio")
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value <= 1:
        raise read.fail(
            "key 'pixel_shuffle_ratio' must be a number in (0, 1], got {value!r}", value=value
        )
    return float(value)


def shape_from_config(data: Any, source: str) -> ModelShape:
    """The shape described by a parsed config.json (``source`` names it in errors).

    A multimodal wrapper's language model (``text_config``) is read, and its tower counted
    (Llama 4's vision encoder) or refused by name — never dropped silently. A NAS config
    (``block_configs``: per-layer attention and MLP variants, Llama-3.1-Nemotron-51B) is
    refused by name.
    """
    if not isinstance(data, Mapping):
        raise UnknownModelError(
            "{source}: expected a JSON object, got {kind}",
            source=source,
            kind=type(data).__name__,
        )
    if data.get("block_configs"):
        raise _refuse(
            source,
            "block_configs",
            Msg("a NAS model whose layers differ one by one, such as Llama-3.1-Nemotron-51B"),
        )
    vision = _vision_params(data, source)
    text_config = data.get("text_config")
    if "num_hidden_layers" not in data and isinstance(text_config, Mapping):
        outer = {k: v for k, v in data.items() if k in ("_name_or_path", "tie_word_embeddings")}
        data = {**outer, **text_config}  # multimodal wrappers keep the LM in text_config
    read = Reader(data, source)
    model_type = str(data.get("model_type", "")).lower()
    read.raw("model_type")
    read.raw("vision_config")
    shape = _read(read, data, _name(data, source), model_type)
    if vision:
        shape = dataclasses.replace(shape, vision_params=vision)
    return _check(shape, read)


def load_config(path: Path) -> ModelShape:
    """Read ``path`` (a config.json, or a folder holding one) into a shape."""
    if path.is_dir():
        path = path / "config.json"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UnknownModelError("{path}: no such config.json file", path=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UnknownModelError(
            "{path}: cannot read config.json ({reason})", path=path, reason=str(exc)
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnknownModelError(
            "{path}: not valid JSON (line {lineno}, column {colno}: {msg})",
            path=path,
            lineno=exc.lineno,
            colno=exc.colno,
            msg=exc.msg,
        ) from None
    return shape_from_config(data, str(path))
