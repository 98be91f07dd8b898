"""The resource estimator: how many cards, which card, how long — with its work shown.

Pure functions, no database and no I/O beyond reading a config.json the user names.
``estimate(EstimateRequest(model="Qwen2.5-7B", tokens=300_000_000))`` returns an
:class:`Estimate` whose ``to_json()`` is the ``suanli estimate --json`` document.

The pieces (each documents its formulas and constants):

* :mod:`comparator.estimate.shapes` and :mod:`comparator.estimate.hf_config` — model architectures;
* :mod:`comparator.estimate.memory` — memory per card, part by part, under ZeRO 0–3;
* :mod:`comparator.estimate.compute` — training FLOPs and the default MFU table;
* :mod:`comparator.estimate.search` — minimal cards and ZeRO stage that fit the headroom;
* :mod:`comparator.estimate.advice` — alternatives when it does not fit, rules of thumb;
* :mod:`comparator.estimate.job_request` — requests from job files (``[model]``, ``[training]``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from comparator.domain.gpus import GpuSpec
from comparator.errors import Msg
from comparator.estimate.advice import Advice, advise, rules_of_thumb, why_not
from comparator.estimate.architecture import ModelShape
from comparator.estimate.compute import MFU_TABLE
from comparator.estimate.hf_activations import eager_attention_only, flash_only_by_request
from comparator.estimate.job_request import request_from_job
from comparator.estimate.memory import (
    COMM_BUCKET_GIB,
    CUDA_CONTEXT_GIB,
    LOGITS_BYTES_PER_VALUE,
    NF4_BYTES_PER_PARAM,
    MemoryBreakdown,
)
from comparator.estimate.mfu import fit
from comparator.estimate.network import has_nvlink, links_json
from comparator.estimate.parallel import Layout, recommend
from comparator.estimate.request import EstimateRequest, parse_token_count
from comparator.estimate.search import CARDS_PER_NODE, Solution, solve
from comparator.estimate.utilisation import memory_share, utilisation_notes
from comparator.i18n.stored import msg_to_json

__all__ = [
    "Advice",
    "Estimate",
    "EstimateRequest",
    "Note",
    "estimate",
    "parse_token_count",
    "request_from_job",
]

OVER_PROVISIONED_BELOW = 0.70


@dataclass(frozen=True)
class Note:
    """A remark on the estimate: a stable ``code``, its message and its numbers."""

    code: str
    msg: Msg
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def message(self) -> str:
        """The note in English (``msg`` renders it in either language)."""
        return str(self.msg)

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "message_msg": msg_to_json(self.msg),
            **self.params,
        }


@dataclass(frozen=True)
class Estimate:
    """The answer to one :class:`EstimateRequest`."""

    solution: Solution

    @cached_property
    def advice(self) -> tuple[Advice, ...]:
        """Alternatives when the job does not fit (computed on first use)."""
        return advise(self.solution)

    @cached_property
    def layout(self) -> Layout | None:
        """TP × PP × CP × DP: data parallel when it fits, else the layout that holds it."""
        return recommend(self.solution)

    @cached_property
    def notes(self) -> tuple[Note, ...]:
        return _notes(self.solution)

    @property
    def request(self) -> EstimateRequest:
        return self.solution.request

    @property
    def model(self) -> ModelShape:
        return self.solution.shape

    @property
    def gpu(self) -> GpuSpec:
        return self.solution.gpu

    @property
    def cards(self) -> int:
        return self.solution.cards

    @property
    def min_cards(self) -> int | None:
        return self.solution.min_cards

    @property
    def zero(self) -> int:
        return self.solution.zero

    @property
    def fits(self) -> bool:
        return self.solution.fits

    @property
    def hours(self) -> float:
        return self.solution.hours

    @property
    def card_hours(self) -> float:
        return self.solution.card_hours

    @property
    def nodes(self) -> int:
        return self.solution.nodes

    @property
    def needs_rdma(self) -> bool:
        return self.solution.needs_rdma

    @property
    def strategy(self) -> str:
        return self.solution.strategy

    @property
    def mfu(self) -> float:
        return self.solution.mfu

    @property
    def tokens(self) -> int:
        return self.solution.tokens

    @property
    def total_tokens(self) -> int:
        return self.solution.total_tokens

    @property
    def train_flops(self) -> float:
        return self.solution.train_flops

    @property
    def trainable_params(self) -> int:
        return self.solution.trainable_params

    @property
    def usable_memory_gib(self) -> float:
        return self.solution.usable_memory_gib

    @property
    def memory(self) -> MemoryBreakdown:
        """Per-card memory in bytes, part by part (``.parts_gib()`` for the GiB view)."""
        return self.solution.memory

    @property
    def memory_gib(self) -> dict[str, float]:
        return self.solution.memory_gib

    @cached_property
    def rules_of_thumb(self) -> list[dict[str, Any]]:
        return rules_of_thumb(self.solution)

    def to_json(self) -> dict[str, Any]:
        """The ``suanli estimate --json`` document (contract keys plus extras)."""
        return {**_job_json(self.solution), **_result_json(self)}


def _gpu_json(gpu: GpuSpec) -> dict[str, Any]:
    return {
        "name": gpu.name,
        "memory_gib": float(gpu.memory_gib),
        "peak_tflops": float(gpu.bf16_tflops or 0.0),
    }


def _model_json(shape: ModelShape) -> dict[str, Any]:
    name = shape.name_msg
    return {**shape.summary(), **({"name_msg": msg_to_json(name)} if name else {})}


def _job_json(s: Solution) -> dict[str, Any]:
    request = s.request
    return {
        "model": _model_json(s.shape),
        "method": request.method,
        "precision": request.precision,
        "pure_bf16": request.pure_bf16,
        "optimizer": request.optimizer,
        "lora_rank": request.lora_rank if s.setup.adapters else None,
        "trainable_params": s.trainable_params,
        "seq_len": request.seq_len,
        "micro_batch": s.setup.micro_batch,
        "gradient_accumulation": s.gradient_accumulation,
        "global_batch": request.global_batch,
        "grad_ckpt": s.setup.recompute == "full",
        "recompute": s.setup.recompute,
        "chunked_loss": s.setup.chunked_loss,
        "offload_optimizer": s.setup.offload_optimizer,
        "memory_choices": [c.to_json() for c in s.choices],
        "flash_attn": request.flash_attn,
        "stack": {**s.stack.to_json(), "assumed": s.stack_assumed},
        "loss": "chunked" if s.setup.chunked_loss and s.stack.loss == "full" else s.stack.loss,
        "gpu": _gpu_json(s.gpu),
    }


def _result_json(e: Estimate) -> dict[str, Any]:
    s = e.solution
    return {
        "cards": s.cards,
        "min_cards": s.min_cards,
        "zero": s.zero,
        "fits": s.fits,
        "headroom": s.request.headroom,
        "usable_memory_gib": round(s.usable_memory_gib, 3),
        "memory_utilization": round(s.memory_gib["total"] / s.gpu.memory_gib, 4),
        "nodes": s.nodes,
        "cards_per_node": CARDS_PER_NODE,
        "needs_rdma": s.needs_rdma,
        "strategy": s.strategy,
        "strategy_msg": msg_to_json(s.strategy_msg),
        "memory_gib": s.memory_gib,
        "memory_detail_gib": s.memory.detail_gib(),
        "tokens": s.tokens,
        "epochs": s.request.epochs,
        "total_tokens": s.total_tokens,
        "flops_per_token": s.flops_per_token,
        "train_flops": s.train_flops,
        "mfu": s.mfu,
        "mfu_source": s.mfu_source,
        "efficiency_source": s.efficiency_source,
        "safety_factor": s.request.safety_factor,
        "hours": s.hours,
        "card_hours": s.card_hours,
        "hours_range": _range(s.hours_low, s.hours, s.hours_high),
        "card_hours_range": _range(s.hours_low * s.cards, s.card_hours, s.hours_high * s.cards),
        **_why_not_json(why_not(s)),
        "advice": [a.to_json() for a in e.advice],
        "parallelism": None if e.layout is None else e.layout.to_json(),
        "notes": [n.to_json() for n in e.notes],
        "rules_of_thumb": e.rules_of_thumb,
        "links": links_json(s.links, s.gpu, s.network_time_factor),
        "assumptions": _assumptions(),
    }


def _why_not_json(reason: Msg | None) -> dict[str, Any]:
    if reason is None:
        return {"why_not": None, "why_not_msg": None}
    return {"why_not": str(reason), "why_not_msg": msg_to_json(reason)}


def _fit_summary() -> dict[str, Any]:
    stored = fit()
    keys = ("coefficients", "runs", "sources", "median_hours_error", "worst_hours_ratio")
    return {key: stored[key] for key in (*keys, "range_coverage")}


def _range(low: float, expected: float, high: float) -> dict[str, float]:
    return {"low": low, "expected": expected, "high": high}


_ACTIVATIONS = Msg("Korthikanti et al. 2022 per layer, adapted to GQA/SwiGLU; dropout off")
_FLOPS = Msg("6·Ψ·D (8 with recomputation), LoRA 4·Ψ·D (6), + 12·L·q·s per token")


def _text_json(key: str, text: Msg) -> dict[str, Any]:
    return {key: str(text), f"{key}_msg": msg_to_json(text)}


def _assumptions() -> dict[str, Any]:
    return {
        "cuda_context_gib": CUDA_CONTEXT_GIB,
        "comm_bucket_gib": COMM_BUCKET_GIB,
        "nf4_bytes_per_param": NF4_BYTES_PER_PARAM,
        "logits_bytes_per_value": LOGITS_BYTES_PER_VALUE,
        **_text_json("activations", _ACTIVATIONS),
        **_text_json("flops", _FLOPS),
        "mfu_table": MFU_TABLE,  # the planner's GPU-to-GPU card-hour conversion
        "mfu_fit": _fit_summary(),
    }


def _shape_notes(shape: ModelShape) -> list[Note]:
    notes = []
    if shape.inferred:
        notes.append(
            Note(
                "inferred_shape",
                Msg(
                    "shape inferred from a bare size: {layers} layers, hidden {hidden}, "
                    "{heads} heads, vocab {vocab}",
                    layers=shape.layers,
                    hidden=shape.hidden,
                    heads=shape.heads,
                    vocab=shape.vocab,
                ),
                {"layers": shape.layers, "hidden": shape.hidden},
            )
        )
    if shape.is_moe:
        notes.append(
            Note(
                "moe",
                Msg(
                    "mixture of experts: memory counts all {experts} experts, FLOPs the "
                    "{active_experts} active ones",
                    experts=shape.experts,
                    active_experts=shape.active_experts,
                ),
                {"experts": shape.experts, "active_experts": shape.active_experts},
            )
        )
    return notes


def _attention_notes(s: Solution) -> list[Note]:
    """BLOOM's and MPT's Hugging Face code has only its own eager attention; GPT-J's has
    FlashAttention 2 only when a run asks for it."""
    family = s.shape.family
    if eager_attention_only(s.shape, s.setup):
        text = Msg(
            "Hugging Face's {family} code has no SDPA or FlashAttention: every layer keeps its "
            "attention scores (heads × sequence² per micro-batch), whatever flash_attn says",
            family=family,
        )
        return [Note("eager_attention", text, {"family": family})]
    if s.setup.flash_attn and flash_only_by_request(s.shape, s.setup):
        text = Msg(
            "Hugging Face's {family} code has no SDPA: it uses FlashAttention only when the run "
            'asks for attn_implementation="flash_attention_2" (the flash-attn package); '
            "otherwise every layer keeps its attention scores: --no-flash-attn (flash_attn = "
            "false) counts them",
            family=family,
        )
        return [Note("flash_attention_on_request", text, {"family": family})]
    return []


def _placement_notes(s: Solution) -> list[Note]:
    notes = []
    if s.needs_rdma and s.fits:
        notes.append(
            Note(
                "multi_node",
                Msg(
                    "{nodes} nodes: needs an RDMA network (InfiniBand or RoCE) between them, "
                    "in one data centre, not across regions",
                    nodes=s.nodes,
                ),
                {"nodes": s.nodes},
            )
        )
    if s.cards > 1 and not has_nvlink(s.gpu, s.links.card):
        notes.append(
            Note(
                "pcie_only",
                Msg(
                    "{gpu} has no NVLink: multi-card training communicates over PCIe; expect "
                    "a lower MFU than the table's",
                    gpu=s.gpu.name,
                ),
                {"gpu": s.gpu.name},
            )
        )
    share = memory_share(s)
    if s.fits and share < OVER_PROVISIONED_BELOW and s.cards == 1:
        notes.append(
            Note(
                "over_provisioned",
                Msg("uses {share:.0%} of the card's memory: a smaller card may do", share=share),
                {"memory_share": round(share, 3)},
            )
        )
    return notes


def _link_notes(s: Solution) -> list[Note]:
    """Link strings that could not be read: the figure assumed instead, naming the string."""
    notes = []
    card, network = s.links.card, s.links.network
    if card is not None and card.assumed:
        notes.append(
            Note(
                "unknown_interconnect",
                Msg(
                    "interconnect '{text}' not understood: assumed the GPU registry's ({link})",
                    text=card.text,
                    link="NVLink" if s.gpu.has_nvlink else "PCIe",
                ),
                {"text": card.text},
            )
        )
    if network.text and network.assumed:
        notes.append(
            Note(
                "unknown_network",
                Msg(
                    "network '{text}' not fully understood: assumed {kind} {gbps:g} Gb/s per node",
                    text=network.text,
                    kind=Msg("network\x04unknown") if network.kind == "unknown" else network.kind,
                    gbps=network.gbps,
                ),
                {"text": network.text, "gbps": network.gbps},
            )
        )
    return notes


def _notes(s: Solution) -> tuple[Note, ...]:
    notes = _shape_notes(s.shape) + _attention_notes(s) + _placement_notes(s) + _link_notes(s)
    notes += [Note(code, text, params) for code, text, params in utilisation_notes(s)]
    if s.total_tokens == 0:
        notes.append(
            Note(
                "no_tokens",
                Msg("no --tokens (or --samples/--avg-tokens) given: memory only, hours are 0"),
            )
        )
    reason = why_not(s)
    if reason is not None:
        notes.append(Note("does_not_fit", reason))
    return tuple(notes)


def estimate(request: EstimateRequest) -> Estimate:
    """Memory per card, cards and ZeRO stage, FLOPs and hours for ``request``.

    Raises :class:`~comparator.errors.InputError` (or a subclass) on bad input.
    """
    return Estimate(solve(request))
