"""Reading `nvidia-smi -q -x` and `topo -m`: both ECC layouts, N/A values, a real binary."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from comparator.errors import InputError
from comparator.verify.nvsmi import (
    collect_machine,
    find_nvidia_smi,
    parse_smi_xml,
    parse_topology,
    run_nvidia_smi,
)
from tests.conftest import DATA

SMI = DATA / "nvidia-smi"


def read(name: str):  # type: ignore[no-untyped-def]
    return parse_smi_xml((SMI / name).read_bytes(), name)


def test_healthy_hgx_a100_reads_every_field() -> None:
    report = read("a100-sxm4-80gb-x8.xml")
    assert (report.driver_version, report.cuda_version) == ("535.129.03", "12.2")
    assert [gpu.index for gpu in report.gpus] == list(range(8))
    gpu = report.gpus[0]
    assert gpu.bus_id == "00000000:07:00.0"
    assert gpu.name == "NVIDIA A100-SXM4-80GB"
    assert gpu.uuid.startswith("GPU-")
    assert (gpu.memory_total_mib, gpu.memory_used_mib, gpu.memory_reserved_mib) == (81920, 0, 471)
    assert (gpu.persistence_mode, gpu.mig_mode, gpu.virtualization_mode) == (
        "Enabled",
        "Disabled",
        "None",
    )
    assert (gpu.pcie.max_gen, gpu.pcie.current_gen, gpu.pcie.max_width, gpu.pcie.current_width) == (
        4,
        4,
        16,
        16,
    )
    assert gpu.ecc.mode == "Enabled" and gpu.ecc.total == 0
    assert gpu.ecc.volatile_uncorrectable == 0  # counted, not unknown
    # Ampere retires no pages (N/A) but remaps rows (0)
    assert gpu.repairs.retired_single_bit is None and gpu.repairs.retirement_pending is None
    assert (gpu.repairs.remapped_uncorrectable, gpu.repairs.remap_pending) == (0, False)
    assert gpu.processes == ()
    assert gpu.fabric_state is None  # "N/A" on A100


def test_newer_ecc_layout_sums_sram_parity_secded_and_dram() -> None:
    gpu = read("a100-sxm4-80gb-x8-shared.xml").gpus[3]
    assert gpu.ecc.volatile_correctable == 14
    assert gpu.ecc.volatile_uncorrectable == 2
    assert (gpu.ecc.aggregate_correctable, gpu.ecc.aggregate_uncorrectable) == (37, 2)
    assert gpu.ecc.total == 39  # aggregate includes volatile: not 55
    assert (gpu.repairs.remapped_uncorrectable, gpu.repairs.remap_pending) == (1, True)
    assert gpu.memory_used_mib == 20484
    [process] = gpu.processes
    assert (process.pid, process.name, process.kind, process.used_memory_mib) == (
        2871645,
        "python3",
        "C",
        20480,
    )
    assert read("a100-sxm4-80gb-x8-shared.xml").gpus[5].pcie.current_width == 8


def test_older_ecc_layout_reads_single_and_double_bit_totals() -> None:
    report = read("tesla-v100-sxm2-32gb-x2-legacy.xml")
    assert (report.driver_version, report.cuda_version) == ("470.182.03", "11.4")
    gpu = report.gpus[1]
    assert (gpu.ecc.volatile_correctable, gpu.ecc.volatile_uncorrectable) == (3, 1)
    assert (gpu.ecc.aggregate_correctable, gpu.ecc.aggregate_uncorrectable) == (13, 1)
    assert (gpu.repairs.retired_single_bit, gpu.repairs.retired_double_bit) == (2, 1)
    assert gpu.repairs.retirement_pending is True
    assert gpu.repairs.remap_pending is None  # Volta has no row remapper
    assert gpu.memory_reserved_mib is None  # drivers before 510 print no <reserved>
    assert report.gpus[0].ecc.total == 0


def test_geforce_without_ecc_reads_none_not_zero() -> None:
    gpu = read("rtx4090-x8.xml").gpus[0]
    assert gpu.ecc.mode is None
    assert gpu.ecc.volatile_uncorrectable is None and gpu.ecc.aggregate_correctable is None
    assert gpu.repairs.remapped_correctable is None  # <remapped_rows>N/A</remapped_rows>
    assert gpu.mig_mode is None
    assert (gpu.pcie.current_gen, gpu.pcie.max_gen) == (1, 4)  # idle
    assert gpu.memory_total_mib == 24564


def test_legacy_compute_processes_block_and_flat_counts() -> None:
    xml = """<?xml version="1.0" ?>
