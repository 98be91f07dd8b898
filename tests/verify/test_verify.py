"""`comparator.verify.acceptance`: the verdict on fixtures shaped like real nvidia-smi output, per offer."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from comparator.catalog.models import OfferView
from comparator.errors import Msg
from comparator.verify.acceptance import VerifyResult, cards_per_machine, evaluate, gpu_json
from comparator.verify.checks import gpu_list
from comparator.verify.nvsmi import (
    EccCounts,
    GpuProcess,
    GpuReading,
    MachineReport,
    PcieLink,
    Topology,
    parse_smi_xml,
    parse_topology,
)
from tests.conftest import DATA
from tests.support.factories import offer_view

SMI = DATA / "nvidia-smi"


def machine(name: str, topo: str | None = None) -> MachineReport:
    topology = parse_topology((SMI / f"{topo}.topo.txt").read_text()) if topo else None
    return parse_smi_xml((SMI / f"{name}.xml").read_bytes(), name, topology)


def offer(**changes: Any) -> OfferView:
    """An 8×A100-SXM4-80GB NVLink offer as the catalog returns it."""
    base = offer_view(
        offer_id="17",
        snapshot_id="3",
        provider="demo-nanshan",
        provider_name="南山算力",
        price=Decimal("92.00"),
        stock=6,
        observed_at=datetime(2026, 11, 25, 2, tzinfo=UTC),
    )
    return replace(base, **changes)


def statuses(result: VerifyResult) -> dict[str, str]:
    return {check.id: check.status for check in result.checks}


def message(result: VerifyResult, check_id: str) -> str:
    return next(check.message for check in result.checks if check.id == check_id)


# --- the three machines the issue names ------------------------------------------------------


def test_healthy_8x_a100_passes_against_its_offer() -> None:
    result = evaluate(machine("a100-sxm4-80gb-x8", "a100-sxm4-80gb-x8"), offer(), lang="en")
    assert result.status == "pass", [c for c in result.checks if c.status != "pass"]
    assert list(statuses(result)) == [
        "gpu_count",
        "gpu_model",
        "memory_total",
        "memory_in_use",
        "processes",
        "ecc",
        "pcie_link",
        "nvlink",
        "clocks",
        "driver",
    ]
    assert "8 × NVIDIA A100-SXM4-80GB (A100-SXM4-80GB), as offered" in message(result, "gpu_model")
    assert "NV12" in message(result, "nvlink")


def test_card_used_by_another_process_with_ecc_errors_fails() -> None:
    result = evaluate(machine("a100-sxm4-80gb-x8-shared", "a100-sxm4-80gb-x8"), offer(), lang="en")
    assert result.status == "fail"
    assert statuses(result) == {
        "gpu_count": "pass",
        "gpu_model": "pass",
        "memory_total": "pass",
        "memory_in_use": "fail",
        "processes": "warn",
        "ecc": "fail",
        "pcie_link": "warn",
        "nvlink": "pass",
        "clocks": "pass",
        "driver": "pass",
    }
    assert message(result, "memory_in_use") == "GPU 3: 20484 MiB already in use (25%)"
    assert "pid 2871645 python3, 20480 MiB" in message(result, "processes")
    ecc = message(result, "ecc")
    assert ecc.startswith("GPU 3: 2 uncorrectable ECC error(s) since the driver loaded")
    assert "row remap is pending" in ecc
    assert message(result, "pcie_link") == "GPU 5: PCIe link runs at x8 of x16"


def test_rtx4090_sold_as_a100_80g_fails() -> None:
    result = evaluate(machine("rtx4090-x8", "rtx4090-x8"), offer(), lang="en")
    assert result.status == "fail"
    failing = {cid for cid, status in statuses(result).items() if status == "fail"}
    assert failing == {"gpu_model", "memory_total", "nvlink"}
    assert message(result, "gpu_model") == (
        "GPU 0–7: NVIDIA GeForce RTX 4090 (RTX4090), but the offer sells A100-SXM4-80GB"
    )
    assert message(result, "memory_total") == (
        "GPU 0–7: 24.0 GiB, but A100-SXM4-80GB has 80 GiB (30%)"
    )
    assert "PCIe only (NODE/PIX/SYS)" in message(result, "nvlink")


def test_the_same_rtx4090_machine_passes_against_a_4090_offer() -> None:
    result = evaluate(
        machine("rtx4090-x8", "rtx4090-x8"), offer(gpu="RTX4090", interconnect="pcie"), lang="en"
    )
    assert result.status == "pass"
    assert "GPU 0–7: no ECC support" in message(result, "ecc")
    assert "normal when idle" in message(result, "pcie_link")


def test_a_captured_h200_passes_against_a_one_card_h200_offer() -> None:
    """The lent H200's own `nvidia-smi` output (tests/data/nvidia-smi/README.md)."""
    h200 = offer(gpu="H200-SXM-141GB", cards=1, node_cards=1)
    result = evaluate(machine("h200-x1", "h200-x1"), h200, lang="en")
    assert result.status == "pass", [c for c in result.checks if c.status != "pass"]
    assert "1 × NVIDIA H200 (H200-SXM-141GB), as offered" in message(result, "gpu_model")
    assert "gen 5 x16" in message(result, "pcie_link")
    against_a100 = evaluate(machine("h200-x1", "h200-x1"), offer(), lang="en")
    assert statuses(against_a100)["gpu_model"] == "fail"


