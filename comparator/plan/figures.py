"""The figures that price a placement, made once and shown everywhere (pure).

Every plan carries its :class:`Figures`: the MFU, speed, card-hours and hours its line items
are priced on. ``plan`` prints them, ``plan --json`` carries them (``figures`` of each plan,
and the rows of ``assumptions.throughput``), and the quote's GPU table (卡型算力表) copies those
rows; nothing downstream recomputes them.

Where each figure comes from:

* ``card_hours``: the card-hours the planner priced on that card count and those links
  (:func:`comparator.plan.work_hours.priced_card_hours`); ``compute_hours`` is that
  over the cards; ``run_hours`` the whole hours it is billed (rounded up from the unrounded
  card-hours: the plan's ``work_hours``).
* ``mfu``: a ``[model]`` job's estimate on that placement, scaled by the estimate's
  card-hours over the priced card-hours (equal unless the multi-node setting or a cheaper
  count's floor moved them); under a tensor / context / pipeline layout, the MFU the priced
  card-hours achieve (training FLOPs over card-seconds × peak: communication included);
  a ``[workload]`` job's throughput table (full fine-tuning MFU of the GPU's class), which
  converts its card-hours.
* ``tokens_per_s_per_card``: the estimate's training tokens over the priced card-seconds.
* ``effective_tflops``: dense BF16 peak × ``mfu``; ``relative``: the reference's card-hours over
  these (per-card speed; the reference is the job's GPU: ``[workload] gpu``, or the best
  plan's GPU at its fewest cards).

One rounding rule, applied here once (half up): MFU and relative speed to 3 decimals,
TFLOP/s, card-hours and compute hours to 0.1, tokens/s to whole tokens; billed hours are whole
hours rounded up. The texts print these values as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from comparator.domain.gpus import GPUS
from comparator.errors import Msg
from comparator.estimate.compute import default_mfu
from comparator.estimate.estimator import Estimate
from comparator.estimate.utilisation import UTILISATION_FLOOR, compute_share
from comparator.i18n import msg_to_json

_THREE = Decimal("0.001")
#: The seeds' per-card memory band (upper limits): below ~70 % is waste, 85–95 % is the aim,
#: above ~98 % risks OOM (the seeds' notes; docs/estimation.md, *Memory band*).
MEMORY_BANDS = ((0.70, "waste"), (0.85, "low"), (0.95, "healthy"), (0.98, "high"))
TENTH = _ONE = Decimal("0.1")
_WHOLE = Decimal("1")


def layout_msg(tp: int, cp: int, pp: int, cards: int) -> Msg:
    """ "TP 2 × CP 1 × PP 1 × DP 4 on 8 cards": a model-parallel layout as the plan states it."""
    return Msg(
        "TP {tp} × CP {cp} × PP {pp} × DP {dp} on {cards} cards",
        tp=tp,
        cp=cp,
        pp=pp,
        dp=cards // (tp * cp * pp),
        cards=cards,
    )


def rounded(value: float | Decimal | None, places: Decimal) -> float | None:
    """The one rounding rule of shown figures: half up to ``places``."""
    if value is None:
        return None
    return float(
        Decimal(repr(value) if isinstance(value, float) else value).quantize(
            places, rounding=ROUND_HALF_UP
        )
    )


@dataclass(frozen=True)
class Figures:
    """What prices one placement (GPU × cards on its links)."""

    gpu: str
    cards: int
    card_hours: Decimal  # priced, unrounded
    run_hours: int  # billed compute hours (whole, rounded up)
    mfu: float | None
    tokens_per_s_per_card: float | None
    relative: float | None
    mfu_source: str  # estimate | throughput_table
    # (tp, cp, pp, dp) when the estimator's model-parallel layout holds the job (else None)
    layout: tuple[int, int, int, int] | None = None
    memory_share: float | None = None  # memory in use per card over the card's memory
    compute_share: float | None = None  # per-card throughput over one card's (≥ 0.60 wanted)

    @property
    def bf16_tflops(self) -> float | None:
        spec = GPUS.get(self.gpu)
        return None if spec is None or spec.bf16_tflops is None else float(spec.bf16_tflops)

    def _layout_json(self) -> dict[str, Any] | None:
        if self.layout is None:
            return None
        tp, cp, pp, dp = self.layout
        text = msg_to_json(layout_msg(tp, cp, pp, self.cards))
        return {"tp": tp, "cp": cp, "pp": pp, "dp": dp, "text_msg": text}

    def to_json(self) -> dict[str, Any]:
        peak = self.bf16_tflops
        mfu = rounded(self.mfu, _THREE)
        return {
            "gpu": self.gpu,
            "cards": self.cards,
            "bf16_tflops": peak,
            "mfu": mfu,
            "mfu_source": self.mfu_source,
            "effective_tflops": rounded(peak * mfu, _ONE) if peak and mfu else None,
            "relative": rounded(self.relative, _THREE),
            "tokens_per_s_per_card": rounded(self.tokens_per_s_per_card, _WHOLE),
            "card_hours": rounded(self.card_hours, _ONE),
            "compute_hours": rounded(self.card_hours / self.cards, _ONE),
            "run_hours": self.run_hours,
            "layout": self._layout_json(),
            "memory_share": rounded(self.memory_share, _THREE),
            "memory_band": memory_band(self.memory_share),
            "compute_share": rounded(self.compute_share, _THREE),
            "compute_ok": None
            if self.compute_share is None
            else self.compute_share >= UTILISATION_FLOOR,
        }


def model_figures(
    gpu: str,
    cards: int,
    card_hours: Decimal,
    run_hours: int,
    estimate: Estimate | None,
    reference_card_hours: Decimal | None,
) -> Figures:
    """The figures of a ``[model]`` job's placement from its estimate there."""
    mfu = tokens = memory = compute = None
    layout = None
    if estimate is not None and card_hours > 0:
        # the card-hours the estimate priced: its data-parallel ones, or its layout's
        split = estimate.layout if not estimate.fits else None
        # the fit's MFU, moved by a calibration (safety_factor = 1 / factor) and by any
        # difference between the estimate's card-hours and the priced ones
        safety = estimate.solution.request.safety_factor
        mfu = estimate.mfu / safety * estimate.card_hours / float(card_hours)
        peak = estimate.solution.gpu.bf16_tflops
        if split is not None and peak:
            # a model-parallel layout: the MFU its priced card-hours achieve (TP/CP/PP
            # communication and the pipeline bubble included)
            flops = estimate.train_flops * estimate.solution.request.safety_factor
            mfu = flops / (float(card_hours) * 3600 * peak * 1e12)
        tokens = estimate.total_tokens / (float(card_hours) * 3600)
        if split is not None and split.fits:
            layout = (split.tp, split.cp, split.pp, split.dp)
        memory, compute = _shares(estimate)
    return Figures(
        gpu,
        cards,
        card_hours,
        run_hours,
        mfu,
        tokens,
        _relative(reference_card_hours, card_hours),
        "estimate",
        layout,
        memory,
        compute,
    )


