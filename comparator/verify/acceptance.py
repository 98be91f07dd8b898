"""Acceptance check of a rented machine against what was bought (``suanli verify``).

Pure: a :class:`~comparator.verify.nvsmi.MachineReport` (parsed ``nvidia-smi -q -x`` and
``topo -m``), the offer (an :class:`~comparator.catalog.models.OfferView`, or ``None``) and optional
measurements go in; a :class:`VerifyResult` with one check per concern and an overall
``pass``/``warn``/``fail`` comes out. The checks and their thresholds are documented in
:mod:`comparator.verify.checks` and :mod:`comparator.verify.measure`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from comparator.domain.gpus import find_gpu
from comparator.domain.offer_view import OfferView
from comparator.verify.checks import (
    AcceptanceCheck,
    Expectation,
    check_driver,
    check_ecc,
    check_gpu_count,
    check_gpu_model,
    check_memory_in_use,
    check_memory_total,
    check_processes,
    worst,
)
from comparator.verify.clock_checks import check_clocks
from comparator.verify.link_checks import check_nvlink, check_pcie_link
from comparator.verify.measure import NOT_REQUESTED, Measurements, measurement_checks
from comparator.verify.nvsmi import GpuReading, MachineReport, Topology

# every check of the hardware, in the order the report lists them
HARDWARE_CHECKS: tuple[Callable[[MachineReport, Expectation, str], AcceptanceCheck], ...] = (
    check_gpu_count,
    check_gpu_model,
    check_memory_total,
    check_memory_in_use,
    check_processes,
    check_ecc,
    check_pcie_link,
    check_nvlink,
    check_clocks,
    check_driver,
)


@dataclass(frozen=True)
class VerifyResult:
    report: MachineReport
    expected: Expectation
    checks: tuple[AcceptanceCheck, ...]
    measurements: Measurements
    lang: str = "zh"

    @property
    def status(self) -> str:
        return worst(check.status for check in self.checks)

    def to_json(self) -> dict[str, Any]:
        """The ``suanli verify --json`` document (contract keys first, then extras)."""
        return {
            "gpus": [gpu_json(gpu) for gpu in self.report.gpus],
            "checks": [check.to_json() for check in self.checks],
            "status": self.status,
            "offer_id": self.expected.offer_id,
            "expected": expected_json(self.expected),
            "driver_version": self.report.driver_version,
            "cuda_version": self.report.cuda_version,
            "source": self.report.source,
            "topology": topology_json(self.report.topology),
            "measurements": self.measurements.to_json(self.lang),
        }


def gpu_json(gpu: GpuReading) -> dict[str, Any]:
    spec = find_gpu(gpu.name)
    return {
        "index": gpu.index,
        "name": gpu.name,
        "canonical": spec.name if spec else None,
        "memory_total_mib": gpu.memory_total_mib,
        "memory_used_mib": gpu.memory_used_mib,
        "ecc_errors": gpu.ecc.total,
        "processes": len(gpu.processes),
        "bus_id": gpu.bus_id,
        "uuid": gpu.uuid,
        "memory_reserved_mib": gpu.memory_reserved_mib,
        "persistence_mode": gpu.persistence_mode,
        "mig_mode": gpu.mig_mode,
        "ecc": asdict(gpu.ecc),
        "repairs": asdict(gpu.repairs),
        "pcie": asdict(gpu.pcie),
        "process_list": [asdict(process) for process in gpu.processes],
        "slowdowns": list(gpu.slowdowns),
        "slowdown_us": gpu.slowdown_us,
        "power_limit_w": gpu.power_limit_w,
        "default_power_limit_w": gpu.default_power_limit_w,
    }


def topology_json(topology: Topology | None) -> dict[str, Any] | None:
    if topology is None:
        return None
    links = {f"{a}-{b}": link for (a, b), link in sorted(topology.links.items())}
    return {"gpus": topology.gpu_count, "links": links}


def expected_json(expected: Expectation) -> dict[str, Any]:
    return {"gpu": expected.gpu_name, "cards": expected.cards, "nvlink": expected.nvlink}


def cards_per_machine(offer: OfferView) -> int:
    """Cards one machine should show: an offer over several nodes puts ``node_cards`` on each."""
    return offer.cards if offer.cards <= offer.node_cards else offer.node_cards


def expectation_for(offer: OfferView | None, cards: int | None = None) -> Expectation:
    """What to hold the machine to: the offer's GPU, cards per machine and interconnect."""
    if offer is None:
        return Expectation(cards=cards)
    return Expectation(
        gpu_name=offer.gpu,
        gpu=find_gpu(offer.gpu),
        cards=cards if cards is not None else cards_per_machine(offer),
        nvlink=offer.interconnect == "nvlink",
        offer_id=offer.offer_id,
    )


def evaluate(
    report: MachineReport,
    offer: OfferView | None = None,
    *,
    cards: int | None = None,
    measurements: Measurements = NOT_REQUESTED,
    lang: str = "zh",
) -> VerifyResult:
    """Every check on ``report`` against ``offer`` (``cards`` overrides the expected count)."""
    expected = expectation_for(offer, cards)
    checks = [check(report, expected, lang) for check in HARDWARE_CHECKS]
    checks += measurement_checks(measurements, report, expected, lang)
    return VerifyResult(report, expected, tuple(checks), measurements, lang)