def test_legacy_v100_with_ecc_errors_and_retired_pages_fails_on_its_own() -> None:
    result = evaluate(machine("tesla-v100-sxm2-32gb-x2-legacy"), lang="en")
    assert statuses(result)["ecc"] == "fail"
    assert statuses(result)["gpu_model"] == "pass"  # Tesla V100-SXM2-32GB → V100-32GB
    assert statuses(result)["memory_total"] == "pass"  # 32510 MiB of 32 GiB
    ecc = message(result, "ecc")
    assert "GPU 1: 1 uncorrectable" in ecc and "3 retired memory page(s)" in ecc
    assert "page retirement is pending" in ecc


# --- expectations from the offer -------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "node_cards", "expected"), [(8, 8, 8), (1, 8, 1), (16, 8, 8), (4, 8, 4)]
)
def test_cards_per_machine(cards: int, node_cards: int, expected: int) -> None:
    assert cards_per_machine(offer(cards=cards, node_cards=node_cards)) == expected


def test_card_count_against_the_offer_and_the_override() -> None:
    report = machine("a100-sxm4-80gb-x8", "a100-sxm4-80gb-x8")
    fewer = replace(report, gpus=report.gpus[:4])
    assert statuses(evaluate(fewer, offer()))["gpu_count"] == "fail"
    assert message(evaluate(fewer, offer(), lang="en"), "gpu_count") == (
        "only 4 card(s) found, the offer has 8"
    )
    assert statuses(evaluate(report, offer(cards=1)))["gpu_count"] == "warn"
    assert statuses(evaluate(report, offer(cards=1), cards=8))["gpu_count"] == "pass"
    assert statuses(evaluate(replace(report, gpus=()), None))["gpu_count"] == "fail"


def test_nvlink_only_judged_when_promised() -> None:
    report = machine("rtx4090-x8", "rtx4090-x8")
    assert statuses(evaluate(report, offer(gpu="RTX4090", interconnect=None)))["nvlink"] == "pass"
    no_topology = replace(machine("a100-sxm4-80gb-x8"), topology=None)
    result = evaluate(no_topology, offer(), lang="en")
    assert statuses(result)["nvlink"] == "warn"
    assert "--topo FILE" in message(result, "nvlink")
    assert statuses(evaluate(no_topology, offer(interconnect="pcie")))["nvlink"] == "pass"


