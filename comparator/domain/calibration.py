"""A team's own trial run, fed back to the estimate: the ``[calibration]`` table (pure).

In a job file, or alone in a calibration file (``plan --calibration FILE``, ``quote
--calibration FILE``; ``verify --measure --calibration-out FILE`` writes one)::

    [calibration]
    gpu = "A100-80G"              # the GPU the trial ran on
    cards = 8                     # on how many cards
    tokens_per_s_per_card = 2400  # measured, steady state (or the step time below)
    # step_time_s = 6.8           # seconds per optimizer step, with
    # micro_batch = 1             #   sequences per card per micro-step,
    # seq_len = 4096              #   tokens per sequence and
    # gradient_accumulation = 4   #   micro-steps per step (default 1)
    stack = "deepspeed"           # optional: the training stack it ran with
    measured_on = 2026-11-20      # optional: the day of the run
    note = "trial run, 200 steps" # optional

The measurement moves the estimate: the ratio measured / predicted tokens/s per card on the
measured GPU × cards scales the card-hours on every GPU and card count the estimator prices
(:mod:`comparator.plan.calibrate`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from comparator.domain.input_model import FileTable, render_errors
from comparator.domain.job_model import CalibrationTable
from comparator.domain.toml_input import read_toml
from comparator.errors import JobFileError, Msg

CALIBRATION_KEYS = {
    "gpu",
    "cards",
    "tokens_per_s_per_card",
    "step_time_s",
    "micro_batch",
    "seq_len",
    "gradient_accumulation",
    "stack",
    "measured_on",
    "note",
}


@dataclass(frozen=True)
class Calibration:
    """A measured training speed on one GPU × cards."""

    gpu: str  # canonical GPU name
    cards: int
    tokens_per_s_per_card: Decimal
    stack: str | None = None
    measured_on: date | None = None
    note: str | None = None
    source: str = ""  # the file it was read from

    def to_json(self) -> dict[str, Any]:
        return {
            "gpu": self.gpu,
            "cards": self.cards,
            "tokens_per_s_per_card": str(self.tokens_per_s_per_card),
            "stack": self.stack,
            "measured_on": self.measured_on.isoformat() if self.measured_on else None,
            "note": self.note,
            "source": self.source,
        }

    def to_toml(self) -> str:
        """The calibration file of this measurement (what ``load_calibration`` reads)."""
        lines = [
            "[calibration]",
            f'gpu = "{self.gpu}"',
            f"cards = {self.cards}",
            f"tokens_per_s_per_card = {self.tokens_per_s_per_card}",
        ]
        if self.stack:
            lines.append(f'stack = "{self.stack}"')
        if self.measured_on:
            lines.append(f"measured_on = {self.measured_on.isoformat()}")
        if self.note:
            lines.append(f"note = {self.note!r}".replace("'", '"'))
        return "\n".join(lines) + "\n"


class CalibrationFile(FileTable):
    """A calibration file: one ``[calibration]`` table."""

    calibration: CalibrationTable = Field(description="a [calibration] table")


def calibration_of(table: CalibrationTable | None, source: str) -> Calibration | None:
    """The measurement a validated ``[calibration]`` table gives; None without one."""
    if table is None:
        return None
    return Calibration(
        gpu=table.gpu,
        cards=table.cards,
        tokens_per_s_per_card=table.tokens_per_s(),
        stack=table.stack,
        measured_on=table.measured_on,
        note=table.note,
        source=source,
    )


def load_calibration(path: str | Path) -> Calibration:
    """A calibration file (a ``[calibration]`` table); errors name the file and the key."""
    source = str(path)
    data = read_toml(
        path,
        error=JobFileError,
        kind=Msg("calibration file"),
        missing=Msg("{path}: no such calibration file", path=source),
    )
    try:
        file = CalibrationFile.model_validate(data)
    except ValidationError as exc:
        raise render_errors(exc, CalibrationFile, source, JobFileError) from None
    calibration = calibration_of(file.calibration, source)
    assert calibration is not None
    return calibration