<nvidia_smi_log driver_version="340.24">
  <gpu id="0000:0D:00.0">
    <product_name>Tesla K20m</product_name>
    <fb_memory_usage>
      <total>4799 MiB</total><used>828 MiB</used><free>3971 MiB</free>
    </fb_memory_usage>
    <ecc_errors>
      <volatile><single_bit>2</single_bit><double_bit>0</double_bit></volatile>
      <aggregate><single_bit>5</single_bit><double_bit>N/A</double_bit></aggregate>
    </ecc_errors>
    <compute_processes>
      <process_info><pid>5495</pid><process_name>ansys.e150</process_name>
        <used_memory>98 MiB</used_memory></process_info>
      <process_info><pid>5494</pid><process_name>ansys.e150</process_name>
        <used_memory>N/A</used_memory></process_info>
    </compute_processes>
  </gpu>
</nvidia_smi_log>"""
    report = parse_smi_xml(xml, "k20.xml")
    assert report.driver_version == "340.24" and report.cuda_version is None
    gpu = report.gpus[0]
    assert gpu.bus_id == "0000:0D:00.0"
    assert (gpu.ecc.volatile_correctable, gpu.ecc.volatile_uncorrectable) == (2, 0)
    assert (gpu.ecc.aggregate_correctable, gpu.ecc.aggregate_uncorrectable) == (5, None)
    assert [(p.pid, p.kind, p.used_memory_mib) for p in gpu.processes] == [
        (5495, "", 98),
        (5494, "", None),
    ]
    assert gpu.pcie.max_width is None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver", "not XML"),
        ("<gpus><gpu/></gpus>", "root element is <gpus>"),
        ('<!DOCTYPE x [<!ENTITY a "aaaa">]><nvidia_smi_log>&a;</nvidia_smi_log>', "entity"),
    ],
)
def test_bad_documents_name_the_file(content: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as caught:
        parse_smi_xml(content, "smi.xml")
    assert "smi.xml" in str(caught.value)


def test_topology_of_an_nvlink_box_ignores_nic_rows() -> None:
    topology = parse_topology((SMI / "a100-sxm4-80gb-x8.topo.txt").read_text())
    assert topology.gpu_count == 8
    assert len(topology.links) == 28
    assert set(topology.links.values()) == {"NV12"}
    assert topology.pairs(nvlink=False) == []


def test_topology_of_a_pcie_box() -> None:
    topology = parse_topology((SMI / "rtx4090-x8.topo.txt").read_text())
    assert topology.links[(0, 1)] == "PIX"
    assert topology.links[(0, 2)] == "NODE"
    assert topology.links[(3, 4)] == "SYS"
    assert topology.pairs(nvlink=True) == []


def test_topology_with_spaces_bridged_pairs_and_one_gpu() -> None:
    text = (
        "        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity\n"
        "GPU0     X      NV4     SYS     SYS     0-23            N/A\n"
        "GPU1    NV4      X      SYS     SYS     0-23            N/A\n"
        "GPU2    SYS     SYS      X      NV4     24-47           N/A\n"
        "GPU3    SYS     SYS     NV4      X      24-47           N/A\n"
        "\nLegend:\n\n  X    = Self\n  NV#  = Connection traversing a bonded set of # NVLinks\n"
    )
    topology = parse_topology(text)
    assert topology.pairs(nvlink=True) == [(0, 1), (2, 3)]
    assert topology.pairs(nvlink=False) == [(0, 2), (0, 3), (1, 2), (1, 3)]
    single = parse_topology(
        "\tGPU0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\nGPU0\t X \t0-19\t0\t\tN/A\n"
    )
    assert (single.gpu_count, dict(single.links)) == (1, {})


def test_captured_h200_reads_the_driver_580_layout() -> None:
    """`nvidia-smi -q -x` as a lent H200 printed it (schema v13), not hand-built."""
    report = read("h200-x1.xml")
    assert (report.driver_version, report.cuda_version) == ("580.159.04", "13.0")
    (gpu,) = report.gpus
    assert gpu.name == "NVIDIA H200"
    assert (gpu.memory_total_mib, gpu.memory_used_mib) == (143771, 0)
    assert (gpu.pcie.max_gen, gpu.pcie.current_gen, gpu.pcie.current_width) == (5, 5, 16)
    assert gpu.ecc.mode == "Enabled" and gpu.ecc.total == 0
    assert (gpu.repairs.remapped_uncorrectable, gpu.repairs.remap_pending) == (0, False)
    repairs = gpu.repairs
    assert (repairs.unrepairable_memory, repairs.sram_threshold_exceeded) == (False, False)
    assert repairs.repair_pending is False
    assert read("a100-sxm4-80gb-x8.xml").gpus[0].repairs.repair_pending is None  # driver 535
    assert gpu.processes == ()


def test_topology_header_underlined_by_terminal_escapes() -> None:
    """nvidia-smi 580 writes ESC[4m … ESC[0m around the header, into a file too."""
    captured = (SMI / "h200-x1.topo.txt").read_text()
    assert "\x1b[4m" in captured
    assert parse_topology(captured).gpu_count == 1
    plain = (SMI / "a100-sxm4-80gb-x8.topo.txt").read_text()
    header, rest = plain.split("\n", 1)
    underlined = parse_topology(f"\x1b[4m{header}\x1b[0m\n{rest}")
    assert underlined == parse_topology(plain)
    assert underlined.gpu_count == 8 and set(underlined.links.values()) == {"NV12"}


def test_topology_without_a_header_is_refused() -> None:
    with pytest.raises(InputError, match=r"topo\.txt: no GPU0 column header"):
        parse_topology("No devices were found\n", "topo.txt")


def fake_nvidia_smi(folder: Path, xml: Path, topo: Path | None, exit_code: int = 0) -> Path:
    """An executable `nvidia-smi` that prints saved output, as the real one would."""
    topo_part = f'cat "{topo}"' if topo else 'echo "topo not supported" >&2; exit 3'
    script = folder / "nvidia-smi"
    script.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "topo" ]; then {topo_part}; exit 0; fi\n'
        f'if [ {exit_code} -ne 0 ]; then echo "NVIDIA-SMI has failed" >&2; exit {exit_code}; fi\n'
        f'cat "{xml}"\n',
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_collect_machine_runs_the_binary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_nvidia_smi(tmp_path, SMI / "a100-sxm4-80gb-x8.xml", SMI / "a100-sxm4-80gb-x8.topo.txt")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    executable = find_nvidia_smi()
    assert executable == str(tmp_path / "nvidia-smi")
    report = collect_machine(executable)
    assert len(report.gpus) == 8
    assert report.topology is not None and report.topology.gpu_count == 8


def test_collect_machine_reads_a_captured_h200(tmp_path: Path) -> None:
    script = fake_nvidia_smi(tmp_path, SMI / "h200-x1.xml", SMI / "h200-x1.topo.txt")
    report = collect_machine(str(script))
    assert len(report.gpus) == 1
    assert report.topology is not None and report.topology.gpu_count == 1


def test_collect_machine_without_topology_still_reports(tmp_path: Path) -> None:
    script = fake_nvidia_smi(tmp_path, SMI / "rtx4090-x8.xml", None)
    report = collect_machine(str(script))
    assert len(report.gpus) == 8 and report.topology is None
    assert report.topology_problem is not None
    assert "exit 3" in str(report.topology_problem) and "topo not supported" in str(
        report.topology_problem
    )


def test_failing_binary_says_why(tmp_path: Path) -> None:
    script = fake_nvidia_smi(tmp_path, SMI / "rtx4090-x8.xml", None, exit_code=9)
    with pytest.raises(InputError, match=r"exit 9.*NVIDIA-SMI has failed"):
        run_nvidia_smi(str(script), ["-q", "-x"])
    with pytest.raises(InputError, match="could not run"):
        run_nvidia_smi(str(tmp_path / "missing"), ["-q", "-x"])