@pytest.mark.parametrize(
    ("flag", "status", "words"),
    [
        ("<unrepairable_memory>", "fail", "memory that no repair can fix"),
        ("<sram_threshold_exceeded>", "fail", "SRAM errors past the threshold"),
        ("<tpc_repair_pending>", "warn", "repair is pending, reset the GPU"),
        ("<channel_repair_pending>", "warn", "repair is pending, reset the GPU"),
        ("<gpu_recovery_action>", "fail", "asks for a recovery before use: Reboot"),
    ],
)
def test_driver_580_health_flags_grade_the_ecc_check(flag: str, status: str, words: str) -> None:
    """The captured H200's flags (all "No", its recovery action "None") raised one at a
    time."""
    healthy, raised = ("None", "Reboot") if flag == "<gpu_recovery_action>" else ("No", "Yes")
    broken = _raised("h200-x1", flag, healthy, raised)
    h200 = offer(gpu="H200-SXM-141GB", cards=1, node_cards=1)
    result = evaluate(broken, h200, lang="en")
    assert statuses(result)["ecc"] == status and result.status == status
    assert words in message(result, "ecc")
    assert statuses(evaluate(machine("h200-x1"), h200, lang="en"))["ecc"] == "pass"


def _raised(name: str, flag: str, healthy: str, raised: str) -> MachineReport:
    """The captured fixture ``name`` with the first ``flag`` element's text set to ``raised``."""
    xml = (SMI / f"{name}.xml").read_text()
    start = xml.index(flag) + len(flag)
    assert xml[start : start + len(healthy)] == healthy
    return parse_smi_xml(xml[:start] + raised + xml[start + len(healthy) :], f"{name}.xml")


@pytest.mark.parametrize(
    ("reason", "status"),
    [
        ("hw_thermal_slowdown", "fail"),
        ("hw_power_brake_slowdown", "fail"),
        ("hw_slowdown", "warn"),  # also reported during a PState or clock change (DCGM)
        ("sw_thermal_slowdown", "warn"),
        ("sw_power_cap", "pass"),  # the power limit the provider set: not the card's fault
    ],
)
def test_a_card_slowing_its_clocks_for_heat_or_power(reason: str, status: str) -> None:
    h200 = offer(gpu="H200-SXM-141GB", cards=1, node_cards=1)
    flag = f"<clocks_event_reason_{reason}>"
    result = evaluate(_raised("h200-x1", flag, "Not Active", "Active"), h200, lang="en")
    assert statuses(result)["clocks"] == status
    if status != "pass":
        assert message(result, "clocks") == f"GPU 0: clocks held down now by {reason}"
    healthy = evaluate(machine("h200-x1"), h200, lang="zh")
    assert statuses(healthy)["clocks"] == "pass"
    assert message(healthy, "clocks") == "没有因温度或供电降频，功耗未受限"


def test_slowdown_on_record_and_the_older_throttle_layout() -> None:
    h200 = offer(gpu="H200-SXM-141GB", cards=1, node_cards=1)
    counter = "<clocks_event_reasons_counters_hw_power_brake>"
    past = evaluate(_raised("h200-x1", counter, "0 us", "12500000 us"), h200, lang="en")
    assert statuses(past)["clocks"] == "warn"
    assert message(past, "clocks") == ("GPU 0: 12.5 s of hardware slowdown since the driver loaded")
    legacy = _raised(
        "tesla-v100-sxm2-32gb-x2-legacy",
        "<clocks_throttle_reason_hw_thermal_slowdown>",
        "Not Active",
        "Active",
    )
    assert legacy.gpus[0].slowdowns == ("hw_thermal_slowdown",)
    assert legacy.gpus[1].slowdowns == () and legacy.gpus[0].slowdown_us is None
    document = evaluate(legacy, offer(gpu="V100-SXM2-32GB"), lang="en").to_json()
    assert document["gpus"][0]["slowdowns"] == ["hw_thermal_slowdown"]


