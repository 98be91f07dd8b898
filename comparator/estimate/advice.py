"""What to change when a job does not fit, and the seeds' rules of thumb beside our numbers.

Each alternative is a full re-estimate with one setting changed (cards stay fixed when the
user fixed them), so its memory and time are computed the same way as the original:

* ``grad_ckpt`` — full activation recomputation (≈ +33 % compute);
* ``micro_batch`` — micro-batch 1 with gradient accumulation (same global batch and time);
* ``lora`` / ``qlora`` — parameter-efficient fine-tuning instead of full;
* ``zero3`` — shard the weights too (more communication, not modelled in time);
* ``offload_optimizer`` — ZeRO-Offload: optimizer states in CPU memory; time ×
  ``OFFLOAD_TIME_FACTOR`` (CPU Adam step and PCIe traffic);
* ``shorter_seq`` — the longest of seq_len/2, /4 … (≥ 256) that fits;
* ``more_cards`` — the fewest cards that fit, when the user fixed the count;
* ``combined`` — micro-batch 1, checkpointing, free card count and ZeRO stage, LoRA, QLoRA,
  then halved sequences, stacked in that order until it fits (shown when it takes two or
  more changes).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from comparator.errors import InputError, Msg
from comparator.estimate.compute import MFU_TABLE, OFFLOAD_TIME_FACTOR, gpu_class
from comparator.estimate.hf_activations import eager_attention_only
from comparator.estimate.memory import GIB
from comparator.estimate.parallel import recommend
from comparator.estimate.request import EstimateRequest
from comparator.estimate.search import Solution, solve
from comparator.i18n.stored import msg_to_json

MIN_ADVISED_SEQ_LEN = 256
SEED_SAFETY_FACTOR = 1.5


@dataclass(frozen=True)
class Advice:
    """One alternative: the change, and the memory and time it leads to."""

    action: str
    change: dict[str, Any]
    text: Msg  # the change in words; ``description`` is its English
    cards: int
    zero: int
    memory_gib: float
    fits: bool
    hours: float
    card_hours: float
    cpu_memory_gib: float = 0.0

    @property
    def description(self) -> str:
        return str(self.text)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "action": self.action,
            "change": self.change,
            "description": self.description,
            "description_msg": msg_to_json(self.text),
        }
        rest = (f.name for f in dataclasses.fields(self) if f.name not in ("text", *doc))
        return {**doc, **{name: getattr(self, name) for name in rest}}


def _scaled_mfu(request: EstimateRequest, solution: Solution, method: str) -> float | None:
    """A user-given MFU carried over to another method in the table's proportion."""
    if request.mfu is None:
        return None
    row = MFU_TABLE[gpu_class(solution.gpu)]
    return min(1.0, request.mfu * row[method] / row[request.method])


def _advice(
    action: str,
    change: dict[str, Any],
    description: Msg,
    alt: Solution,
    *,
    cpu_memory_gib: float = 0.0,
) -> Advice:
    return Advice(
        action=action,
        change=change,
        text=description,
        cards=alt.cards,
        zero=alt.zero,
        memory_gib=alt.memory_gib["total"],
        fits=alt.fits,
        hours=alt.hours,
        card_hours=alt.card_hours,
        cpu_memory_gib=cpu_memory_gib,
    )


def pinned(solution: Solution) -> EstimateRequest:
    """The request with the memory savers the estimator chose fixed (alternatives add to them)."""
    request, setup = solution.request, solution.setup
    return dataclasses.replace(
        request,
        grad_ckpt=setup.recompute if request.grad_ckpt is None else request.grad_ckpt,
        chunked_loss=setup.chunked_loss if request.chunked_loss is None else request.chunked_loss,
        offload_optimizer=(
            setup.offload_optimizer
            if request.offload_optimizer is None
            else request.offload_optimizer
        ),
        micro_batch=request.micro_batch or setup.micro_batch,
    )


def _try(request: EstimateRequest, **change: Any) -> Solution | None:
    try:
        return solve(dataclasses.replace(request, **change))
    except InputError:
        return None


