"""Typed access to one parsed ``config.json``, remembering which keys were read.

:func:`unread_count_keys` is the safety net of :mod:`comparator.estimate.hf_config`: a key
that looks as if it changes the parameter count (experts, heads, widths, layers, biases …),
that is set, and that no reader looked at, means the estimator does not understand the
architecture — it is reported by name instead of being read as a plain dense model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from comparator.errors import Msg, UnknownModelError

LLAMA_KEYS = "num_hidden_layers, hidden_size, num_attention_heads, intermediate_size, vocab_size"
GPT2_KEYS = "n_layer, n_embd, n_head, vocab_size"
EXPECTED = Msg(
    "a llama/qwen2/mistral/mixtral/deepseek-style config.json ({llama_keys}) "
    "or a gpt2/bloom-style one ({gpt2_keys})",
    llama_keys=LLAMA_KEYS,
    gpt2_keys=GPT2_KEYS,
)

#: Words in a key that may change the parameter count.
_COUNT_WORDS = re.compile(
    r"expert|moe|lora|latent|layer|head|inner|intermediate|ffn|^ff_|mlp|kv|query|bias|dense|"
    r"sparse|vocab|embd|embed|hidden|mamba|ssm|conv|linear|index_|nextn|encoder|cross|adapter|"
    r"shared|nope|parallel|decoder|norm"
)
#: Words in a key that mark it as training, numerics or runtime only.
_NEUTRAL_WORDS = re.compile(
    r"dropout|pdrop|_prob|eps|epsilon|init|range|token_id|act|activation|position_embedding|"
    r"window|softcap|scaling|scalar|fusion|softmax|runner|cache|dtype|loss|aux|scale|multiplier|"
    r"^pad_|_pad_|theta|^rope_|_id$|logits|^max_|classifier|pretraining_tp|^blocksparse_|^summary_"
)
#: Keys that match a count word but are known not to change the count.
NEUTRAL_KEYS = frozenset(
    {
        "norm_topk_prob",
        "apply_residual_connection_post_layernorm",
        "skip_bias_add",
        "skip_bias_add_qkv",
        "layer_types",
        "dense_attention_every_n_layers",
        "post_layer_norm",
        "rmsnorm",
        "output_router_logits",
        "tie_encoder_decoder",
        "is_encoder_decoder",
        "qk_head_dim",  # derived: qk_nope_head_dim + qk_rope_head_dim
    }
)


class Reader:
    """Typed access to one config dict, with errors that name the file and key."""

    def __init__(self, data: Mapping[str, Any], source: str) -> None:
        self.data = data
        self.source = source
        self.used: set[str] = set()

    def fail(self, text: str, /, **params: object) -> UnknownModelError:
        return UnknownModelError(
            "{source}: {message}", source=self.source, message=Msg(text, **params)
        )

    def has(self, key: str) -> bool:
        self.used.add(key)
        return self.data.get(key) is not None

    def raw(self, key: str) -> Any:
        self.used.add(key)
        return self.data.get(key)

    def positive(self, key: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise self.fail(
                "key {key!r} must be a positive integer, got {value!r}", key=key, value=value
            )
        return value

    def first(self, *keys: str) -> int:
        self.used.update(keys)
        for key in keys:
            if self.data.get(key) is not None:
                return self.positive(key, self.data[key])
        wanted = " or ".join(repr(k) for k in keys)
        raise self.fail(
            "missing key {wanted}; expected {expected}", wanted=wanted, expected=EXPECTED
        )

    def optional(self, key: str, default: int) -> int:
        self.used.add(key)
        value = self.data.get(key)
        return default if value is None else self.positive(key, value)

    def count(self, key: str, default: int = 0) -> int:
        """A non-negative integer (0 allowed), ``default`` when absent or null."""
        self.used.add(key)
        value = self.data.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(
                "key {key!r} must be a non-negative integer, got {value!r}", key=key, value=value
            )
        return value

    def flag(self, key: str, default: bool) -> bool:
        self.used.add(key)
        value = self.data.get(key, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.fail(
                "key {key!r} must be true or false, got {value!r}", key=key, value=value
            )
        return value

    def int_list(self, key: str) -> list[int]:
        self.used.add(key)
        value = self.data.get(key) or []
        if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            raise self.fail(
                "key {key!r} must be a list of layer numbers, got {value!r}", key=key, value=value
            )
        return value


def _is_set(value: Any) -> bool:
    return value not in (None, False, 0, "", [], {})


def unread_count_keys(read: Reader) -> list[str]:
    """Set keys that look count-changing and that no reader understood, sorted."""
    return sorted(
        key
        for key, value in read.data.items()
        if key not in read.used
        and key not in NEUTRAL_KEYS
        and _is_set(value)
        and _COUNT_WORDS.search(key)
        and not _NEUTRAL_WORDS.search(key)
    )
