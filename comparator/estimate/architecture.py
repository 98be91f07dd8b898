"""The architecture of a decoder-only transformer, and its parameter count.

:class:`ModelShape` holds what memory and FLOPs care about. Parameter counts follow the
Hugging Face implementations:

* attention — q/k/v/o projections with multi-, grouped- or multi-query heads and an explicit
  head size (Gemma), optional q/k/v biases (Qwen2, GLM), q/k norms (Qwen3), or DeepSeek's
  multi-head latent attention (:class:`Mla`: low-rank q and joint kv compression);
* MLP — SwiGLU/GeGLU (gate, up, down) or GELU (fc1, fc2), biases where the model has them;
* mixture of experts — every routed expert plus the always-active shared experts (DeepSeek
  ``n_shared_experts``, Qwen-MoE ``shared_expert_intermediate_size`` with its sigmoid gate),
  the router (and DeepSeek-V3's routing bias), and dense layers mixed in (DeepSeek
  ``first_k_dense_replace``, Qwen ``decoder_sparse_step`` / ``mlp_only_layers``);
* norms — RMSNorm or LayerNorm (with bias), ``norms_per_layer`` of them (2; 4 in Gemma-2/3;
  1 in parallel-block models such as Phi-2 and Falcon-7B);
* embeddings — token (and learned position) embeddings, a tied or untied output head (with a
  bias in Phi-2);
* gpt-oss — biases on every projection and expert, a router bias, one attention-sink logit per
  head; its model card counts active parameters without the input embedding (a lookup);
* a vision tower (Llama 4's) — counted in ``params`` (memory), not in ``active_params``
  (the FLOPs of text tokens).

``params`` counts everything; ``active_params`` what one token passes through (the routed
experts it is sent to, plus everything else — embeddings included, as Mistral, Qwen and the
DeepSeek-MoE-16B card count them). Memory counts all experts; FLOPs the active ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from comparator.errors import Msg

#: What the name of a shape inferred from a bare size ends with (`7B (inferred shape)`).
INFERRED_SUFFIX = " (inferred shape)"


@dataclass(frozen=True)
class Mla:
    """DeepSeek-V2/V3 multi-head latent attention (ranks and per-head sizes)."""

    q_lora_rank: int  # 0: a plain q projection (DeepSeek-V2-Lite)
    kv_lora_rank: int
    rope_dim: int
    nope_dim: int
    v_dim: int


@dataclass(frozen=True)
class ModelShape:
    """The architecture of a decoder-only transformer, as far as memory and FLOPs care."""

    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    intermediate: int  # per routed expert for MoE models
    vocab: int
    tied_embeddings: bool = False
    experts: int = 1
    active_experts: int = 1
    head_dim: int | None = None  # None: hidden // heads
    gated_mlp: bool = True  # SwiGLU/GeGLU (gate, up, down) vs GELU (fc1, fc2)
    unfused_gelu: str = ""  # gelu_new | gelu_fast: Hugging Face's tanh formula in Python
    qkv_bias: bool = False
    linear_bias: bool = False  # every linear has a bias (GPT-2, BLOOM)
    layer_norm: bool = False  # LayerNorm with bias instead of RMSNorm
    qk_norm: bool = False
    position_embeddings: int = 0
    extra_norms: int = 0  # e.g. BLOOM's embedding LayerNorm
    final_norm: bool = True  # the norm after the last layer (OPT-350m has none)
    source: str = "builtin"  # builtin | config | size
    stated_params: int | None = None  # a bare size: the parameter count the user gave
    dense_layers: int = 0  # MoE models: layers with a dense MLP instead of experts
    dense_intermediate: int = 0  # their MLP width (0: ``intermediate``)
    shared_intermediate: int = 0  # total width of the always-active shared experts
    shared_gate: bool = False  # Qwen-MoE: a sigmoid gate (hidden → 1) on the shared expert
    router_bias: bool = False  # DeepSeek-V3: a routing-correction bias per expert
    mla: Mla | None = None
    norms_per_layer: int = 2
    lm_head_bias: bool = False
    family: str = ""
    mlp_bias: bool = False  # biases on the MLP only (Llama's mlp_bias)
    o_bias: bool = False  # a bias on the attention output projection too (gpt-oss)
    attention_sinks: bool = False  # one learned sink logit per head and layer (gpt-oss)
    vision_params: int = 0  # a vision tower counted in memory, not in text tokens' FLOPs
    active_excludes_embedding: bool = False  # active count without the input embedding

    @property
    def dim_per_head(self) -> int:
        if self.mla is not None:
            return self.mla.nope_dim + self.mla.rope_dim
        return self.head_dim or self.hidden // self.heads

    @property
    def q_dim(self) -> int:
        return self.heads * self.dim_per_head

    @property
    def kv_dim(self) -> int:
        if self.mla is not None:  # K and V as the attention kernel sees them, averaged
            return self.heads * (self.dim_per_head + self.mla.v_dim) // 2
        return self.kv_heads * self.dim_per_head

    @property
    def is_moe(self) -> bool:
        return self.experts > 1

    @property
    def moe_layers(self) -> int:
        return self.layers - self.dense_layers if self.is_moe else 0

    @property
    def inferred(self) -> bool:
        return self.stated_params is not None

    @property
    def name_msg(self) -> Msg | None:
        """The name of a shape inferred from a bare size, as a message (``None`` otherwise)."""
        if not (self.inferred and self.name.endswith(INFERRED_SUFFIX)):
            return None
        return Msg("{size} (inferred shape)", size=self.name.removesuffix(INFERRED_SUFFIX))

    # -- parameters --------------------------------------------------------------------------

    @cached_property
    def _norm_params(self) -> int:
        return self.hidden * (2 if self.layer_norm else 1)

    @cached_property
    def attention_params(self) -> int:
        """Parameters of one layer's attention block (projections, biases, norms)."""
        h = self.hidden
        if self.mla is not None:
            m = self.mla
            low_rank = h * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * self.q_dim
            q = low_rank if m.q_lora_rank else h * self.q_dim
            kv = h * (m.kv_lora_rank + m.rope_dim) + m.kv_lora_rank
            kv += m.kv_lora_rank * self.heads * (m.nope_dim + m.v_dim)
            return q + kv + self.heads * m.v_dim * h
        q, kv = self.q_dim, self.kv_dim
        total = h * q + 2 * h * kv + q * h
        if self.qkv_bias or self.linear_bias:
            total += q + 2 * kv
        if self.linear_bias or self.o_bias:
            total += h
        if self.attention_sinks:
            total += self.heads
        if self.qk_norm:
            total += 2 * self.dim_per_head
        return total

    def mlp_params(self, width: int) -> int:
        """Parameters of one MLP (or expert) of intermediate size ``width``."""
        h, bias = self.hidden, self.linear_bias or self.mlp_bias
        if self.gated_mlp:
            return 3 * h * width + ((2 * width + h) if bias else 0)
        return 2 * h * width + ((width + h) if bias else 0)

    @cached_property
    def expert_params(self) -> int:
        """Parameters of one routed expert (of the MLP, for a dense model)."""
        return self.mlp_params(self.intermediate)

    @cached_property
    def _dense_mlp_params(self) -> int:
        return self.mlp_params(self.dense_intermediate or self.intermediate)

    def _moe_mlp_params(self, experts: int) -> int:
        router = self.hidden * self.experts + (self.experts if self.router_bias else 0)
        shared = self.mlp_params(self.shared_intermediate) if self.shared_intermediate else 0
        gate = self.hidden if self.shared_gate else 0
        return experts * self.expert_params + shared + router + gate

    def _blocks(self, experts: int) -> int:
        norms = self.norms_per_layer * self._norm_params
        dense = self.layers - self.moe_layers
        total = self.layers * (self.attention_params + norms) + dense * self._dense_mlp_params
        return total + self.moe_layers * self._moe_mlp_params(experts)

    @cached_property
    def layer_params(self) -> int:
        """Average parameters of one layer (all experts)."""
        return self._blocks(self.experts) // self.layers

    @cached_property
    def embedding_params(self) -> int:
        """Token (and position) embeddings plus an untied output head: kept 16-bit by QLoRA."""
        head = 0 if self.tied_embeddings else self.vocab * self.hidden
        bias = self.vocab if self.lm_head_bias else 0
        return self.vocab * self.hidden + head + bias + self.position_embeddings * self.hidden

    @cached_property
    def _outer_norm_params(self) -> int:
        return (int(self.final_norm) + self.extra_norms) * self._norm_params

    @cached_property
    def params(self) -> int:
        """Total parameters (all experts). A bare size returns the size as given."""
        if self.stated_params is not None:
            return self.stated_params
        text = self._blocks(self.experts) + self.embedding_params + self._outer_norm_params
        return text + self.vision_params

    @cached_property
    def active_params(self) -> int:
        """Parameters one token passes through (the active experts only)."""
        if not self.is_moe or self.stated_params is not None:
            return self.params - self.vision_params
        active = self._blocks(self.active_experts)
        embedding = self.embedding_params
        if self.active_excludes_embedding:  # a lookup, no matmul: gpt-oss's model card
            embedding -= self.vocab * self.hidden
        return active + embedding + self._outer_norm_params

    @cached_property
    def quantizable_params(self) -> int:
        """Weights of the blocks' linear layers: what QLoRA stores as NF4."""
        if self.stated_params is not None:
            return max(self.params - self.embedding_params, 0)
        norms = self.layers * self.norms_per_layer * self._norm_params
        return self._blocks(self.experts) - norms

    @cached_property
    def active_mlp_width(self) -> float:
        """Intermediate width a token passes through, averaged over the layers."""
        if not self.is_moe:
            return float(self.intermediate)
        moe = self.active_experts * self.intermediate + self.shared_intermediate
        dense = self.dense_intermediate or self.intermediate
        return (self.moe_layers * moe + (self.layers - self.moe_layers) * dense) / self.layers

    # -- LoRA ----------------------------------------------------------------------------------

    @cached_property
    def _attention_linear_dims(self) -> int:
        h = self.hidden
        if self.mla is not None:
            m = self.mla
            q = (
                (h + m.q_lora_rank) + (m.q_lora_rank + self.q_dim)
                if m.q_lora_rank
                else h + self.q_dim
            )
            kv = (h + m.kv_lora_rank + m.rope_dim) + (
                m.kv_lora_rank + self.heads * (m.nope_dim + m.v_dim)
            )
            return q + kv + self.heads * m.v_dim + h
        q, kv = self.q_dim, self.kv_dim
        return (h + q) + 2 * (h + kv) + (q + h)

    def _mlp_dims(self, width: int) -> int:
        return (3 if self.gated_mlp else 2) * (self.hidden + width) if width else 0

    def _linear_dims(self, experts: int) -> int:
        """Σ (d_in + d_out) over all layers' linear layers, ``experts`` routed experts each."""
        dense = (self.layers - self.moe_layers) * self._mlp_dims(
            self.dense_intermediate or self.intermediate
        )
        moe = experts * self._mlp_dims(self.intermediate) + self._mlp_dims(self.shared_intermediate)
        return self.layers * self._attention_linear_dims + dense + self.moe_layers * moe

    @cached_property
    def lora_dims(self) -> int:
        """LoRA parameters per unit of rank, on every linear layer of the blocks."""
        return self._linear_dims(self.experts)

    @cached_property
    def lora_active_dims(self) -> int:
        return self._linear_dims(self.active_experts)

    @cached_property
    def largest_linear_params(self) -> int:
        h = self.hidden
        widest = max(self.intermediate, self.dense_intermediate, self.shared_intermediate)
        return max(h * self.q_dim, h * widest)

    def summary(self) -> dict[str, object]:
        """The ``model`` object of ``suanli estimate --json``."""
        return {
            "name": self.name,
            "params": self.params,
            "active_params": self.active_params,
            "layers": self.layers,
            "hidden": self.hidden,
            "heads": self.heads,
            "kv_heads": self.kv_heads,
            "head_dim": self.dim_per_head,
            "intermediate": self.intermediate,
            "vocab": self.vocab,
            "tied_embeddings": self.tied_embeddings,
            "experts": self.experts,
            "active_experts": self.active_experts,
            "shared_intermediate": self.shared_intermediate,
            "dense_layers": self.dense_layers if self.is_moe else self.layers,
            "attention": "mla" if self.mla else _attention_kind(self.heads, self.kv_heads),
            "family": self.family or None,
            "source": self.source,
            "inferred_shape": self.inferred,
        }


def _attention_kind(heads: int, kv_heads: int) -> str:
    if kv_heads == heads:
        return "mha"
    return "mqa" if kv_heads == 1 else "gqa"
