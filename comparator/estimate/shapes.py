"""Model shapes: the architecture numbers the estimator needs, and where they come from.

A model is named three ways (``resolve_model``):

* a built-in name — exact architectures of popular open models (``BUILTIN_SHAPES``), matched
  case-, dash- and suffix-insensitively (``meta-llama/Llama-2-7b-chat-hf`` → ``Llama-2-7b``);
* a Hugging Face ``config.json`` (a file, or a folder holding one) — see
  :mod:`comparator.estimate.hf_config`;
* a bare size such as ``7B``, ``7.5B`` or ``350M`` — the parameter count is taken exactly as
  given, and a Llama-style shape is inferred for activations (see :func:`shape_from_size`).

The shape itself and its parameter count live in :mod:`comparator.estimate.architecture`.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
from functools import lru_cache
from pathlib import Path

from comparator.errors import Msg, UnknownModelError
from comparator.estimate.architecture import INFERRED_SUFFIX, ModelShape
from comparator.estimate.builtin_configs import CONFIGS
from comparator.estimate.hf_config import load_config, shape_from_config

__all__ = ["BUILTIN_SHAPES", "ModelShape", "find_builtin", "parse_size", "resolve_model"]

#: Vocabulary assumed for a shape inferred from a bare size (Llama 2's).
INFERRED_VOCAB = 32000
#: Head size of an inferred shape, and the hidden/layers aspect ratio (both Llama 7B's).
INFERRED_HEAD_DIM = 128
INFERRED_HIDDEN_PER_LAYER = 128


def _llama(
    name: str,
    layers: int,
    hidden: int,
    heads: int,
    kv: int,
    inter: int,
    vocab: int,
    *,
    tied_embeddings: bool = False,
    experts: int = 1,
    active_experts: int = 1,
    qkv_bias: bool = False,
) -> ModelShape:
    return ModelShape(
        name,
        layers,
        hidden,
        heads,
        kv,
        inter,
        vocab,
        tied_embeddings,
        experts=experts,
        active_experts=active_experts,
        qkv_bias=qkv_bias,
    )


def _qwen2(
    name: str, layers: int, hidden: int, heads: int, kv: int, inter: int, tied: bool
) -> ModelShape:
    vocab = 151936 if tied else 152064
    return ModelShape(name, layers, hidden, heads, kv, inter, vocab, tied, qkv_bias=True)


def _qwen3(name: str, layers: int, hidden: int, heads: int, inter: int, tied: bool) -> ModelShape:
    return ModelShape(
        name, layers, hidden, heads, 8, inter, 151936, tied, head_dim=128, qk_norm=True
    )


#: Exact architectures, from each model's published config.json.
BUILTIN_SHAPES: tuple[ModelShape, ...] = (
    _llama("Llama-2-7b", 32, 4096, 32, 32, 11008, 32000),
    _llama("Llama-2-13b", 40, 5120, 40, 40, 13824, 32000),
    _llama("Llama-2-70b", 80, 8192, 64, 8, 28672, 32000),
    _llama("Llama-3.1-8B", 32, 4096, 32, 8, 14336, 128256),
    _llama("Llama-3.1-70B", 80, 8192, 64, 8, 28672, 128256),
    _llama("Llama-3.1-405B", 126, 16384, 128, 8, 53248, 128256),
    _llama("Llama-3.2-1B", 16, 2048, 32, 8, 8192, 128256, tied_embeddings=True),
    _llama("Llama-3.2-3B", 28, 3072, 24, 8, 8192, 128256, tied_embeddings=True),
    _qwen2("Qwen2.5-0.5B", 24, 896, 14, 2, 4864, tied=True),
    _qwen2("Qwen2.5-1.5B", 28, 1536, 12, 2, 8960, tied=True),
    _qwen2("Qwen2.5-3B", 36, 2048, 16, 2, 11008, tied=True),
    _qwen2("Qwen2.5-7B", 28, 3584, 28, 4, 18944, tied=False),
    _qwen2("Qwen2.5-14B", 48, 5120, 40, 8, 13824, tied=False),
    _qwen2("Qwen2.5-32B", 64, 5120, 40, 8, 27648, tied=False),
    _qwen2("Qwen2.5-72B", 80, 8192, 64, 8, 29568, tied=False),
    _qwen3("Qwen3-0.6B", 28, 1024, 16, 3072, tied=True),
    _qwen3("Qwen3-1.7B", 28, 2048, 16, 6144, tied=True),
    _qwen3("Qwen3-4B", 36, 2560, 32, 9728, tied=True),
    _qwen3("Qwen3-8B", 36, 4096, 32, 12288, tied=False),
    _qwen3("Qwen3-14B", 40, 5120, 40, 17408, tied=False),
    _qwen3("Qwen3-32B", 64, 5120, 64, 25600, tied=False),
    _llama("Mistral-7B-v0.1", 32, 4096, 32, 8, 14336, 32000),
    _llama("Mistral-7B-v0.3", 32, 4096, 32, 8, 14336, 32768),
    _llama("Mixtral-8x7B", 32, 4096, 32, 8, 14336, 32000, experts=8, active_experts=2),
    _llama("GLM-4-9B", 40, 4096, 32, 2, 13696, 151552, qkv_bias=True),
    _llama("Baichuan2-7B", 32, 4096, 32, 32, 11008, 125696),
    _llama("Baichuan2-13B", 40, 5120, 40, 40, 13696, 125696),
    _llama("Yi-6B", 32, 4096, 32, 4, 11008, 64000),
    _llama("Yi-34B", 60, 7168, 56, 8, 20480, 64000),
    _llama("DeepSeek-LLM-7B", 30, 4096, 32, 32, 11008, 102400),
    _llama("DeepSeek-LLM-67B", 95, 8192, 64, 8, 22016, 102400),
)

#: MoE, MLA, Gemma, Phi, BigCode … read from their config.json keys (``builtin_configs``).
BUILTIN_SHAPES += tuple(
    dataclasses.replace(shape_from_config(data, name), name=name, source="builtin")
    for name, data in CONFIGS.items()
)

#: Other spellings of built-in models (same architecture).
_ALIASES: dict[str, str] = {
    "Llama-3-8B": "Llama-3.1-8B",
    "Llama-3-70B": "Llama-3.1-70B",
    "Mistral-7B": "Mistral-7B-v0.1",
    "Mistral-7B-v0.2": "Mistral-7B-v0.1",
    "GLM-4-9B-chat": "GLM-4-9B",
    "GLM4-9B": "GLM-4-9B",
    "DeepSeek-LLM-7B-base": "DeepSeek-LLM-7B",
    "DeepSeek-LLM-67B-base": "DeepSeek-LLM-67B",
    "DeepSeek-R1": "DeepSeek-V3",
    "DeepSeek-Coder-V2-Lite": "DeepSeek-V2-Lite",
    "Phi-3-mini-4k": "Phi-3-mini",
    "Phi-3-mini-128k": "Phi-3-mini",
    "Phi-3-small-8k": "Phi-3-small",
    "Phi-3-small-128k": "Phi-3-small",
    "Qwen2-MoE-57B-A14B": "Qwen2-57B-A14B",
    "GPT2": "GPT-2",
    "GPT2-XL": "GPT-2-XL",
}

_JUNK_WORDS = frozenset({"hf", "chat", "instruct", "base", "it", "meta"})
_VERSION = re.compile(r"^v\d+(\.\d+)*$")
_KEY_JUNK = re.compile(r"[\s\-_]")
_WORD_SPLIT = re.compile(r"[\s\-_]+")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmbt])\s*$", re.IGNORECASE)
_SIZE_UNITS = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}


def _model_key(name: str) -> str:
    text = name.strip().rsplit("/", 1)[-1].lower()
    return _KEY_JUNK.sub("", text)


def _build_index() -> dict[str, ModelShape]:
    index = {_model_key(shape.name): shape for shape in BUILTIN_SHAPES}
    for alias, target in _ALIASES.items():
        index[_model_key(alias)] = index[_model_key(target)]
    return index


_INDEX = _build_index()


def _key_variants(name: str) -> list[str]:
    """Lookup keys for ``name``: as written, without chat/instruct/hf words, without version."""
    words = [w for w in _WORD_SPLIT.split(name.strip().rsplit("/", 1)[-1].lower()) if w]
    plain = [w for w in words if w not in _JUNK_WORDS]
    unversioned = [w for w in plain if not _VERSION.match(w)]
    return ["".join(words), "".join(plain), "".join(unversioned)]


def find_builtin(name: str) -> ModelShape | None:
    """The built-in shape for any accepted spelling of ``name``, or ``None``."""
    for key in _key_variants(name):
        if key in _INDEX:
            return _INDEX[key]
    return None


def builtin_names() -> list[str]:
    return [shape.name for shape in BUILTIN_SHAPES]


def _solve_hidden(params: float) -> float:
    """Hidden size h with (12/ratio)·h³ + 2·V·h = params (Llama-style, aspect ratio h/L)."""
    low, high = 1.0, 1e6
    for _ in range(80):
        mid = (low + high) / 2
        size = 12 / INFERRED_HIDDEN_PER_LAYER * mid**3 + 2 * INFERRED_VOCAB * mid
        low, high = (mid, high) if size < params else (low, mid)
    return low


def shape_from_size(params: int, label: str) -> ModelShape:
    """A Llama-style shape for a bare size; ``params`` stays exactly as given.

    Inferred: vocabulary 32,000 (untied), head size 128, hidden ≈ 128 × layers rounded to a
    multiple of 128, SwiGLU intermediate = 8/3 × hidden rounded up to 256, full multi-head
    attention, and as many layers as fill ``params`` (≈ 12·h² each).
    """
    hidden = max(INFERRED_HEAD_DIM, round(_solve_hidden(params) / 128) * 128)
    intermediate = math.ceil(8 * hidden / 3 / 256) * 256
    per_layer = 4 * hidden * hidden + 3 * hidden * intermediate
    layers = max(1, round((params - 2 * INFERRED_VOCAB * hidden) / per_layer))
    heads = hidden // INFERRED_HEAD_DIM
    return ModelShape(
        label,
        layers,
        hidden,
        heads,
        heads,
        intermediate,
        INFERRED_VOCAB,
        source="size",
        stated_params=params,
    )


def parse_size(text: str) -> int | None:
    """``7B`` → 7,000,000,000; ``350M``; ``1.5T``; a plain integer ≥ 1e6. ``None`` otherwise."""
    match = _SIZE.match(text)
    if match:
        return round(float(match.group(1)) * _SIZE_UNITS[match.group(2).lower()])
    stripped = text.strip().replace(",", "").replace("_", "")
    if stripped.isdigit() and int(stripped) >= 1_000_000:
        return int(stripped)
    return None


def path_exists(path: Path) -> bool:
    """Whether ``path`` exists; a name no file system takes (too long, a NUL) does not."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def _looks_like_path(text: str) -> bool:
    return text.endswith(".json") or text.startswith((".", "~")) or path_exists(Path(text))