def _setting_alternatives(request: EstimateRequest, solution: Solution) -> list[Advice]:
    found: list[Advice] = []
    candidates: list[tuple[str, dict[str, Any], Msg, bool]] = [
        (
            "grad_ckpt",
            {"grad_ckpt": True},
            Msg("turn on gradient checkpointing (full recomputation, ≈ +33 % compute)"),
            solution.setup.recompute != "full",
        ),
        (
            "micro_batch",
            {"micro_batch": 1},
            Msg(
                "micro-batch 1 with {steps}× gradient accumulation (same global batch)",
                steps=solution.setup.micro_batch,
            ),
            solution.setup.micro_batch > 1,
        ),
        (
            "flash_attn",
            {"flash_attn": True},
            Msg("turn on FlashAttention (no s² attention scores kept, and faster)"),
            not request.flash_attn and not eager_attention_only(solution.shape, solution.setup),
        ),
        (
            "lora",
            {"method": "lora"},
            Msg("LoRA instead of full fine-tuning"),
            request.method == "full",
        ),
        (
            "qlora",
            {"method": "qlora"},
            Msg("QLoRA: 4-bit NF4 base with LoRA adapters"),
            request.method != "qlora",
        ),
        (
            "zero3",
            {"zero": 3},
            Msg("ZeRO-3 / FSDP full sharding of weights, gradients and optimizer states"),
            solution.zero < 3 and (solution.cards > 1 or request.cards is None),
        ),
    ]
    for action, change, description, applicable in candidates:
        if not applicable:
            continue
        if "method" in change:
            change = {**change, "mfu": _scaled_mfu(request, solution, change["method"])}
        alt = _try(request, **change)
        if alt is not None:
            shown = {k: v for k, v in change.items() if k != "mfu" or v is not None}
            found.append(_advice(action, shown, description, alt))
    return found


def _offload_alternative(request: EstimateRequest, solution: Solution) -> list[Advice]:
    if solution.memory.optimizer <= 0 or solution.setup.offload_optimizer:
        return []
    alt = _try(request, offload_optimizer=True)
    if alt is None:
        return []
    cpu_gib = alt.trainable_params * _optimizer_bytes(solution) / GIB
    description = Msg(
        "offload optimizer states to CPU memory (ZeRO-Offload; needs "
        "≈{host_gib:.0f} GiB host RAM, ≈{factor:g}× time)",
        host_gib=cpu_gib,
        factor=OFFLOAD_TIME_FACTOR,
    )
    return [
        _advice(
            "offload_optimizer",
            {"offload_optimizer": True},
            description,
            alt,
            cpu_memory_gib=round(cpu_gib, 1),
        )
    ]


def _optimizer_bytes(solution: Solution) -> float:
    shards = solution.cards if solution.zero >= 1 else 1
    return solution.memory.optimizer * shards / max(solution.trainable_params, 1)


def _shorter_seq_alternative(request: EstimateRequest) -> list[Advice]:
    seq_len = request.seq_len // 2
    while seq_len >= MIN_ADVISED_SEQ_LEN:
        alt = _try(request, seq_len=seq_len)
        if alt is not None and alt.fits:
            description = Msg(
                "shorter sequences: {seq_len} tokens instead of {given}",
                seq_len=seq_len,
                given=request.seq_len,
            )
            return [_advice("shorter_seq", {"seq_len": seq_len}, description, alt)]
        seq_len //= 2
    return []


def _more_cards_alternative(request: EstimateRequest, solution: Solution) -> list[Advice]:
    if request.cards is None or solution.min_cards is None:
        return []
    alt = _try(request, cards=solution.min_cards)
    if alt is None:
        return []
    description = Msg(
        "{cards} cards instead of {given}", cards=solution.min_cards, given=request.cards
    )
    return [_advice("more_cards", {"cards": solution.min_cards}, description, alt)]


def _combined_steps(request: EstimateRequest) -> list[dict[str, Any]]:
    """Changes in order of increasing cost to the job, applied one on top of the other."""
    steps: list[dict[str, Any]] = [
        {"micro_batch": 1},
        {"grad_ckpt": True},
        {"cards": None, "zero": None},
        {"method": "lora"},
        {"method": "qlora"},
    ]
    seq_len = request.seq_len // 2
    while seq_len >= MIN_ADVISED_SEQ_LEN:
        steps.append({"seq_len": seq_len})
        seq_len //= 2
    return steps


def _combined_alternative(request: EstimateRequest, solution: Solution) -> list[Advice]:
    """The cheapest stack of changes that fits, when no single change does."""
    change: dict[str, Any] = {}
    for step in _combined_steps(request):
        if all(getattr(request, k) == v for k, v in step.items()) or (
            "method" in step and change.get("method") == "qlora"
        ):
            continue
        change.update(step)
        if "method" in step:
            change["mfu"] = _scaled_mfu(request, solution, step["method"])
        alt = _try(request, **change)
        if alt is not None and alt.fits:
            if len(change.keys() - {"mfu"}) < 2:
                return []  # a single change: already among the alternatives
            shown = {k: v for k, v in change.items() if k != "mfu" or v is not None}
            resolved: dict[str, Any] = dict(shown)
            resolved.update((k, getattr(alt, k)) for k in ("cards", "zero") if k in shown)
            changes = ", ".join(f"{k}={v}" for k, v in resolved.items())
            text = Msg("together: {changes}", changes=changes)
            return [_advice("combined", shown, text, alt)]
    return []


