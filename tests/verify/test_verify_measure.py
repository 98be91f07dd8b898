"""Optional PyTorch measurements: they skip cleanly without torch or a GPU; judging is pure.

No GPU is available to these tests, so the measuring itself is not exercised here; the
figures below are hand-made `Measurements` for the pure judging against the registry.
"""

from __future__ import annotations

import sys
import types
from dataclasses import replace

import pytest

from comparator.domain.gpus import GPUS
from comparator.verify.acceptance import evaluate
from comparator.verify.checks import Expectation
from comparator.verify.measure import (
    NOT_REQUESTED,
    CardMeasurement,
    Measurements,
    interconnect_gbs,
    measure,
    measurement_checks,
)
from comparator.verify.nvsmi import MachineReport, PcieLink, Topology, parse_smi_xml, parse_topology
from tests.conftest import DATA

SMI = DATA / "nvidia-smi"
A100 = GPUS["A100-SXM4-80GB"]


def hgx(topology: bool = True) -> MachineReport:
    topo = parse_topology((SMI / "a100-sxm4-80gb-x8.topo.txt").read_text()) if topology else None
    return parse_smi_xml((SMI / "a100-sxm4-80gb-x8.xml").read_bytes(), "hgx", topo)


def measured(
    tflops: float, gbs: float, busbw: float | None = 230.0, **card: object
) -> Measurements:
    report = hgx()
    cards = tuple(
        CardMeasurement(i, "NVIDIA A100-SXM4-80GB", gpu.uuid, tflops, gbs)
        for i, gpu in enumerate(report.gpus)
    )
    if card:
        cards = (replace(cards[0], **card), *cards[1:])  # type: ignore[arg-type]
    return Measurements("measured", "measured", cards, busbw, None, "2.5.1")


def test_without_torch_measure_skips_with_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch → ImportError
    result = measure()
    assert (result.status, result.reason, result.cards) == ("skipped", "skip_no_torch", ())
    assert "PyTorch is not installed" in result.message("en")
    assert "没有安装 PyTorch" in result.message("zh")


def test_torch_without_cuda_skips_with_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = types.ModuleType("torch")
    torch.__version__ = "2.5.1+cpu"  # type: ignore[attr-defined]
    torch.cuda = types.SimpleNamespace(is_available=lambda: False, device_count=lambda: 0)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torch", torch)
    result = measure()
    assert (result.status, result.reason, result.torch_version) == (
        "skipped",
        "skip_no_cuda",
        "2.5.1+cpu",
    )
    assert "sees no CUDA device" in result.message("en")


def test_skipped_measurements_add_no_checks_and_say_why() -> None:
    result = evaluate(hgx(), None, measurements=NOT_REQUESTED, lang="en")
    assert [c.id for c in result.checks][-1] == "driver"
    doc = result.to_json()["measurements"]
    assert doc["status"] == "skipped"
    assert doc["message"] == "not measured (run on the rented machine with --measure)"


def test_figures_near_spec_pass() -> None:
    result = evaluate(hgx(), None, measurements=measured(280.0, 1750.0), lang="en")
    checks = {c.id: c for c in result.checks}
    assert [
        checks[k].status for k in ("bf16_tflops", "memory_bandwidth", "allreduce_bandwidth")
    ] == ["pass", "pass", "pass"]
    assert checks["bf16_tflops"].message == (
        "bf16 matmul: 280, 280, 280, 280, 280, 280, 280, 280 TFLOP/s, spec 312 TFLOP/s"
    )
    assert checks["allreduce_bandwidth"].message == (
        "NCCL all-reduce bus bandwidth: 230 GB/s, spec 300 GB/s"
    )
    assert result.status == "pass"


@pytest.mark.parametrize(
    ("tflops", "expected"), [(200.0, "pass"), (180.0, "warn"), (110.0, "warn"), (100.0, "fail")]
)
def test_compute_thresholds(tflops: float, expected: str) -> None:
    checks = measurement_checks(
        measured(280.0, 1750.0, bf16_tflops=tflops), hgx(), Expectation(), "en"
    )
    assert checks[0].status == expected  # 60 % of 312 = 187; 35 % = 109
    if expected != "pass":
        assert checks[0].message.startswith("GPU 0: bf16 matmul")


def test_a_failed_card_measurement_warns_with_the_error() -> None:
    figures = measured(
        280.0,
        1750.0,
        bf16_tflops=None,
        bandwidth_gbs=None,
        error="OutOfMemoryError: CUDA out of memory",
    )
    checks = measurement_checks(figures, hgx(), Expectation(), "en")
    assert checks[0].status == "warn"
    assert "GPU 0: measurement failed: OutOfMemoryError" in checks[0].message


def test_cards_are_named_by_nvidia_smi_index_via_uuid() -> None:
    report = hgx()
    figures = measured(280.0, 1750.0)
    swapped = (replace(figures.cards[0], device=5, bf16_tflops=50.0), *figures.cards[1:])
    checks = measurement_checks(replace(figures, cards=swapped), report, Expectation(), "en")
    assert checks[0].message.startswith("GPU 0:")  # uuid of nvidia-smi's GPU 0, torch's cuda:5
    unknown = (replace(figures.cards[0], uuid=None, bf16_tflops=50.0), *figures.cards[1:])
    checks = measurement_checks(replace(figures, cards=unknown), report, Expectation(), "en")
    assert checks[0].message.startswith("cuda:0:")


def test_slow_allreduce_only_warns_and_failures_are_reported() -> None:
    checks = measurement_checks(measured(280.0, 1750.0, busbw=20.0), hgx(), Expectation(), "en")
    assert checks[2].status == "warn"
    assert "only 7% of the spec 300 GB/s" in checks[2].message
    failed = replace(
        measured(280.0, 1750.0),
        allreduce_busbw_gbs=None,
        allreduce_error="RuntimeError: NCCL error",
    )
    assert measurement_checks(failed, hgx(), Expectation(), "en")[2].status == "warn"


def test_interconnect_reference() -> None:
    assert interconnect_gbs(hgx(), A100) == 300.0  # NVLink 600 GB/s both ways
    assert interconnect_gbs(hgx(topology=False), A100) == 300.0  # SXM card, no topology
    pcie = replace(hgx(), topology=Topology(8, {(0, 1): "SYS"}))
    assert interconnect_gbs(pcie, A100) == pytest.approx(31.504)  # gen 4 × 16 lanes
    gen3 = replace(pcie, gpus=tuple(replace(g, pcie=PcieLink(3, 3, 16, 16)) for g in pcie.gpus))
    assert interconnect_gbs(gen3, GPUS["RTX4090"]) == pytest.approx(15.76)
    assert interconnect_gbs(replace(pcie, gpus=()), None) is None