def _unknown(text: str) -> UnknownModelError:
    close = difflib.get_close_matches(text, builtin_names(), n=3, cutoff=0.5)
    suggestion = Msg("; did you mean {names}?", names=", ".join(close)) if close else ""
    return UnknownModelError(
        "unknown model {text!r}: expected a built-in name (e.g. Llama-2-7b, "
        "Qwen2.5-7B; see `suanli estimate --list-models`), a Hugging Face "
        "config.json path, or a size such as 7B or 350M{suggestion}",
        text=text,
        suggestion=suggestion,
    )


@lru_cache(maxsize=512)
def resolve_model(text: str) -> ModelShape:
    """A model shape from a built-in name, a config.json path or a bare size (cached)."""
    spec = text.strip()
    if not spec:
        raise UnknownModelError("--model is empty: expected a model name, config.json or size")
    if _looks_like_path(spec):
        return load_config(Path(spec).expanduser())
    shape = find_builtin(spec)
    if shape is not None:
        return shape
    size = parse_size(spec)
    if size is not None:
        if size < 1_000_000:
            raise UnknownModelError(
                "model size {spec!r} is too small: expected at least 1M", spec=spec
            )
        return shape_from_size(size, f"{spec.strip()}{INFERRED_SUFFIX}")
    raise _unknown(spec)
