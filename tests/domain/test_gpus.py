"""The GPU registry: aliases real sheets use, specs from estimation.md, did-you-mean."""

from __future__ import annotations

import csv

import pytest

from comparator.domain.gpus import GPUS, find_gpu, resolve_gpu, snap_to_memory
from comparator.errors import UnknownGpuError
from tests.conftest import SKYPILOT_DIR


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("A100 80G", "A100-SXM4-80GB"),
        ("A100-80G", "A100-SXM4-80GB"),
        ("NVIDIA A100-SXM4-80GB", "A100-SXM4-80GB"),
        ("A100 80GB PCIe", "A100-PCIE-80GB"),
        ("4090", "RTX4090"),
        ("4090D", "RTX4090D"),
        ("NVIDIA GeForce RTX 4090", "RTX4090"),
        ("H800 80G", "H800-SXM5-80GB"),
        ("910B", "Ascend-910B"),
        ("昇腾910B", "Ascend-910B"),
        ("A100-80GB", "A100-SXM4-80GB"),
        ("RTX6000-Ada", "RTX6000-Ada"),
        ("RTX6000Ada", "RTX6000-Ada"),
        ("RTX-6000-Ada", "RTX6000-Ada"),
        ("RTXPro6000", "RTXPRO6000"),
        ("Ａ１００ ８０Ｇ", "A100-SXM4-80GB"),
        ("NVIDIA H100 80GB HBM3", "H100-SXM5-80GB"),
        ("H20", "H20"),
        ("L40S", "L40S"),
        ("A800", "A800-SXM4-80GB"),
    ],
)
def test_aliases_resolve(alias: str, canonical: str) -> None:
    assert resolve_gpu(alias).name == canonical


def test_unknown_gpu_suggests_close_names() -> None:
    with pytest.raises(UnknownGpuError) as info:
        resolve_gpu("H8000")
    assert "did you mean" in str(info.value)
    assert "H800-SXM5-80GB" in info.value.suggestions


def test_specs_follow_estimation_table() -> None:
    assert GPUS["RTX4090"].bf16_tflops == pytest.approx(165, abs=1)
    assert GPUS["H100-SXM5-80GB"].bf16_tflops == 989
    assert GPUS["H800-SXM5-80GB"].nvlink_gbs == 400
    assert GPUS["H20"].memory_gib == 96
    assert GPUS["A100-SXM4-80GB"].interconnect == "nvlink"
    assert GPUS["A100-PCIE-80GB"].interconnect == "pcie"


def test_memory_snaps_within_family() -> None:
    a100 = resolve_gpu("A100")
    assert a100.memory_gib == 40
    assert snap_to_memory(a100, 80).name == "A100-SXM4-80GB"
    assert snap_to_memory(a100, 40).name == "A100-SXM4-40GB"


def _skypilot_accelerators() -> set[str]:
    names = set()
    for path in SKYPILOT_DIR.glob("*/vms.csv"):
        with path.open(newline="") as f:
            names |= {row["AcceleratorName"] for row in csv.DictReader(f) if row["AcceleratorName"]}
    with (SKYPILOT_DIR / "common" / "accelerators.csv").open(newline="") as f:
        names |= {row["AcceleratorName"] for row in csv.DictReader(f)}
    return names


def test_registry_knows_every_skypilot_accelerator() -> None:
    unknown = sorted(n for n in _skypilot_accelerators() if find_gpu(n) is None)
    assert unknown == []