def advise(solution: Solution) -> tuple[Advice, ...]:
    """Alternatives for a job that does not fit, fitting ones first, cheapest first."""
    if solution.fits:
        return ()
    request = pinned(solution)
    found = (
        _setting_alternatives(request, solution)
        + _offload_alternative(request, solution)
        + _shorter_seq_alternative(request)
        + _more_cards_alternative(request, solution)
    )
    found += _combined_alternative(request, solution) + _parallel_alternative(solution)
    return tuple(sorted(found, key=lambda a: (not a.fits, a.card_hours, a.memory_gib)))


def _parallel_alternative(solution: Solution) -> list[Advice]:
    layout = recommend(solution)
    if layout is None:
        return []
    change = {"tp": layout.tp, "pp": layout.pp, "cp": layout.cp, "dp": layout.dp}
    shape = f"TP {layout.tp} × PP {layout.pp} × CP {layout.cp} × DP {layout.dp}"
    if layout.tp > 1:
        text = Msg(
            "model parallelism: {layout} (sequence parallel; communication ×{factor:.2f})",
            layout=shape,
            factor=layout.time_factor,
        )
    else:
        text = Msg(
            "model parallelism: {layout} (sequence parallel off; communication ×{factor:.2f})",
            layout=shape,
            factor=layout.time_factor,
        )
    return [
        Advice(
            action="parallelism",
            change=change,
            text=text,
            cards=layout.cards,
            zero=1,
            memory_gib=layout.memory_gib,
            fits=True,
            hours=layout.hours,
            card_hours=layout.card_hours,
        )
    ]


_MEMORY_PART_NAMES = {  # a part of the memory per card → its name (English: its key)
    "weights": "largest part\x04weights",
    "gradients": "largest part\x04gradients",
    "optimizer": "largest part\x04optimizer",
    "activations": "largest part\x04activations",
    "overhead": "largest part\x04overhead",
}


def why_not(solution: Solution) -> Msg | None:
    """One sentence on why the job does not fit (``None`` when it does)."""
    if solution.fits:
        return None
    parts = solution.memory_gib
    largest = max(_MEMORY_PART_NAMES, key=lambda name: parts[name])
    return Msg(
        "needs {total_gib:.1f} GiB per card on {cards} card(s) with ZeRO-{zero}, but only "
        "{usable_gib:.1f} GiB is usable ({memory_gib:g} GiB minus {headroom:.0%} headroom); "
        "the largest part is {part} ({part_gib:.1f} GiB)",
        total_gib=parts["total"],
        cards=solution.cards,
        zero=solution.zero,
        usable_gib=solution.usable_memory_gib,
        memory_gib=float(solution.gpu.memory_gib),
        headroom=solution.request.headroom,
        part=Msg(_MEMORY_PART_NAMES[largest]),
        part_gib=parts[largest],
    )


def _rule(rule: Msg, unit: Msg, value: float, ours: float) -> dict[str, Any]:
    return {
        "rule": str(rule),
        "rule_msg": msg_to_json(rule),
        "unit": str(unit),
        "unit_msg": msg_to_json(unit),
        "value": value,
        "ours": ours,
    }


def rules_of_thumb(solution: Solution) -> list[dict[str, Any]]:
    """The seeds' rules of thumb for this job, each beside our number."""
    params = solution.shape.params
    ours_gib = solution.memory_gib["total"] * solution.cards
    if solution.request.method == "full":
        memory_rules = [
            (Msg("18 bytes per parameter (full fine-tuning)"), 18.0),
            (Msg("20× the parameter count in GB (full fine-tuning)"), 20.0),
            (Msg("7B full fine-tuning needs ≥ 70 GB (≈10 bytes per parameter)"), 10.0),
        ]
    else:
        memory_rules = [
            (Msg("LoRA ≈ 1/5 of full fine-tuning (18 bytes per parameter)"), 18 / 5),
            (Msg("LoRA ≈ 30 % of full fine-tuning (18 bytes per parameter)"), 18 * 0.3),
        ]
    all_cards = Msg("GiB (all cards)")
    rules = [
        _rule(text, all_cards, round(params * per_param / GIB, 1), round(ours_gib, 1))
        for text, per_param in memory_rules
    ]
    six_psi_d = 6.0 * solution.shape.active_params * solution.total_tokens
    rules.append(_rule(Msg("6·Ψ·D training FLOPs"), Msg("FLOPs"), six_psi_d, solution.train_flops))
    safety = SEED_SAFETY_FACTOR / solution.request.safety_factor
    rules.append(
        _rule(
            Msg("1.5× safety buffer on card-hours"),
            Msg("card-hours"),
            round(solution.card_hours * safety, 2),
            round(solution.card_hours, 2),
        )
    )
    return rules
