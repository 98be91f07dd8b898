"""Readers for the ``config.json`` families whose keys follow neither Llama nor GPT-2.

Each follows its Hugging Face (or ``trust_remote_code``) implementation:

* ``mpt`` (MosaicML) — ``d_model``, ``n_heads``, ``n_layers``, ``expansion_ratio``,
  ``no_bias``; ``attn_config`` (``attn_type`` multihead / multiquery / grouped_query with
  ``kv_n_heads``, ``qk_ln``, ``alibi`` — learned positions only without ALiBi); LayerNorm
  without bias when ``no_bias``; the output head tied;
* ``opt`` (Meta) — ``ffn_dim``, ``word_embed_proj_dim`` (must equal the hidden size: the
  projected variants, OPT-350m, are refused by name), learned positions with the offset of 2,
  ``_remove_final_layer_norm``; biases everywhere, LayerNorm, tied head;
* ``dbrx`` (Databricks) — ``d_model``, ``n_heads``, ``n_layers``; ``attn_config``
  (``kv_n_heads``), ``ffn_config`` (``ffn_hidden_size``, ``moe_num_experts``, ``moe_top_k``):
  a mixture of GLU experts, LayerNorm without bias, no biases, an untied head;
* ``gptj`` (EleutherAI) — ``n_embd``, ``n_layer``, ``n_head``, ``n_inner`` (4 × hidden),
  rotary positions (``rotary_dim``, none learned); a parallel block with one LayerNorm,
  q/k/v/out without biases and the MLP with them; an untied output head with a bias;
* ``gpt_neo`` (EleutherAI) — ``hidden_size``, ``num_layers``, ``num_heads``,
  ``intermediate_size`` (null: 4 × hidden), learned positions (``max_position_embeddings``);
  q/k/v without biases, the output projection and the MLP with them, two LayerNorms, the head
  tied; ``attention_layers`` global or local (a window over the same weights).
"""

from __future__ import annotations

from typing import Any

from comparator.estimate.architecture import ModelShape
from comparator.estimate.hf_reader import Reader, unread_count_keys

#: OPT's learned positions carry two extra rows (the padding offset of its implementation).
OPT_POSITION_OFFSET = 2


def _nested(read: Reader, key: str) -> Reader:
    value: Any = read.raw(key) or {}
    if not isinstance(value, dict):
        raise read.fail("key {key!r} must be an object, got {value!r}", key=key, value=value)
    return Reader(value, f"{read.source} {key}")


def _checked(inner: Reader, outer: Reader) -> None:
    unknown = unread_count_keys(inner)
    if unknown:
        raise outer.fail(
            "keys {keys} of {section} would change the parameter count but are not understood; "
            "the estimator refuses to guess",
            keys=", ".join(repr(k) for k in unknown),
            section=inner.source.rsplit(" ", 1)[-1],
        )


def _mpt_kv_heads(attn: Reader, heads: int) -> int:
    kind = attn.raw("attn_type") or "multihead_attention"
    if kind == "multiquery_attention":
        return 1
    if kind == "grouped_query_attention":
        return attn.first("kv_n_heads")
    if kind != "multihead_attention":
        raise attn.fail("attn_type {kind!r} is not understood", kind=kind)
    return heads


def mpt(read: Reader, name: str) -> ModelShape:
    hidden, heads = read.first("d_model"), read.first("n_heads")
    attn = _nested(read, "attn_config")
    kv_heads = _mpt_kv_heads(attn, heads)
    alibi = attn.flag("alibi", False)
    attn.raw("alibi_bias_max")  # the ALiBi slopes: no parameters
    qk_norm = attn.flag("qk_ln", False)
    _checked(attn, read)
    bias = not read.flag("no_bias", False)
    rms = "rms" in str(read.raw("norm_type") or "layernorm").lower()
    learned = read.flag("learned_pos_emb", True) and not alibi
    return ModelShape(
        name=name,
        layers=read.first("n_layers"),
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        intermediate=read.optional("expansion_ratio", 4) * hidden,
        vocab=read.first("vocab_size"),
        tied_embeddings=read.flag("tie_word_embeddings", True),
        gated_mlp=False,
        linear_bias=bias,
        layer_norm=bias and not rms,  # LayerNorm weight, + bias unless no_bias
        qk_norm=qk_norm,
        position_embeddings=read.optional("max_seq_len", 2048) if learned else 0,
        source="config",
        family="mpt",
    )


