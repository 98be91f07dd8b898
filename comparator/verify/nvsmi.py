"""Read what ``nvidia-smi -q -x`` (XML) and ``nvidia-smi topo -m`` say about a machine.

Pure parsing into plain frozen objects, plus :func:`collect_machine`, the one place that runs
the ``nvidia-smi`` binary. The XML schema has drifted across driver generations; both layouts
are read:

* ECC counters: ``<single_bit>/<double_bit>`` with per-location children (drivers ≤ 525) and
  ``<sram_correctable>``, ``<sram_uncorrectable[_parity|_secded]>``, ``<dram_…>`` (≥ 530).
* processes: ``<processes>`` (current) and ``<compute_processes>`` (drivers of the 2010s).
* ``N/A``, ``Not Supported``, ``[N/A]`` and missing elements all read as ``None``.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from comparator.errors import InputError, Msg

_ABSENT = frozenset(
    {
        "",
        "N/A",
        "[N/A]",
        "NA",
        "Not Supported",
        "[Not Supported]",
        "Unknown Error",
        "Insufficient Permissions",
        "Not Available",
    }
)
_LEADING_INT = re.compile(r"^\s*(-?\d+)")
_MEMORY = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(KiB|MiB|GiB|MB|GB)?\s*$", re.IGNORECASE)
_WATTS = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*W\s*$")
_MIB_PER_UNIT = {"kib": 1 / 1024, "mib": 1.0, "gib": 1024.0, "mb": 1.0, "gb": 1024.0}
_NVSMI_TIMEOUT_S = 120


@dataclass(frozen=True)
class EccCounts:
    """ECC error counters of one card; ``None`` where the card or driver does not count."""

    mode: str | None = None  # Enabled | Disabled | None (no ECC, e.g. GeForce)
    volatile_correctable: int | None = None
    volatile_uncorrectable: int | None = None
    aggregate_correctable: int | None = None
    aggregate_uncorrectable: int | None = None

    @property
    def volatile_total(self) -> int:
        return (self.volatile_correctable or 0) + (self.volatile_uncorrectable or 0)

    @property
    def aggregate_total(self) -> int:
        return (self.aggregate_correctable or 0) + (self.aggregate_uncorrectable or 0)

    @property
    def total(self) -> int:
        """Errors on record: aggregate counters already include the volatile ones, so the larger."""
        return max(self.volatile_total, self.aggregate_total)


@dataclass(frozen=True)
class MemoryRepairs:
    """Retired pages (before Ampere) and remapped rows (Ampere and later)."""

    retired_single_bit: int | None = None
    retired_double_bit: int | None = None
    retirement_pending: bool | None = None
    remapped_correctable: int | None = None
    remapped_uncorrectable: int | None = None
    remap_pending: bool | None = None
    remap_failure: bool | None = None
    # as driver 580 prints them (schema v13; NVML's names in brackets): memory that no
    # repair can fix (nvmlDeviceGetUnrepairableMemoryFlag), the field-diagnostics threshold of
    # SRAM errors exceeded (nvmlEccSramErrorStatus bThresholdExceeded), a TPC or
    # memory-channel repair waiting for a reset (nvmlDeviceGetRepairStatus)
    unrepairable_memory: bool | None = None
    sram_threshold_exceeded: bool | None = None
    repair_pending: bool | None = None
    # what the driver asks for before the card is used again after an uncorrectable error
    # (gpu_recovery_action: Reset, Reboot, Drain P2P, Drain and Reset …); None: nothing
    recovery_action: str | None = None

    @property
    def retired_pages(self) -> int:
        return (self.retired_single_bit or 0) + (self.retired_double_bit or 0)


@dataclass(frozen=True)
class PcieLink:
    max_gen: int | None = None
    current_gen: int | None = None
    max_width: int | None = None
    current_width: int | None = None
    max_device_gen: int | None = None  # what the card supports (newer drivers only)
    max_host_gen: int | None = None  # what the slot supports (newer drivers only)


@dataclass(frozen=True)
class GpuProcess:
    pid: int | None
    name: str
    kind: str  # C (compute), G (graphics), C+G, or "" when the driver does not say
    used_memory_mib: int | None


@dataclass(frozen=True)
class GpuReading:
    """One ``<gpu>`` element; ``index`` is its position (nvidia-smi's default PCI order)."""

    index: int
    bus_id: str
    name: str
    uuid: str = ""
    memory_total_mib: int | None = None
    memory_used_mib: int | None = None
    memory_reserved_mib: int | None = None
    persistence_mode: str | None = None
    mig_mode: str | None = None
    virtualization_mode: str | None = None
    fabric_state: str | None = None
    fabric_status: str | None = None
    ecc: EccCounts = field(default_factory=EccCounts)
    repairs: MemoryRepairs = field(default_factory=MemoryRepairs)
    pcie: PcieLink = field(default_factory=PcieLink)
    processes: tuple[GpuProcess, ...] = ()
    slowdowns: tuple[str, ...] = ()  # SLOWDOWNS active now (clocks held down)
    slowdown_us: int | None = None  # µs of hardware thermal or power-brake slowdown on record
    power_limit_w: float | None = None  # the power limit in force
    default_power_limit_w: float | None = None  # the board's own


@dataclass(frozen=True)
class Topology:
    """The GPU×GPU part of ``nvidia-smi topo -m``: ``links[(i, j)]`` for ``i < j``."""

    gpu_count: int
    links: Mapping[tuple[int, int], str]

    @staticmethod
    def is_nvlink(link: str) -> bool:
        return re.fullmatch(r"NV\d+", link) is not None

    def pairs(self, *, nvlink: bool) -> list[tuple[int, int]]:
        """GPU pairs joined (``nvlink=True``) or not joined (``False``) by NVLink."""
        return sorted(pair for pair, link in self.links.items() if self.is_nvlink(link) == nvlink)


@dataclass(frozen=True)
class MachineReport:
    driver_version: str | None
    cuda_version: str | None
    gpus: tuple[GpuReading, ...]
    topology: Topology | None = None
    source: str = ""
    #: why ``nvidia-smi topo -m`` gave no topology when it was run here (``topology`` is None)
    topology_problem: Msg | None = None


# --- small readers -------------------------------------------------------------------------


def _text(node: ET.Element | None, path: str) -> str | None:
    found = node.find(path) if node is not None else None
    value = (found.text or "").strip() if found is not None else ""
    return None if value in _ABSENT else value


def _int(node: ET.Element | None, path: str) -> int | None:
    value = _text(node, path)
    match = _LEADING_INT.match(value) if value else None
    return int(match.group(1)) if match else None


def _mib(node: ET.Element | None, path: str) -> int | None:
    """``"81920 MiB"`` → 81920."""
    value = _text(node, path)
    match = _MEMORY.match(value) if value else None
    if match is None:
        return None
    unit = (match.group(2) or "MiB").lower()
    return round(float(match.group(1)) * _MIB_PER_UNIT[unit])


def _flag(node: ET.Element | None, path: str) -> bool | None:
    value = _text(node, path)
    return {"yes": True, "no": False}.get(value.lower()) if value else None


def _sum(values: Iterable[int | None]) -> int | None:
    """Sum of the known counts; ``None`` when none is known."""
    known = [value for value in values if value is not None]
    return sum(known) if known else None


# --- one GPU -------------------------------------------------------------------------------


def _bit_total(node: ET.Element | None) -> int | None:
    """An older ``<single_bit>``/``<double_bit>`` block: its ``<total>`` or its parts' sum."""
    if node is None:
        return None
    if len(node) == 0:  # some drivers print the count directly
        return _int(node, ".")
    total = _int(node, "total")
    return total if total is not None else _sum(_int(child, ".") for child in node)


def _ecc_side(section: ET.Element | None) -> tuple[int | None, int | None]:
    """(correctable, uncorrectable) of a ``<volatile>`` or ``<aggregate>`` block."""
    if section is None:
        return None, None
    if section.find("single_bit") is not None or section.find("double_bit") is not None:
        return _bit_total(section.find("single_bit")), _bit_total(section.find("double_bit"))
    correctable = [_int(c, ".") for c in section if c.tag.endswith("_correctable")]
    uncorrectable = [_int(c, ".") for c in section if "_uncorrectable" in c.tag]
    return _sum(correctable), _sum(uncorrectable)


def _ecc(gpu: ET.Element) -> EccCounts:
    volatile = _ecc_side(gpu.find("ecc_errors/volatile"))
    aggregate = _ecc_side(gpu.find("ecc_errors/aggregate"))
    return EccCounts(_text(gpu, "ecc_mode/current_ecc"), *volatile, *aggregate)


def _repairs(gpu: ET.Element) -> MemoryRepairs:
    pages, rows, ecc = gpu.find("retired_pages"), gpu.find("remapped_rows"), gpu.find("ecc_errors")
    pending = [_flag(ecc, "channel_repair_pending"), _flag(ecc, "tpc_repair_pending")]
    return MemoryRepairs(
        retired_single_bit=_int(pages, "multiple_single_bit_retirement/retired_count"),
        retired_double_bit=_int(pages, "double_bit_retirement/retired_count"),
        retirement_pending=_flag(pages, "pending_retirement"),
        remapped_correctable=_int(rows, "remapped_row_corr"),
        remapped_uncorrectable=_int(rows, "remapped_row_unc"),
        remap_pending=_flag(rows, "remapped_row_pending"),
        remap_failure=_flag(rows, "remapped_row_failure"),
        unrepairable_memory=_flag(ecc, "unrepairable_memory"),
        sram_threshold_exceeded=_flag(ecc, "aggregate/sram_threshold_exceeded"),
        repair_pending=None if pending == [None, None] else any(pending),
        recovery_action=_recovery_action(gpu),
    )


def _recovery_action(gpu: ET.Element) -> str | None:
    action = _text(gpu, "gpu_recovery_action")
    return None if action is None or action.lower() == "none" else action


def _pcie(gpu: ET.Element) -> PcieLink:
    link = gpu.find("pci/pci_gpu_link_info")
    return PcieLink(
        max_gen=_int(link, "pcie_gen/max_link_gen"),
        current_gen=_int(link, "pcie_gen/current_link_gen"),
        max_width=_int(link, "link_widths/max_link_width"),
        current_width=_int(link, "link_widths/current_link_width"),
        max_device_gen=_int(link, "pcie_gen/max_device_link_gen"),
        max_host_gen=_int(link, "pcie_gen/max_host_link_gen"),
    )


def _processes(gpu: ET.Element) -> tuple[GpuProcess, ...]:
    block = gpu.find("processes")
    if block is None:
        block = gpu.find("compute_processes")
    if block is None:
        return ()
    return tuple(
        GpuProcess(
            pid=_int(info, "pid"),
            name=_text(info, "process_name") or "",
            kind=_text(info, "type") or "",
            used_memory_mib=_mib(info, "used_memory"),
        )
        for info in block.findall("process_info")
    )


def _gpu(index: int, gpu: ET.Element) -> GpuReading:
    memory = gpu.find("fb_memory_usage")
    return GpuReading(
        index=index,
        bus_id=gpu.get("id") or _text(gpu, "pci/pci_bus_id") or "",
        name=_text(gpu, "product_name") or "",
        uuid=_text(gpu, "uuid") or "",
        memory_total_mib=_mib(memory, "total"),
        memory_used_mib=_mib(memory, "used"),
        memory_reserved_mib=_mib(memory, "reserved"),
        persistence_mode=_text(gpu, "persistence_mode"),
        mig_mode=_text(gpu, "mig_mode/current_mig"),
        virtualization_mode=_text(gpu, "gpu_virtualization_mode/virtualization_mode"),
        fabric_state=_text(gpu, "fabric/state"),
        fabric_status=_text(gpu, "fabric/status"),
        ecc=_ecc(gpu),
        repairs=_repairs(gpu),
        pcie=_pcie(gpu),
        processes=_processes(gpu),
        slowdowns=_slowdowns(gpu),
        slowdown_us=_slowdown_us(gpu),
        power_limit_w=_power_limit(gpu, "current_power_limit", "enforced_power_limit"),
        default_power_limit_w=_power_limit(gpu, "default_power_limit"),
    )


def _power_limit(gpu: ET.Element, *names: str) -> float | None:
    """The first of ``names`` in ``gpu_power_readings`` (newer drivers) or ``power_readings``
    (``current_power_limit`` was ``enforced_power_limit`` before)."""
    readings = gpu.find("gpu_power_readings")
    if readings is None:
        readings = gpu.find("power_readings")
    return next((w for w in (_watts(readings, name) for name in names) if w is not None), None)


def _watts(node: ET.Element | None, path: str) -> float | None:
    """``"700.00 W"`` → 700.0."""
    value = _text(node, path)
    match = _WATTS.match(value) if value else None
    return float(match.group(1)) if match else None


#: The clock event reasons that slow a card down for its health (temperature, power), not
#: for an idle card, an application's clock setting or a software power cap.
SLOWDOWNS = ("hw_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "sw_thermal_slowdown")


def _slowdowns(gpu: ET.Element) -> tuple[str, ...]:
    """The ``SLOWDOWNS`` marked Active: ``clocks_event_reasons`` (newer drivers) or the older
    ``clocks_throttle_reasons``."""
    for section in ("event", "throttle"):
        reasons = gpu.find(f"clocks_{section}_reasons")
        if reasons is not None:
            prefix = f"clocks_{section}_reason_"
            return tuple(n for n in SLOWDOWNS if _text(reasons, prefix + n) == "Active")
    return ()


def _slowdown_us(gpu: ET.Element) -> int | None:
    """Microseconds of hardware thermal and power-brake slowdown since the driver loaded."""
    counters = gpu.find("clocks_event_reasons_counters")
    names = ("hw_therm_slowdown", "hw_power_brake")
    values = [_int(counters, f"clocks_event_reasons_counters_{name}") for name in names]
    return None if values == [None, None] else sum(v or 0 for v in values)


# --- documents -----------------------------------------------------------------------------


def _xml_root(text: str, source: str) -> ET.Element:
    if "<!ENTITY" in text:
        raise InputError(
            "{source}: XML entity declarations are not accepted",
            source=source,
            hint=Msg(
                "on the rented machine run `nvidia-smi -q -x > smi.xml` and give --nvidia-smi-xml smi.xml"
            ),
        )
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise InputError(
            "{source}: not XML ({reason}); expected the output of `nvidia-smi -q -x`",
            source=source,
            reason=str(exc),
            hint=Msg(
                "on the rented machine run `nvidia-smi -q -x > smi.xml` and give --nvidia-smi-xml smi.xml"
            ),
        ) from None
    if root.tag != "nvidia_smi_log":
        raise InputError(
            "{source}: root element is <{tag}>, expected <nvidia_smi_log> (the output of "
            "`nvidia-smi -q -x`)",
            source=source,
            tag=root.tag,
            hint=Msg(
                "on the rented machine run `nvidia-smi -q -x > smi.xml` and give --nvidia-smi-xml smi.xml"
            ),
        )
    return root


def parse_smi_xml(
    content: str | bytes, source: str = "nvidia-smi -q -x", topology: Topology | None = None
) -> MachineReport:
    """A :class:`MachineReport` from ``nvidia-smi -q -x`` output; InputError naming ``source``."""
    text = content.decode("utf-8", errors="replace") if isinstance(content, bytes) else content
    root = _xml_root(text, source)
    gpus = tuple(_gpu(index, gpu) for index, gpu in enumerate(root.findall("gpu")))
    return MachineReport(
        driver_version=_text(root, "driver_version") or root.get("driver_version"),
        cuda_version=_text(root, "cuda_version"),
        gpus=gpus,
        topology=topology,
        source=source,
    )


_GPU_LABEL = re.compile(r"GPU\d+")
# nvidia-smi 580 underlines the header row with terminal escapes, even into a file or a pipe
_TERMINAL_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def _is_topo_header(tokens: Sequence[str]) -> bool:
    """The column header starts with GPU0 followed by another column name (rows have X there)."""
    return len(tokens) >= 2 and tokens[0] == "GPU0" and tokens[1] != "X"


def parse_topology(text: str, source: str = "nvidia-smi topo -m") -> Topology:
    """The GPU×GPU link matrix of ``nvidia-smi topo -m`` (tabs or spaces); NIC rows ignored."""
    lines = [line.split() for line in _TERMINAL_ESCAPE.sub("", text).splitlines()]
    start = next((n for n, tokens in enumerate(lines) if _is_topo_header(tokens)), None)
    if start is None:
        raise InputError(
            "{source}: no GPU0 column header; expected `nvidia-smi topo -m` output",
            source=source,
            hint=Msg(
                "on the rented machine run `nvidia-smi topo -m > topo.txt` and give that file"
            ),
        )
    columns = sum(1 for token in lines[start] if _GPU_LABEL.fullmatch(token))
    links: dict[tuple[int, int], str] = {}
    for tokens in lines[start + 1 :]:
        if not tokens or not _GPU_LABEL.fullmatch(tokens[0]):
            continue
        row = int(tokens[0][3:])
        for column, cell in enumerate(tokens[1 : columns + 1]):
            if column > row:
                links[(row, column)] = cell
    return Topology(gpu_count=columns, links=links)


# --- running nvidia-smi --------------------------------------------------------------------


def find_nvidia_smi() -> str | None:
    """The path of the ``nvidia-smi`` binary on PATH, or ``None``."""
    return shutil.which("nvidia-smi")


def run_nvidia_smi(executable: str, args: Sequence[str]) -> str:
    """Stdout of ``nvidia-smi ARGS``; InputError with its message when it fails."""
    command = [executable, *args]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=_NVSMI_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError(
            "`{command}` could not run: {reason}",
            command=" ".join(command),
            reason=str(exc),
            hint=Msg(
                "run it on the rented machine, where NVIDIA's driver is installed, or give "
                "--nvidia-smi-xml FILE saved there"
            ),
        ) from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise InputError(
            "`{command}` failed (exit {returncode}): {value}",
            command=" ".join(command),
            returncode=done.returncode,
            value=said[0] if said else "no message",
            hint=Msg(
                "run it on the rented machine, where NVIDIA's driver is installed, or give "
                "--nvidia-smi-xml FILE saved there"
            ),
        )
    return done.stdout


def collect_machine(executable: str) -> MachineReport:
    """Run ``nvidia-smi -q -x`` and (when it works) ``nvidia-smi topo -m`` on this machine."""
    xml_text = run_nvidia_smi(executable, ["-q", "-x"])
    report = parse_smi_xml(xml_text, source=f"{executable} -q -x")
    try:
        topology = parse_topology(run_nvidia_smi(executable, ["topo", "-m"]))
    except InputError as unread:  # the cards are still checked; the links say why not
        return dataclasses.replace(report, topology_problem=unread.msg)
    return dataclasses.replace(report, topology=topology)
