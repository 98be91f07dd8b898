"""The acceptance checks of the links between a rented machine's cards, pure functions.

* ``pcie_link`` — warn when a link runs narrower than the card's width (x8 of x16) or the slot
  is an older generation than the card. A lower *current* generation alone is normal at idle.
* ``nvlink`` — when the offer promises NVLink: fail if no GPU pair is linked by NVLink, warn if
  some are not; fail whenever the NVSwitch fabric manager reports a card not ready.
"""

from __future__ import annotations

from collections.abc import Sequence

from comparator.errors import Msg
from comparator.i18n import render, say
from comparator.verify.checks import (
    _CARDS,
    _LISTED,
    AcceptanceCheck,
    Expectation,
    Problem,
    from_problems,
    gpu_list,
    per_card,
)
from comparator.verify.nvsmi import GpuReading, MachineReport


def _pcie_problems(gpu: GpuReading, lang: str) -> list[Problem]:
    link, label = gpu.pcie, _CARDS
    problems: list[Problem] = []
    if link.current_width and link.max_width and link.current_width < link.max_width:
        problems.append(
            (
                "warn",
                say(
                    lang,
                    "{label}: PCIe link runs at x{current} of x{max}",
                    label=label,
                    current=link.current_width,
                    max=link.max_width,
                ),
            )
        )
    if link.max_host_gen and link.max_device_gen and link.max_host_gen < link.max_device_gen:
        problems.append(
            (
                "warn",
                say(
                    lang,
                    "{label}: PCIe gen {host} slot, the card does gen {device}",
                    label=label,
                    host=link.max_host_gen,
                    device=link.max_device_gen,
                ),
            )
        )
    return problems


def check_pcie_link(report: MachineReport, expected: Expectation, lang: str) -> AcceptanceCheck:
    problems = per_card(report, lambda gpu: _pcie_problems(gpu, lang))
    links = {f"gen {g.pcie.max_gen} x{g.pcie.max_width}" for g in report.gpus if g.pcie.max_width}
    ok = say(
        lang,
        "PCIe links at full width ({widths})",
        widths=", ".join(sorted(links)) or say(lang, "not reported"),
    )
    idle = [g.index for g in report.gpus if (g.pcie.current_gen or 0) < (g.pcie.max_gen or 0)]
    if idle:
        ok += say(
            lang, "; {cards} run a lower PCIe generation, normal when idle", cards=gpu_list(idle)
        )
    return from_problems("pcie_link", problems, ok, lang)


def _fabric_problems(gpu: GpuReading, lang: str) -> list[Problem]:
    state, status = gpu.fabric_state, gpu.fabric_status
    if state in (None, "Completed") and status in (None, "Success"):
        return []
    return [
        (
            "fail",
            say(
                lang,
                "{label}: NVSwitch fabric not ready ({state}/{status})",
                label=_CARDS,
                state=state,
                status=status,
            ),
        )
    ]


def _pairs_text(pairs: Sequence[tuple[int, int]]) -> str:
    shown = ", ".join(f"{a}–{b}" for a, b in pairs[:_LISTED])
    return shown + (f", … (+{len(pairs) - _LISTED})" if len(pairs) > _LISTED else "")


def _unread_topology(problem: Msg, lang: str) -> str:
    """Why ``nvidia-smi topo -m``, run here, gave no topology."""
    reason = render(problem, lang)
    return say(lang, "`nvidia-smi topo -m` could not be read: {reason}", reason=reason)


def _link_problems(report: MachineReport, expected: Expectation, lang: str) -> list[Problem]:
    topology = report.topology
    if topology is None:
        if not expected.nvlink:
            return []
        if report.topology_problem is not None:
            return [("warn", _unread_topology(report.topology_problem, lang))]
        return [
            (
                "warn",
                say(
                    lang,
                    "the offer promises NVLink but there is no `nvidia-smi topo -m` output to "
                    "check (pass --topo FILE)",
                ),
            )
        ]
    missing = topology.pairs(nvlink=False)
    if not expected.nvlink or not missing:
        return []
    links = "/".join(sorted({topology.links[pair] for pair in missing}))
    if not topology.pairs(nvlink=True):
        return [
            (
                "fail",
                say(
                    lang,
                    "the offer promises NVLink; the GPUs are joined over PCIe only ({links})",
                    links=links,
                ),
            )
        ]
    return [("warn", say(lang, "GPU pairs without NVLink: {pairs}", pairs=_pairs_text(missing)))]


def _links_summary(report: MachineReport, lang: str) -> str:
    if report.topology is None:
        if report.topology_problem is not None:
            return _unread_topology(report.topology_problem, lang)
        return say(lang, "no topology given, not checked")
    return say(
        lang, "GPU links: {links}", links="/".join(sorted(set(report.topology.links.values())))
    )


def check_nvlink(report: MachineReport, expected: Expectation, lang: str) -> AcceptanceCheck:
    if len(report.gpus) < 2:
        return AcceptanceCheck("nvlink", "pass", say(lang, "one card: no NVLink needed"))
    problems = per_card(report, lambda gpu: _fabric_problems(gpu, lang))
    problems += _link_problems(report, expected, lang)
    return from_problems("nvlink", problems, _links_summary(report, lang), lang)