def opt(read: Reader, name: str) -> ModelShape:
    hidden = read.first("hidden_size")
    projected = read.optional("word_embed_proj_dim", hidden)
    if projected != hidden:
        raise read.fail(
            "key 'word_embed_proj_dim' ({projected}) differs from hidden_size ({hidden}): "
            "projected OPT embeddings are not understood",
            projected=projected,
            hidden=hidden,
        )
    read.flag("do_layer_norm_before", True)
    final_norm = not read.flag("_remove_final_layer_norm", False)
    heads = read.first("num_attention_heads")
    return ModelShape(
        name=name,
        layers=read.first("num_hidden_layers"),
        hidden=hidden,
        heads=heads,
        kv_heads=heads,
        intermediate=read.first("ffn_dim"),
        vocab=read.first("vocab_size"),
        tied_embeddings=read.flag("tie_word_embeddings", True),
        gated_mlp=False,
        linear_bias=read.flag("enable_bias", True),
        layer_norm=True,
        position_embeddings=read.first("max_position_embeddings") + OPT_POSITION_OFFSET,
        final_norm=final_norm,
        source="config",
        family="opt",
    )


#: Activations that Hugging Face's code writes as the tanh formula in plain PyTorch
#: (``NewGELUActivation``, ``FastGELUActivation`` in transformers/activations.py, 5.x):
#: without torch.compile autograd keeps the formula's intermediate tensors.
_UNFUSED_GELU = frozenset({"gelu_new", "gelu_fast"})
#: model_type values whose config class defaults to one of them (GPT2Config, PhiConfig,
#: GPTJConfig: ``gelu_new``) when the file names no activation.
_UNFUSED_BY_DEFAULT = frozenset({"gpt2", "phi", "gptj", "gpt_neo"})


def unfused_gelu(read: Reader, model_type: str) -> str:
    """Which of ``_UNFUSED_GELU`` the model runs (the file's, or its config class's
    default), or ""."""
    activation = read.raw("hidden_act") or read.raw("activation_function")
    if activation is None:
        return "gelu_new" if model_type in _UNFUSED_BY_DEFAULT else ""
    return activation if isinstance(activation, str) and activation in _UNFUSED_GELU else ""


def gptj(read: Reader, name: str) -> ModelShape:
    hidden = read.first("n_embd", "hidden_size")
    heads = read.first("n_head", "num_attention_heads")
    read.optional("rotary_dim", hidden // heads)
    read.optional("n_positions", 2048)  # rotary: no learned positions
    return ModelShape(
        name=name,
        layers=read.first("n_layer", "num_hidden_layers"),
        hidden=hidden,
        heads=heads,
        kv_heads=heads,
        intermediate=read.optional("n_inner", 4 * hidden),
        vocab=read.first("vocab_size"),
        tied_embeddings=read.flag("tie_word_embeddings", False),
        gated_mlp=False,
        unfused_gelu=unfused_gelu(read, "gptj"),
        mlp_bias=True,
        layer_norm=True,
        norms_per_layer=1,
        lm_head_bias=True,
        source="config",
        family="gptj",
    )


def dbrx(read: Reader, name: str) -> ModelShape:
    heads = read.first("n_heads")
    attn, ffn = _nested(read, "attn_config"), _nested(read, "ffn_config")
    kv_heads = attn.optional("kv_n_heads", heads)
    attn.raw("clip_qkv")  # clamps activations: no parameters
    experts = ffn.first("moe_num_experts")
    active = ffn.first("moe_top_k")
    width = ffn.first("ffn_hidden_size")
    ffn.raw("moe_jitter_eps")
    _checked(attn, read)
    _checked(ffn, read)
    return ModelShape(
        name=name,
        layers=read.first("n_layers"),
        hidden=read.first("d_model"),
        heads=heads,
        kv_heads=kv_heads,
        intermediate=width,
        vocab=read.first("vocab_size"),
        tied_embeddings=read.flag("tie_word_embeddings", False),
        experts=experts,
        active_experts=active,
        source="config",
        family="dbrx",
    )


#: The attention kinds GPT-Neo's layers may have (``GPTNeoAttention``): both use the same
#: q/k/v/out weights, a local layer only masks beyond ``window_size``.
_GPT_NEO_ATTENTION = frozenset({"global", "local"})


def gpt_neo(read: Reader, name: str) -> ModelShape:
    hidden = read.first("hidden_size")
    heads = read.first("num_heads")
    layers = read.first("num_layers")
    kinds = read.raw("attention_layers")
    read.raw("attention_types")  # the run-length form of attention_layers: read, not counted
    if kinds is not None and (
        not isinstance(kinds, list)
        or len(kinds) != layers
        or any(kind not in _GPT_NEO_ATTENTION for kind in kinds)
    ):
        raise read.fail(
            "key 'attention_layers' must list 'global' or 'local' for each of the {layers} layers",
            layers=layers,
        )
    return ModelShape(
        name=name,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=heads,
        intermediate=read.optional("intermediate_size", 4 * hidden),
        vocab=read.first("vocab_size"),
        tied_embeddings=read.flag("tie_word_embeddings", True),
        gated_mlp=False,
        unfused_gelu=unfused_gelu(read, "gpt_neo"),
        o_bias=True,
        mlp_bias=True,
        layer_norm=True,
        position_embeddings=read.first("max_position_embeddings"),
        source="config",
        family="gpt_neo",
    )
