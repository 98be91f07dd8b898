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

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from comparator.domain.job_fields import FieldReader
from comparator.errors import JobFileError, os_reason, toml_reason

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


def _tokens_per_s(reader: FieldReader, data: Mapping[str, Any]) -> Decimal:
    where = "calibration."
    measured = reader.positive(data, "tokens_per_s_per_card", where)
    step = reader.positive(data, "step_time_s", where)
    if (measured is None) == (step is None):
        raise reader.fail(
            "calibration.tokens_per_s_per_card",
            "tokens_per_s_per_card, or step_time_s with micro_batch and seq_len (one of them)",
        )
    if measured is not None:
        return measured
    assert step is not None
    micro_batch = reader.whole(data, "micro_batch", where, 1)
    seq_len = reader.whole(data, "seq_len", where, 1)
    if micro_batch is None or seq_len is None:
        raise reader.fail("calibration.micro_batch", "micro_batch and seq_len beside step_time_s")
    accumulation = reader.whole(data, "gradient_accumulation", where, 1) or 1
    return Decimal(micro_batch * seq_len * accumulation) / step


def parse_calibration(reader: FieldReader, data: Mapping[str, Any] | None) -> Calibration | None:
    """The ``[calibration]`` table, or None when the job has none."""
    if data is None:
        return None
    reader.reject_unknown(data, CALIBRATION_KEYS, "calibration.")
    name = reader.text(data, "gpu", "calibration.")
    if name is None:
        raise reader.fail("calibration.gpu", "the GPU the trial ran on, like A100-80G")
    cards = reader.whole(data, "cards", "calibration.", 1)
    if cards is None:
        raise reader.fail("calibration.cards", "the number of cards the trial ran on")
    measured_on = data.get("measured_on")
    if measured_on is not None and not isinstance(measured_on, date):
        raise reader.fail("calibration.measured_on", "a date like 2026-11-20", measured_on)
    return Calibration(
        gpu=reader.gpu(name, "calibration.gpu"),
        cards=cards,
        tokens_per_s_per_card=_tokens_per_s(reader, data),
        stack=reader.text(data, "stack", "calibration."),
        measured_on=measured_on.date() if isinstance(measured_on, datetime) else measured_on,
        note=reader.text(data, "note", "calibration."),
        source=reader.source,
    )


def load_calibration(path: str | Path) -> Calibration:
    """A calibration file (a ``[calibration]`` table); errors name the file and the key."""
    source = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise JobFileError("{path}: no such calibration file", path=source) from None
    except UnicodeDecodeError:
        raise JobFileError("{path}: expected UTF-8 text (TOML is UTF-8)", path=source) from None
    except OSError as exc:
        raise JobFileError(
            "{path}: cannot read the calibration file ({reason})",
            path=source,
            reason=os_reason(exc),
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise JobFileError(
            "{path}: not valid TOML ({reason})", path=source, reason=toml_reason(exc)
        ) from None
    reader = FieldReader(source)
    reader.reject_unknown(data, {"calibration"}, "")
    calibration = parse_calibration(reader, reader.table(data, "calibration"))
    if calibration is None:
        raise reader.fail("[calibration]", "a [calibration] table")
    return calibration