def test_a_power_cap_below_90_percent_of_the_default_warns() -> None:
    h200 = offer(gpu="H200-SXM-141GB", cards=1, node_cards=1)
    flag = "<current_power_limit>"
    capped = evaluate(_raised("h200-x1", flag, "700.00 W", "500.00 W"), h200, lang="en")
    assert statuses(capped)["clocks"] == "warn"
    assert message(capped, "clocks") == "GPU 0: power limited to 500 W of the board's 700 W"
    slight = evaluate(_raised("h200-x1", flag, "700.00 W", "650.00 W"), h200, lang="en")
    assert statuses(slight)["clocks"] == "pass"  # 93 % of the default: within the rule
    old_layout = _raised(
        "tesla-v100-sxm2-32gb-x2-legacy", "<current_power_limit>", "300.00 W", "250.00 W"
    )
    assert (old_layout.gpus[0].power_limit_w, old_layout.gpus[0].default_power_limit_w) == (
        250.0,
        300.0,
    )
    document = capped.to_json()["gpus"][0]
    assert (document["power_limit_w"], document["default_power_limit_w"]) == (500.0, 700.0)


def test_an_unreadable_topology_says_why_instead_of_asking_for_one() -> None:
    """Run live, `nvidia-smi topo -m` may fail or change its layout: the cards are still
    checked and the NVLink check names the reason, in either language."""
    unread = replace(
        machine("a100-sxm4-80gb-x8"),
        topology_problem=Msg(
            "`{command}` failed (exit {returncode}): {value}",
            command="nvidia-smi topo -m",
            returncode=3,
            value="not supported",
        ),
    )
    promised = evaluate(unread, offer(), lang="en")
    assert statuses(promised)["nvlink"] == "warn"
    assert message(promised, "nvlink") == (
        "`nvidia-smi topo -m` could not be read: `nvidia-smi topo -m` failed (exit 3): "
        "not supported"
    )
    assert "无法读取 `nvidia-smi topo -m`" in message(
        evaluate(unread, offer(), lang="zh"), "nvlink"
    )
    unpromised = evaluate(unread, offer(gpu="RTX4090", interconnect="pcie"), lang="en")
    assert statuses(unpromised)["nvlink"] == "pass"
    assert "could not be read" in message(unpromised, "nvlink")


def test_partial_nvlink_warns_with_the_missing_pairs() -> None:
    links = {
        (a, b): ("NV4" if (a, b) in {(0, 1), (2, 3)} else "SYS")
        for a in range(4)
        for b in range(a + 1, 4)
    }
    report = replace(machine("a100-sxm4-80gb-x8"), topology=Topology(4, links))
    result = evaluate(report, offer(), lang="en")
    assert statuses(result)["nvlink"] == "warn"
    assert message(result, "nvlink") == "GPU pairs without NVLink: 0–2, 0–3, 1–2, 1–3"


def test_nvswitch_fabric_not_ready_fails_even_without_a_promise() -> None:
    report = machine("a100-sxm4-80gb-x8", "a100-sxm4-80gb-x8")
    gpus = tuple(
        replace(g, fabric_state="In Progress", fabric_status="N/A") if g.index < 2 else g
        for g in report.gpus
    )
    result = evaluate(replace(report, gpus=gpus), None, lang="en")
    assert statuses(result)["nvlink"] == "fail"
    assert message(result, "nvlink") == "GPU 0, 1: NVSwitch fabric not ready (In Progress/N/A)"


# --- thresholds on hand-made readings ------------------------------------------------------


def card(index: int = 0, **fields: Any) -> GpuReading:
    defaults: dict[str, Any] = {
        "bus_id": f"00000000:{index:02X}:00.0",
        "name": "NVIDIA A100-SXM4-80GB",
        "memory_total_mib": 81920,
        "memory_used_mib": 0,
        "ecc": EccCounts("Enabled", 0, 0, 0, 0),
        "pcie": PcieLink(4, 4, 16, 16),
    }
    return GpuReading(index=index, **{**defaults, **fields})


def one(*gpus: GpuReading) -> MachineReport:
    return MachineReport("550.54.15", "12.4", gpus)


