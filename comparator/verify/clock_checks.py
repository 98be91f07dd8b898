"""The acceptance check of a rented machine's clocks, a pure function.

``clocks`` — a card that holds its clocks down for its health is not the card that was sold.
NVML's clock event reasons (group ``nvmlClocksEventReasons``; nvidia-smi's
``clocks_event_reasons``, ``clocks_throttle_reasons`` on older drivers): a *HW Thermal* or
*HW Power Brake Slowdown* reduces the core clocks by a factor of 2 or more, so either active
fails; the general *HW Slowdown* "may be also reported during PState or clock change"
(DCGM's field constants), and *SW Thermal Slowdown* is the driver's own, so either active
warns; hardware slowdown on record since the driver loaded warns (the cooling or the power
supply has already failed to keep up). An idle card, an application's clock setting and the
software power cap are not the card's fault and are not read; but a power limit set below
90 % of the board's default warns: the provider has capped the card, which then runs slower
under load (``--measure`` says by how much).
"""

from __future__ import annotations

from comparator.i18n import say
from comparator.verify.checks import (
    _CARDS,
    AcceptanceCheck,
    Expectation,
    Problem,
    from_problems,
    per_card,
)
from comparator.verify.nvsmi import GpuReading, MachineReport

US_PER_S = 1_000_000
CAPPED_BELOW = 0.90  # of the default power limit
FAILING = frozenset({"hw_thermal_slowdown", "hw_power_brake_slowdown"})


def _clock_problems(gpu: GpuReading, lang: str) -> list[Problem]:
    failing = [reason for reason in gpu.slowdowns if reason in FAILING]
    warning = [reason for reason in gpu.slowdowns if reason not in FAILING]
    text = "{label}: clocks held down now by {reasons}"
    problems: list[Problem] = [
        (status, say(lang, text, label=_CARDS, reasons=", ".join(reasons)))
        for status, reasons in (("fail", failing), ("warn", warning))
        if reasons
    ]
    if not gpu.slowdowns and gpu.slowdown_us:
        seconds = f"{gpu.slowdown_us / US_PER_S:,.1f}"
        text = "{label}: {seconds} s of hardware slowdown since the driver loaded"
        problems.append(("warn", say(lang, text, label=_CARDS, seconds=seconds)))
    limit, default = gpu.power_limit_w, gpu.default_power_limit_w
    if limit is not None and default and limit < CAPPED_BELOW * default:
        text = "{label}: power limited to {limit} W of the board's {default} W"
        problems.append(
            ("warn", say(lang, text, label=_CARDS, limit=f"{limit:g}", default=f"{default:g}"))
        )
    return problems


def check_clocks(report: MachineReport, expected: Expectation, lang: str) -> AcceptanceCheck:
    problems = per_card(report, lambda gpu: _clock_problems(gpu, lang))
    ok = say(lang, "no thermal or power slowdown of the clocks, no power cap")
    return from_problems("clocks", problems, ok, lang)