def _shares(estimate: Estimate) -> tuple[float | None, float | None]:
    """(memory, compute) share of a placement: its layout's when it needs one."""
    solution = estimate.solution
    card_gib = solution.gpu.memory_gib
    split = estimate.layout if not estimate.fits else None
    if split is not None and split.fits:
        return split.memory_gib / card_gib, compute_share(solution) / split.time_factor
    if not estimate.fits:
        return None, None
    return solution.memory_gib["total"] / card_gib, compute_share(solution)


def memory_band(share: float | None) -> str | None:
    """Where a per-card memory share sits in the seeds' band (docs/estimation.md): ``waste``
    below 70 %, ``low`` below the 85–95 % band, ``healthy`` in it, ``high`` above it,
    ``oom_risk`` above 98 %."""
    if share is None:
        return None
    for limit, band in MEMORY_BANDS:
        if share < limit:
            return band
    return "oom_risk"


def workload_figures(
    gpu: str,
    cards: int,
    card_hours: Decimal,
    run_hours: int,
    converted_card_hours: Decimal,
    reference_card_hours: Decimal,
) -> Figures:
    """The figures of a ``[workload]`` job's placement: its card-hours converted by the
    throughput table (full fine-tuning MFU of the GPU's class, ``converted_card_hours``),
    across machines over the multi-node efficiency (``card_hours``)."""
    spec = GPUS.get(gpu)
    mfu = default_mfu(spec, "full") if spec is not None and spec.bf16_tflops else None
    if mfu is not None and card_hours > 0:
        mfu *= float(converted_card_hours / card_hours)
    relative = _relative(reference_card_hours, card_hours)
    return Figures(gpu, cards, card_hours, run_hours, mfu, None, relative, "throughput_table")


def _relative(reference: Decimal | None, card_hours: Decimal) -> float | None:
    if reference is None or card_hours <= 0:
        return None
    return float(reference / card_hours)


#: The places each shown figure keeps (the report's ``number`` filter takes the same).
DIGITS = {
    "mfu": 3,
    "relative": 3,
    "bf16_tflops": 1,
    "effective_tflops": 1,
    "tokens_per_s_per_card": 0,
    "card_hours": 1,
    "compute_hours": 1,
}


def figure_texts(row: dict[str, Any]) -> dict[str, str]:
    """A figures row as text, as every output prints it: its rounded value with thousands
    separators, ``—`` when unknown."""
    texts = {
        key: "—" if row.get(key) is None else f"{Decimal(str(row[key])):,.{places}f}"
        for key, places in DIGITS.items()
    }
    for key in ("memory_share", "compute_share"):  # as whole percent
        value = row.get(key)
        texts[key] = "—" if value is None else f"{Decimal(str(value * 100)):,.0f} %"
    return texts