@pytest.mark.parametrize(
    ("name", "total_mib", "expected"),
    [
        ("NVIDIA A100-SXM4-80GB", 81920, "pass"),
        ("NVIDIA H100 80GB HBM3", 81559, "pass"),  # HBM3 shows 99.6 %
        ("NVIDIA A40", 46068, "pass"),  # GDDR6 with ECC on: 93.75 %
        ("NVIDIA A100-SXM4-80GB", 71680, "warn"),  # 70 GiB: 87.5 %
        ("NVIDIA A100-SXM4-80GB", 40960, "fail"),  # a 40 GB card or half a card
    ],
)
def test_memory_total_thresholds(name: str, total_mib: int, expected: str) -> None:
    result = evaluate(one(card(name=name, memory_total_mib=total_mib)))
    assert statuses(result)["memory_total"] == expected


@pytest.mark.parametrize(
    ("used_mib", "expected"),
    [(4, "pass"), (1024, "pass"), (1100, "warn"), (8192, "warn"), (8193, "fail")],
)
def test_memory_in_use_thresholds(used_mib: int, expected: str) -> None:
    result = evaluate(one(card(memory_used_mib=used_mib)), lang="en")
    assert statuses(result)["memory_in_use"] == expected
    if expected != "pass":
        assert "by no process you can see" in message(result, "memory_in_use")


def test_ecc_grades() -> None:
    def grade(ecc: EccCounts, **fields: Any) -> str:
        return statuses(evaluate(one(card(ecc=ecc, **fields))))["ecc"]

    assert grade(EccCounts("Enabled", 0, 0, 0, 0)) == "pass"
    assert grade(EccCounts("Enabled", 0, 1, 0, 1)) == "fail"
    assert grade(EccCounts("Enabled", 0, 0, 0, 3)) == "warn"  # on record, not since boot
    assert grade(EccCounts("Enabled", 5, 0, 5, 0)) == "warn"
    assert grade(EccCounts("Disabled", None, None, None, None)) == "warn"
    assert grade(EccCounts(None)) == "pass"  # GeForce: nothing to count


def test_unknown_model_mixed_models_mig_and_vgpu_warn() -> None:
    unknown = evaluate(one(card(name="NVIDIA L20", memory_total_mib=46068)), lang="en")
    assert statuses(unknown)["gpu_model"] == "warn"
    assert "'NVIDIA L20' is not in the GPU registry" in message(unknown, "gpu_model")
    assert statuses(unknown)["memory_total"] == "warn"
    mixed = evaluate(one(card(0), card(1, name="NVIDIA A100 80GB PCIe")), lang="en")
    assert statuses(mixed)["gpu_model"] == "warn"
    assert message(mixed, "gpu_model").startswith("mixed models:")
    sliced = evaluate(one(card(mig_mode="Enabled"), card(1, virtualization_mode="VGPU")), lang="en")
    assert message(sliced, "gpu_model") == (
        "GPU 0: MIG is on, you may get a slice; GPU 1: a virtual GPU (vGPU), time-shared"
    )


def test_pcie_slot_older_than_the_card_warns() -> None:
    link = PcieLink(4, 4, 16, 16, max_device_gen=5, max_host_gen=4)
    result = evaluate(one(card(name="NVIDIA H100 80GB HBM3", pcie=link)), lang="en")
    assert message(result, "pcie_link") == "GPU 0: PCIe gen 4 slot, the card does gen 5"


def test_long_problem_lists_are_cut() -> None:
    gpus = tuple(card(i, processes=(GpuProcess(1000 + i, "python", "C", 300),)) for i in range(9))
    text = message(evaluate(one(*gpus), lang="en"), "processes")
    assert text.count("pid") == 6 and text.endswith("; … and 3 more")


def test_gpu_list_compresses_runs() -> None:
    assert gpu_list([0, 1, 2, 3, 5, 6, 9]) == "GPU 0–3, 5, 6, 9"
    assert gpu_list([4]) == "GPU 4"


# --- output ---------------------------------------------------------------------------------


