"""The acceptance checks of a rented machine: pure functions of a MachineReport and what was bought.

Each check returns one :class:`AcceptanceCheck` (``pass`` / ``warn`` / ``fail``) whose message names the
cards concerned. Thresholds, and why:

* ``memory_total`` — pass at ≥ 92 % of the registry's memory, warn at ≥ 85 %, fail below.
  GDDR cards with ECC on (A10, A40, L4, T4, RTX A6000…) expose 6.25 % less than their
  datasheet, HBM cards 0–1 % less; a 40 GB card sold as 80 GB, or a vGPU slice, is far below.
* ``memory_in_use`` — warn above 1 GiB used on an idle card, fail above 10 % of the card.
* ``ecc`` — fail on uncorrectable errors since the driver loaded (volatile) or a failed row
  remap; warn on any other error on record, pending remaps/retirements, retired pages, ECC off.

The links between cards (``pcie_link``, ``nvlink``) are checked in
:mod:`comparator.verify.link_checks`; :mod:`comparator.verify.acceptance` runs them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from comparator.domain.gpus import GpuSpec, find_gpu
from comparator.i18n import is_en, say
from comparator.verify.nvsmi import GpuReading, MachineReport, MemoryRepairs

STATUS_RANK = {"pass": 0, "warn": 1, "fail": 2}

MEMORY_PASS_RATIO = 0.92
MEMORY_WARN_RATIO = 0.85
USED_WARN_MIB = 1024
USED_FAIL_FRACTION = 0.10
_LISTED = 6  # problems listed per message before "… and N more"

Problem = tuple[str, str]  # (status, text)


@dataclass(frozen=True)
class AcceptanceCheck:
    id: str
    status: str  # pass | warn | fail
    message: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "status": self.status, "message": self.message}


@dataclass(frozen=True)
class Expectation:
    """What was bought. Without an offer every field is empty and the machine is judged alone."""

    gpu_name: str | None = None  # canonical registry name
    gpu: GpuSpec | None = None
    cards: int | None = None
    nvlink: bool = False
    offer_id: str | None = None


def worst(statuses: Iterable[str]) -> str:
    return max(statuses, key=STATUS_RANK.__getitem__, default="pass")


def gpu_list(indices: Sequence[int]) -> str:
    """``[0, 1, 2, 5]`` → ``"GPU 0–2, 5"``."""
    runs: list[list[int]] = []
    for index in sorted(indices):
        if runs and index == runs[-1][-1] + 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    parts = [f"{run[0]}–{run[-1]}" if len(run) > 2 else ", ".join(map(str, run)) for run in runs]
    return "GPU " + ", ".join(parts)


def listing(problems: Sequence[str], lang: str) -> str:
    """Problems joined with "; ", the first few only."""
    shown = ("; " if is_en(lang) else "；").join(problems[:_LISTED])
    more = len(problems) - _LISTED
    return shown + (say(lang, "; … and {count} more", count=more) if more > 0 else "")


def from_problems(
    check_id: str, problems: Sequence[Problem], ok: str, lang: str
) -> AcceptanceCheck:
    """One check from (status, text) problems, worst first; ``ok`` is the message with none."""
    if not problems:
        return AcceptanceCheck(check_id, "pass", ok)
    ordered = sorted(problems, key=lambda item: -STATUS_RANK[item[0]])
    status = worst(status for status, _ in problems)
    return AcceptanceCheck(check_id, status, listing([text for _, text in ordered], lang))


_CARDS = "\x00cards\x00"  # stands for the cards' label until identical problems are grouped


def per_card(
    report: MachineReport, problems_of: Callable[[GpuReading], list[Problem]]
) -> list[Problem]:
    """Problems of every card, identical ones merged: "GPU 0–7: …" rather than eight lines.

    ``problems_of`` writes :data:`_CARDS` where the card's label goes.
    """
    grouped: dict[Problem, list[int]] = {}
    for gpu in report.gpus:
        for problem in problems_of(gpu):
            grouped.setdefault(problem, []).append(gpu.index)
    return [
        (status, text.replace(_CARDS, gpu_list(indices)))
        for (status, text), indices in grouped.items()
    ]


# --- the checks ----------------------------------------------------------------------------


def check_gpu_count(report: MachineReport, expected: Expectation, lang: str) -> AcceptanceCheck:
    found, cards = len(report.gpus), expected.cards
    if found == 0:
        return AcceptanceCheck("gpu_count", "fail", say(lang, "nvidia-smi lists no GPU"))
    if cards is None or found == cards:
        suffix = say(lang, ", as expected") if cards else ""
        return AcceptanceCheck(
            "gpu_count", "pass", say(lang, "{found} card(s) found", found=found) + suffix
        )
    if found < cards:
        return AcceptanceCheck(
            "gpu_count",
            "fail",
            say(
                lang, "only {found} card(s) found, the offer has {cards}", found=found, cards=cards
            ),
        )
    return AcceptanceCheck(
        "gpu_count",
        "warn",
        say(
            lang,
            "{found} cards visible, more than the {cards} offered: the machine may be shared",
            found=found,
            cards=cards,
        ),
    )


def _model_problems(gpu: GpuReading, expected: Expectation, lang: str) -> list[Problem]:
    spec, label = find_gpu(gpu.name), _CARDS
    problems: list[Problem] = []
    if spec is None:
        problems.append(
            (
                "warn",
                say(
                    lang,
                    "{label}: {name!r} is not in the GPU registry, compare by hand",
                    label=label,
                    name=gpu.name,
                ),
            )
        )
    elif expected.gpu_name and spec.name != expected.gpu_name:
        problems.append(
            (
                "fail",
                say(
                    lang,
                    "{label}: {name} ({canonical}), but the offer sells {offered}",
                    label=label,
                    name=gpu.name,
                    canonical=spec.name,
                    offered=expected.gpu_name,
                ),
            )
        )
    if gpu.mig_mode == "Enabled":
        problems.append(("warn", say(lang, "{label}: MIG is on, you may get a slice", label=label)))
    if gpu.virtualization_mode == "VGPU":
        problems.append(
            ("warn", say(lang, "{label}: a virtual GPU (vGPU), time-shared", label=label))
        )
    return problems


def model_summary(report: MachineReport) -> str:
    """``"8 × NVIDIA A100-SXM4-80GB (A100-SXM4-80GB)"``, one part per product name."""
    counts: dict[str, int] = {}
    for gpu in report.gpus:
        counts[gpu.name] = counts.get(gpu.name, 0) + 1
    parts = []
    for name, count in counts.items():
        spec = find_gpu(name)
        parts.append(f"{count} × {name}" + (f" ({spec.name})" if spec else ""))
    return "; ".join(parts)


def check_gpu_model(report: MachineReport, expected: Expectation, lang: str) -> AcceptanceCheck:
    problems = per_card(report, lambda gpu: _model_problems(gpu, expected, lang))
    models = {gpu.name for gpu in report.gpus}
    summary = model_summary(report)
    if len(models) > 1 and not any(status == "fail" for status, _ in problems):
        problems.append(("warn", say(lang, "mixed models: {summary}", summary=summary)))
    ok = summary + (say(lang, ", as offered") if expected.gpu_name else "")
    return from_problems("gpu_model", problems, ok, lang)


def _memory_problems(gpu: GpuReading, expected: Expectation, lang: str) -> list[Problem]:
    spec = expected.gpu or find_gpu(gpu.name)
    if gpu.memory_total_mib is None:
        return [("warn", say(lang, "{label}: no memory total reported", label=_CARDS))]
    if spec is None:
        return [("warn", say(lang, "{label}: unknown model, memory not compared", label=_CARDS))]
    gib = gpu.memory_total_mib / 1024
    ratio = gib / spec.memory_gib
    if ratio >= MEMORY_PASS_RATIO:
        return []
    status = "warn" if ratio >= MEMORY_WARN_RATIO else "fail"
    values = {"gib": gib, "canonical": spec.name, "spec_gib": spec.memory_gib, "ratio": ratio}
    return [
        (
            status,
            say(
                lang,
                "{label}: {gib:.1f} GiB, but {canonical} has {spec_gib:g} GiB ({ratio:.0%})",
                label=_CARDS,
                **values,
            ),
        )
    ]


def check_memory_total(report: MachineReport, expected: Expectation, lang: str) -> AcceptanceCheck:
    problems = per_card(report, lambda gpu: _memory_problems(gpu, expected, lang))
    totals = sorted({gpu.memory_total_mib for gpu in report.gpus if gpu.memory_total_mib})
    shown = ", ".join(f"{mib} MiB ({mib / 1024:.1f} GiB)" for mib in totals)
    return from_problems("memory_total", problems, say(lang, "memory {shown}", shown=shown), lang)


def _used_problems(gpu: GpuReading, lang: str) -> list[Problem]:
    used, total = gpu.memory_used_mib, gpu.memory_total_mib
    if used is None or used <= USED_WARN_MIB:
        return []
    share = used / total if total else 1.0
    status = "fail" if share > USED_FAIL_FRACTION else "warn"
    text = say(
        lang,
        "{label}: {used} MiB already in use ({share:.0%})",
        label=_CARDS,
        used=used,
        share=share,
    )
    return [
        (
            status,
            text
            + (
                ""
                if gpu.processes
                else say(lang, ", by no process you can see (another container?)")
            ),
        )
    ]


def check_memory_in_use(report: MachineReport, expected: Expectation, lang: str) -> AcceptanceCheck:
    problems = per_card(report, lambda gpu: _used_problems(gpu, lang))
    most = max((gpu.memory_used_mib or 0 for gpu in report.gpus), default=0)
    return from_problems(
        "memory_in_use",
        problems,
        say(lang, "memory free (at most {most} MiB in use per card)", most=most),
        lang,
    )


def _process_lines(report: MachineReport) -> list[str]:
    lines = []
    for gpu in report.gpus:
        for process in gpu.processes:
            memory = "" if process.used_memory_mib is None else f", {process.used_memory_mib} MiB"
            lines.append(f"GPU {gpu.index}: pid {process.pid} {process.name}{memory}")
    return lines


def check_processes(report: MachineReport, expected: Expectation, lang: str) -> AcceptanceCheck:
    lines = _process_lines(report)
    if not lines:
        return AcceptanceCheck("processes", "pass", say(lang, "no process on the cards"))
    return AcceptanceCheck(
        "processes",
        "warn",
        say(lang, "processes already on the cards (if not yours, someone else is using them): ")
        + listing(lines, lang),
    )


Finding = tuple[bool, str, str, dict[str, object]]  # (found, status, message id, its values)


def _broken_memory(repairs: MemoryRepairs) -> list[Finding]:
    """What makes a card unfit to use until its provider acts (each a fail)."""
    return [
        (bool(repairs.remap_failure), "fail", "{label}: row remapping failed", {}),
        (
            bool(repairs.unrepairable_memory),
            "fail",
            "{label}: memory that no repair can fix (nvidia-smi: unrepairable_memory)",
            {},
        ),
        (
            repairs.recovery_action is not None,
            "fail",
            "{label}: the driver asks for a recovery before use: {action}",
            {"action": repairs.recovery_action},
        ),
        (
            bool(repairs.sram_threshold_exceeded),
            "fail",
            "{label}: SRAM errors past the threshold for field diagnostics",
            {},
        ),
    ]


def _pending_repairs(repairs: MemoryRepairs) -> list[Finding]:
    """Repairs made or waiting for a reset (each a warning)."""
    return [
        (bool(repairs.remap_pending), "warn", "{label}: a row remap is pending, reset the GPU", {}),
        (
            bool(repairs.repair_pending),
            "warn",
            "{label}: a TPC or memory-channel repair is pending, reset the GPU",
            {},
        ),
        (
            bool(repairs.retirement_pending),
            "warn",
            "{label}: a page retirement is pending, reset the GPU",
            {},
        ),
        (
            repairs.retired_pages > 0,
            "warn",
            "{label}: {count} retired memory page(s)",
            {"count": repairs.retired_pages},
        ),
    ]


def _ecc_problems(gpu: GpuReading, lang: str) -> list[Problem]:
    ecc, label = gpu.ecc, _CARDS
    volatile_unc, aggregate_unc = ecc.volatile_uncorrectable or 0, ecc.aggregate_uncorrectable or 0
    correctable = (ecc.volatile_correctable or 0, ecc.aggregate_correctable or 0)
    found: list[Finding] = [
        (
            volatile_unc > 0,
            "fail",
            "{label}: {count} uncorrectable ECC error(s) since the driver loaded",
            {"count": volatile_unc},
        ),
        *_broken_memory(gpu.repairs),
        (
            volatile_unc == 0 < aggregate_unc,
            "warn",
            "{label}: {count} uncorrectable ECC error(s) on record",
            {"count": aggregate_unc},
        ),
        (
            any(correctable),
            "warn",
            "{label}: correctable ECC errors ({volatile} volatile, {aggregate} aggregate)",
            {"volatile": correctable[0], "aggregate": correctable[1]},
        ),
        *_pending_repairs(gpu.repairs),
        (ecc.mode == "Disabled", "warn", "{label}: ECC is disabled, errors go uncounted", {}),
    ]
    return [
        (status, say(lang, key, label=label, **values)) for hit, status, key, values in found if hit
    ]


def check_ecc(report: MachineReport, expected: Expectation, lang: str) -> AcceptanceCheck:
    problems = per_card(report, lambda gpu: _ecc_problems(gpu, lang))
    without = [gpu.index for gpu in report.gpus if gpu.ecc.mode is None]
    ok = say(lang, "no ECC errors, remapped rows or retired pages")
    if without:
        ok += say(lang, " ({cards}: no ECC support)", cards=gpu_list(without))
    return from_problems("ecc", problems, ok, lang)


def check_driver(report: MachineReport, expected: Expectation, lang: str) -> AcceptanceCheck:
    enabled = sum(1 for gpu in report.gpus if gpu.persistence_mode == "Enabled")
    return AcceptanceCheck(
        "driver",
        "pass",
        say(
            lang,
            "driver {driver}, CUDA {cuda}; persistence mode on {enabled}/{cards} cards",
            driver=report.driver_version or "?",
            cuda=report.cuda_version or "?",
            enabled=enabled,
            cards=len(report.gpus),
        ),
    )
