"""``suanli verify --calibration-out FILE --trial-tokens-per-s N``: the calibration file of a
trial run on this machine, which ``plan --calibration FILE`` and ``quote --calibration FILE``
read. The GPU and card count are this machine's (``nvidia-smi``); with ``--measure`` the note
keeps the measured bf16 matmul TFLOP/s per card beside the trial's tokens/s."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from comparator.domain import DEFAULT_TIMEZONE, find_gpu
from comparator.errors import InputError, Msg, os_reason

if TYPE_CHECKING:
    from comparator.domain import Calibration
    from comparator.verify import MachineReport, Measurements


def trial_calibration(
    report: MachineReport,
    tokens_per_s_per_card: float,
    measurements: Measurements,
    day: date | None = None,
) -> Calibration:
    """The calibration of a trial run measured on the machine ``report`` describes."""
    names = {gpu.name for gpu in report.gpus}
    spec = find_gpu(next(iter(names))) if len(names) == 1 else None
    if spec is None:
        raise InputError(
            "--calibration-out: this machine's GPUs ({names}) are not one known model",
            names=", ".join(sorted(names)) or "none",
            hint=Msg(
                "write the [calibration] table by hand for the GPU the trial ran on (README, "
                "Calibrate from your own trial run)"
            ),
        )
    tflops = [c.bf16_tflops for c in measurements.cards if c.bf16_tflops is not None]
    note = "suanli verify" + (
        f"; bf16 matmul {sum(tflops) / len(tflops):.0f} TFLOP/s per card measured" if tflops else ""
    )
    from comparator.domain import Calibration  # the job model loads with the command only

    return Calibration(
        gpu=spec.name,
        cards=len(report.gpus),
        tokens_per_s_per_card=Decimal(repr(tokens_per_s_per_card)),
        measured_on=day or date.today(),
        note=note,
    )


CALIBRATION_OUT = typer.Option(
    None, "--calibration-out", help="Write a calibration file of a trial run on this machine."
)
TRIAL_TOKENS = typer.Option(
    None, "--trial-tokens-per-s", min=0.001, help="Training tokens/s per card the trial ran."
)


def write_calibration(
    path: Path | None,
    report: MachineReport,
    tokens_per_s_per_card: float | None,
    measurements: Measurements,
) -> None:
    """Write the trial's calibration file, when asked (``--trial-tokens-per-s`` needed)."""
    if path is None:
        return
    if tokens_per_s_per_card is None:
        raise InputError(
            "--calibration-out needs --trial-tokens-per-s: the training tokens/s per card your "
            "trial run measured on this machine",
            hint=Msg(
                "add --trial-tokens-per-s N, the training tokens/s per card your trial measured"
            ),
        )
    from datetime import datetime

    today = datetime.now(DEFAULT_TIMEZONE).date()
    calibration = trial_calibration(report, tokens_per_s_per_card, measurements, today)
    try:
        path.write_text(calibration.to_toml(), encoding="utf-8")
    except OSError as exc:
        raise InputError(
            "--calibration-out: cannot write {path} ({reason})",
            path=str(path),
            reason=os_reason(exc),
            hint=Msg("give --calibration-out a path in a folder you can write to"),
        ) from None