def test_json_follows_the_contract() -> None:
    result = evaluate(machine("a100-sxm4-80gb-x8-shared", "a100-sxm4-80gb-x8"), offer())
    doc = json.loads(json.dumps(result.to_json()))
    assert doc["status"] == "fail"
    assert len(doc["gpus"]) == 8
    gpu = doc["gpus"][3]
    assert {
        k: gpu[k]
        for k in (
            "index",
            "name",
            "canonical",
            "memory_total_mib",
            "memory_used_mib",
            "ecc_errors",
            "processes",
        )
    } == {
        "index": 3,
        "name": "NVIDIA A100-SXM4-80GB",
        "canonical": "A100-SXM4-80GB",
        "memory_total_mib": 81920,
        "memory_used_mib": 20484,
        "ecc_errors": 39,
        "processes": 1,
    }
    assert all(set(c) == {"id", "status", "message"} for c in doc["checks"])
    assert {c["status"] for c in doc["checks"]} <= {"pass", "warn", "fail"}
    assert doc["offer_id"] == "17"
    assert doc["expected"] == {"gpu": "A100-SXM4-80GB", "cards": 8, "nvlink": True}
    assert (doc["driver_version"], doc["cuda_version"]) == ("550.54.15", "12.4")
    assert doc["topology"]["links"]["0-7"] == "NV12"
    assert doc["measurements"]["status"] == "skipped"
    assert gpu["process_list"][0]["pid"] == 2871645


@pytest.mark.parametrize(
    "name", ["a100-sxm4-80gb-x8-shared", "rtx4090-x8", "tesla-v100-sxm2-32gb-x2-legacy"]
)
def test_messages_exist_in_both_languages(name: str) -> None:
    report = machine(name, None)
    zh, en = evaluate(report, offer(), lang="zh"), evaluate(report, offer(), lang="en")
    assert statuses(zh) == statuses(en)
    for check_zh, check_en in zip(zh.checks, en.checks, strict=True):
        assert check_zh.message and check_en.message
    assert any("\u4e00" <= ch <= "\u9fff" for ch in message(zh, "gpu_model") + message(zh, "ecc"))


@pytest.mark.parametrize(
    ("product_name", "canonical"),
    [
        ("NVIDIA A100-SXM4-80GB", "A100-SXM4-80GB"),
        ("NVIDIA A100-SXM4-40GB", "A100-SXM4-40GB"),
        ("NVIDIA A100 80GB PCIe", "A100-PCIE-80GB"),
        ("NVIDIA A100-PCIE-40GB", "A100-PCIE-40GB"),
        ("NVIDIA A800-SXM4-80GB", "A800-SXM4-80GB"),
        ("NVIDIA A800 80GB PCIe", "A800-PCIE-80GB"),
        ("NVIDIA H100 80GB HBM3", "H100-SXM5-80GB"),
        ("NVIDIA H100 PCIe", "H100-PCIE-80GB"),
        ("NVIDIA H100 NVL", "H100-NVL"),
        ("NVIDIA H800", "H800-SXM5-80GB"),
        ("NVIDIA H800 PCIe", "H800-PCIE-80GB"),
        ("NVIDIA H20", "H20"),
        ("NVIDIA H200", "H200-SXM-141GB"),
        ("NVIDIA GH200 480GB", "GH200"),
        ("NVIDIA L40S", "L40S"),
        ("NVIDIA L4", "L4"),
        ("NVIDIA A10", "A10"),
        ("NVIDIA RTX A6000", "RTXA6000"),
        ("NVIDIA RTX 6000 Ada Generation", "RTX6000-Ada"),
        ("NVIDIA GeForce RTX 4090", "RTX4090"),
        ("NVIDIA GeForce RTX 4090 D", "RTX4090D"),
        ("NVIDIA GeForce RTX 3090", "RTX3090"),
        ("Tesla V100-SXM2-32GB", "V100-32GB"),
        ("Tesla V100-SXM2-16GB", "V100"),
        ("Tesla T4", "T4"),
    ],
)
def test_nvidia_smi_product_names_resolve(product_name: str, canonical: str) -> None:
    gpu = card(name=product_name)
    assert gpu_json(gpu)["canonical"] == canonical
