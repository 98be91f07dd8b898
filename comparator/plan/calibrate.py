"""A measured trial run moves the estimate (pure): ``[calibration]``, ``--calibration FILE``,
``estimate --measured-tokens-per-s``.

The estimator predicts the job's training tokens per second per card on the measured GPU ×
cards; ``factor = measured / predicted``. Every card-hour figure the estimator then gives for
the job — on any GPU, card count or network — is divided by ``factor`` (the request's
``safety_factor`` carries it, so the estimate, the plan's figures and the quote agree): the
measured placement lands on the measurement and the model carries the ratio elsewhere.

Its range narrows: a calibrated estimate keeps half the fit's spread around its expected hours
on other GPUs and a quarter on the measured GPU (a design choice, not a fitted figure: the
measurement removes the stack's and the GPU's error there, not the model's transfer error).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from comparator.domain.calibration import Calibration
from comparator.errors import JobFileError, Msg
from comparator.estimate.estimator import EstimateRequest, estimate

MEASURED_GPU_SPREAD = 0.25  # of the fit's low/high distance to the expected value
OTHER_GPU_SPREAD = 0.5
#: a measurement more than this many times off the prediction is refused: the fit's own 5–95 %
#: band is ×0.78–×1.51 (docs/estimation.md, "card_hours_range"), so ×100 is a unit error (the
#: machine's tokens/s, a step's tokens), not a slow or fast stack; past it the figures leave
#: Decimal's range
MAX_CALIBRATION_RATIO = 100


@dataclass(frozen=True)
class CalibrationFit:
    """A measurement against the estimator's prediction for the same GPU × cards."""

    calibration: Calibration
    predicted_tokens_per_s_per_card: float

    @property
    def factor(self) -> float:
        """Measured over predicted tokens/s per card (> 1: the team's stack runs faster)."""
        return float(self.calibration.tokens_per_s_per_card) / self.predicted_tokens_per_s_per_card

    def apply(self, request: EstimateRequest) -> EstimateRequest:
        """``request`` moved to the measurement (it replaces any ``safety_factor``)."""
        return dataclasses.replace(request, safety_factor=1 / self.factor)

    def spread(self, gpu: str) -> float:
        return MEASURED_GPU_SPREAD if gpu == self.calibration.gpu else OTHER_GPU_SPREAD

    def message(self) -> Msg:
        c = self.calibration
        params: dict[str, Any] = {
            "cards": c.cards,
            "gpu": c.gpu,
            "measured": f"{c.tokens_per_s_per_card:,.0f}",
            "predicted": f"{self.predicted_tokens_per_s_per_card:,.0f}",
            "factor": f"{self.factor:.3f}",
        }
        if c.measured_on is not None:
            return Msg(
                "calibrated from a measured run on {cards} × {gpu} ({date}): {measured} "
                "tokens/s per card against {predicted} predicted (× {factor})",
                date=c.measured_on.isoformat(),
                **params,
            )
        return Msg(
            "calibrated from a measured run on {cards} × {gpu}: {measured} tokens/s per card "
            "against {predicted} predicted (× {factor})",
            **params,
        )

    def to_json(self) -> dict[str, Any]:
        from comparator.i18n import msg_to_json

        return {
            **self.calibration.to_json(),
            "predicted_tokens_per_s_per_card": round(self.predicted_tokens_per_s_per_card, 1),
            "factor": round(self.factor, 4),
            "text_msg": msg_to_json(self.message()),
        }


def predicted_tokens_per_s(request: EstimateRequest) -> float | None:
    """The estimator's training tokens/s per card for ``request`` (its cards, or the fewest),
    under data parallelism or the layout that holds the job; None when nothing fits."""
    result = estimate(request)
    card_hours = result.card_hours if result.fits else None
    layout = result.layout if not result.fits else None
    if layout is not None and layout.fits:
        card_hours = layout.card_hours
    if not card_hours:
        return None
    return result.total_tokens * request.safety_factor / (card_hours * 3600)  # safety undone


def fit_calibration(calibration: Calibration, request: EstimateRequest) -> CalibrationFit:
    """The fit of ``calibration`` for the job of ``request`` (put on the measured GPU × cards)."""
    measured = dataclasses.replace(request, cards=calibration.cards)
    predicted = predicted_tokens_per_s(measured)
    if predicted is None:
        raise JobFileError(
            "{path}: calibration: the estimator cannot place this job on {cards} × {gpu}, so "
            "the measurement cannot be compared; give a run on cards that hold the job",
            path=calibration.source or "calibration",
            cards=calibration.cards,
            gpu=calibration.gpu,
        )
    fit = CalibrationFit(calibration, predicted)
    if not 1 / MAX_CALIBRATION_RATIO <= fit.factor <= MAX_CALIBRATION_RATIO:
        raise JobFileError(
            "{path}: calibration: {measured} tokens/s per card is {factor:.3g} × the "
            "estimator's {predicted:.0f} on {cards} × {gpu}; more than {limit}× off is not a "
            "measurement of this job",
            path=calibration.source or "calibration",
            measured=calibration.tokens_per_s_per_card,
            factor=fit.factor,
            predicted=predicted,
            cards=calibration.cards,
            gpu=calibration.gpu,
            limit=MAX_CALIBRATION_RATIO,
            hint=Msg(
                "give the training tokens per second of one card (not of the machine, not "
                "per step), measured on this job's model and settings"
            ),
        )
    return fit


def measured_fit(request: EstimateRequest, tokens_per_s_per_card: Decimal) -> CalibrationFit:
    """``estimate --measured-tokens-per-s``: a measurement on the estimate's own GPU × cards."""
    result = estimate(request)
    cards = request.cards or result.cards
    layout = result.layout if not result.fits else None
    if layout is not None and layout.fits and request.cards is None:
        cards = layout.cards
    gpu = result.solution.gpu.name
    calibration = Calibration(gpu, cards, tokens_per_s_per_card, source="--measured-tokens-per-s")
    return fit_calibration(calibration, request)
