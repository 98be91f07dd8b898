"""Optional measurements on the rented machine, with PyTorch, against the registry's specs.

* bf16 matmul TFLOP/s per card (8192² GEMMs) — warn below 60 % of the dense BF16 spec: one
  GEMM rarely reaches the datasheet peak (public H100 SXM figures sit at 70–80 %).
* memory bandwidth per card (1 GiB device-to-device copies, read + write) — warn below 70 %.
* NCCL all-reduce bus bandwidth across the cards (256 MiB, nccl-tests' busbw = algbw ×
  2(n−1)/n) — warn below 70 % of one direction of the interconnect: NVLink's per-GPU figure
  halved when every pair is on NVLink, else the PCIe link (gen × width).
* Below 35 % of spec a card fails (compute and memory): that is not the card that was sold.

PyTorch is imported only inside :func:`measure`; without it, or without a CUDA device,
:func:`measure` returns a *skipped* result with a message and never raises.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from comparator.domain.gpus import GpuSpec, find_gpu
from comparator.i18n import say
from comparator.verify.checks import AcceptanceCheck, Expectation, Problem, from_problems
from comparator.verify.nvsmi import MachineReport

COMPUTE_WARN_RATIO = 0.60
BANDWIDTH_WARN_RATIO = 0.70
ALLREDUCE_WARN_RATIO = 0.70
FAIL_RATIO = 0.35

MATMUL_SIZE = 8192
MATMUL_ITERATIONS = 50
COPY_BYTES = 1 << 30
COPY_ITERATIONS = 20
ALLREDUCE_BYTES = 256 << 20
ALLREDUCE_ITERATIONS = 20
WARMUP_ITERATIONS = 3

PCIE_LANE_GBS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}


@dataclass(frozen=True)
class CardMeasurement:
    device: int  # PyTorch's device index
    name: str
    uuid: str | None = None  # "GPU-…", as nvidia-smi prints it
    bf16_tflops: float | None = None
    bandwidth_gbs: float | None = None
    error: str | None = None


@dataclass(frozen=True)
class Measurements:
    status: str  # measured | skipped
    reason: str  # skip_not_requested | skip_no_torch | skip_no_cuda | measured
    cards: tuple[CardMeasurement, ...] = ()
    allreduce_busbw_gbs: float | None = None
    allreduce_error: str | None = None
    torch_version: str | None = None

    def message(self, lang: str) -> str:
        return say(lang, _REASONS[self.reason], count=len(self.cards))

    def to_json(self, lang: str) -> dict[str, Any]:
        document = asdict(self)
        document["cards"] = [asdict(card) for card in self.cards]
        document["message"] = self.message(lang)
        return document


# why measurements were or were not taken → the message that says it
_REASONS = {
    "skip_not_requested": "not measured (run on the rented machine with --measure)",
    "skip_no_torch": "not measured: PyTorch is not installed (pip install torch, then retry with --measure)",
    "skip_no_cuda": "not measured: PyTorch sees no CUDA device (no GPU, or the driver is unavailable)",
    "measured": "measured on {count} card(s)",
}
_MEASURED_OK = "{what}: {values}, spec {spec}"
_MEASURED_LOW = "{label}: {what} {value}, only {ratio:.0%} of the spec {spec}"


NOT_REQUESTED = Measurements("skipped", "skip_not_requested")


# --- measuring (needs torch and a GPU) -----------------------------------------------------


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"


def _timed(torch: Any, step: Callable[[], object], iterations: int) -> float:
    """Seconds for ``iterations`` calls of ``step`` on the current device (CUDA events)."""
    for _ in range(WARMUP_ITERATIONS):
        step()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iterations):
        step()
    end.record()
    end.synchronize()
    return float(start.elapsed_time(end)) / 1000


def _matmul_tflops(torch: Any) -> float:
    a = torch.randn(MATMUL_SIZE, MATMUL_SIZE, device="cuda", dtype=torch.bfloat16)
    b, c = torch.randn_like(a), torch.empty_like(a)
    seconds = _timed(torch, lambda: torch.matmul(a, b, out=c), MATMUL_ITERATIONS)
    return 2 * MATMUL_SIZE**3 * MATMUL_ITERATIONS / seconds / 1e12


def _copy_gbs(torch: Any) -> float:
    source = torch.empty(COPY_BYTES, dtype=torch.uint8, device="cuda")
    target = torch.empty_like(source)
    seconds = _timed(torch, lambda: target.copy_(source), COPY_ITERATIONS)
    return 2 * COPY_BYTES * COPY_ITERATIONS / seconds / 1e9


def _nvsmi_uuid(uuid: object) -> str | None:
    """PyTorch prints a device UUID bare; nvidia-smi writes it as ``GPU-<uuid>``."""
    text = str(uuid) if uuid else ""
    return None if not text else text if text.startswith("GPU-") else f"GPU-{text}"


def _measure_card(torch: Any, device: int) -> CardMeasurement:
    props = torch.cuda.get_device_properties(device)
    card = CardMeasurement(device, str(props.name), _nvsmi_uuid(getattr(props, "uuid", None)))
    try:
        with torch.cuda.device(device):
            tflops = _matmul_tflops(torch)
            torch.cuda.empty_cache()
            gbs = _copy_gbs(torch)
    except Exception as exc:  # OOM on a shared card, driver errors: recorded, not raised
        return CardMeasurement(card.device, card.name, card.uuid, error=_first_line(exc))
    finally:
        torch.cuda.empty_cache()
    return CardMeasurement(card.device, card.name, card.uuid, tflops, gbs)


def _allreduce_busbw(torch: Any, count: int) -> float:
    nccl = importlib.import_module("torch.cuda.nccl")
    elements = ALLREDUCE_BYTES // 4
    tensors = [torch.ones(elements, dtype=torch.float32, device=f"cuda:{i}") for i in range(count)]
    if not nccl.is_available(tensors):
        raise RuntimeError("this PyTorch build has no NCCL")
    for _ in range(WARMUP_ITERATIONS):
        nccl.all_reduce(tensors)
    for device in range(count):
        torch.cuda.synchronize(device)
    began = time.perf_counter()
    for _ in range(ALLREDUCE_ITERATIONS):
        nccl.all_reduce(tensors)
    for device in range(count):
        torch.cuda.synchronize(device)
    algbw = ALLREDUCE_BYTES * ALLREDUCE_ITERATIONS / (time.perf_counter() - began) / 1e9
    return algbw * 2 * (count - 1) / count


def _allreduce(torch: Any, count: int) -> tuple[float | None, str | None]:
    if count < 2:
        return None, None
    try:
        return _allreduce_busbw(torch, count), None
    except Exception as exc:
        return None, _first_line(exc)
    finally:
        torch.cuda.empty_cache()


def _import_torch() -> Any:
    try:
        return importlib.import_module("torch")
    except (ImportError, OSError):
        return None


def measure() -> Measurements:
    """Measure every CUDA device PyTorch sees; skipped (never raising) without torch or CUDA."""
    torch = _import_torch()
    if torch is None:
        return Measurements("skipped", "skip_no_torch")
    version = str(getattr(torch, "__version__", "")) or None
    try:
        count = int(torch.cuda.device_count()) if torch.cuda.is_available() else 0
    except Exception:
        count = 0
    if count == 0:
        return Measurements("skipped", "skip_no_cuda", torch_version=version)
    cards = tuple(_measure_card(torch, device) for device in range(count))
    busbw, error = _allreduce(torch, count)
    return Measurements("measured", "measured", cards, busbw, error, version)


# --- judging (pure) ------------------------------------------------------------------------


def _label(card: CardMeasurement, report: MachineReport) -> str:
    """The nvidia-smi index of the card (matched by UUID), else PyTorch's device."""
    index = next((gpu.index for gpu in report.gpus if card.uuid and gpu.uuid == card.uuid), None)
    return f"GPU {index}" if index is not None else f"cuda:{card.device}"


def _judge(value: float, spec: float, warn_ratio: float, fail: bool) -> str:
    ratio = value / spec
    if ratio >= warn_ratio:
        return "pass"
    return "fail" if fail and ratio < FAIL_RATIO else "warn"


@dataclass(frozen=True)
class _Metric:
    check_id: str
    field: str  # CardMeasurement attribute
    spec_field: str  # GpuSpec attribute
    unit: str
    warn_ratio: float
    what: str  # its name, a message id


_CARD_METRICS = (
    _Metric(
        "bf16_tflops", "bf16_tflops", "bf16_tflops", "TFLOP/s", COMPUTE_WARN_RATIO, "bf16 matmul"
    ),
    _Metric(
        "memory_bandwidth",
        "bandwidth_gbs",
        "bandwidth_gbs",
        "GB/s",
        BANDWIDTH_WARN_RATIO,
        "memory bandwidth",
    ),
)


def _card_problem(
    metric: _Metric, card: CardMeasurement, spec: GpuSpec | None, label: str, lang: str
) -> Problem | None:
    value: float | None = getattr(card, metric.field)
    spec_value: float | None = getattr(spec, metric.spec_field) if spec else None
    if value is None:
        return "warn", say(
            lang, "{label}: measurement failed: {error}", label=label, error=card.error or "?"
        )
    if not spec_value:
        return None
    status = _judge(value, spec_value, metric.warn_ratio, fail=True)
    if status == "pass":
        return None
    return status, say(
        lang,
        "{label}: {what} {value}, only {ratio:.0%} of the spec {spec}",
        label=label,
        what=say(lang, metric.what),
        value=f"{value:.0f} {metric.unit}",
        spec=f"{spec_value:g} {metric.unit}",
        ratio=value / spec_value,
    )


def _card_check(
    metric: _Metric,
    measurements: Measurements,
    report: MachineReport,
    expected: Expectation,
    lang: str,
) -> AcceptanceCheck:
    problems, values, specs = [], [], set()
    for card in measurements.cards:
        spec = expected.gpu or find_gpu(card.name)
        problem = _card_problem(metric, card, spec, _label(card, report), lang)
        problems += [problem] if problem else []
        value = getattr(card, metric.field)
        values += [f"{value:.0f}"] if value is not None else []
        specs |= {getattr(spec, metric.spec_field)} if spec else set()
    shown = f"{', '.join(values)} {metric.unit}"
    known = sorted(value for value in specs if value)
    what = say(lang, metric.what)
    if not known:
        return from_problems(
            metric.check_id,
            problems,
            say(lang, "{what}: {values} (no registry spec to compare)", what=what, values=shown),
            lang,
        )
    spec_text = f"{'/'.join(f'{value:g}' for value in known)} {metric.unit}"
    ok = say(lang, "{what}: {values}, spec {spec}", what=what, values=shown, spec=spec_text)
    return from_problems(metric.check_id, problems, ok, lang)


def interconnect_gbs(report: MachineReport, spec: GpuSpec | None) -> float | None:
    """One direction of the link all-reduce runs over: NVLink when every pair has it, else PCIe."""
    topology = report.topology
    all_nvlink = topology is not None and not topology.pairs(nvlink=False)
    if spec and spec.nvlink_gbs and (all_nvlink or (topology is None and spec.has_nvlink)):
        return spec.nvlink_gbs / 2
    lanes = [
        PCIE_LANE_GBS.get(gpu.pcie.max_gen or 0, 0.0) * (gpu.pcie.max_width or 0)
        for gpu in report.gpus
    ]
    return min(lanes) if lanes and min(lanes) > 0 else None


def _allreduce_check(
    measurements: Measurements, report: MachineReport, expected: Expectation, lang: str
) -> AcceptanceCheck:
    what, busbw = say(lang, "NCCL all-reduce bus bandwidth"), measurements.allreduce_busbw_gbs
    if busbw is None:
        error = measurements.allreduce_error or "?"
        return AcceptanceCheck(
            "allreduce_bandwidth",
            "warn",
            say(lang, "{label}: measurement failed: {error}", label="NCCL", error=error),
        )
    spec = expected.gpu or next((s for c in measurements.cards if (s := find_gpu(c.name))), None)
    reference = interconnect_gbs(report, spec)
    shown = f"{busbw:.0f} GB/s"
    if reference is None:
        return AcceptanceCheck(
            "allreduce_bandwidth",
            "pass",
            say(lang, "{what}: {values} (no registry spec to compare)", what=what, values=shown),
        )
    status = _judge(busbw, reference, ALLREDUCE_WARN_RATIO, fail=False)
    key = _MEASURED_OK if status == "pass" else _MEASURED_LOW
    message = say(
        lang,
        key,
        label="NCCL",
        what=what,
        value=shown,
        values=shown,
        spec=f"{reference:.0f} GB/s",
        ratio=busbw / reference,
    )
    return AcceptanceCheck("allreduce_bandwidth", status, message)


def measurement_checks(
    measurements: Measurements, report: MachineReport, expected: Expectation, lang: str
) -> list[AcceptanceCheck]:
    """Checks from measured figures; none when the measurements were skipped."""
    if measurements.status != "measured":
        return []
    checks = [_card_check(metric, measurements, report, expected, lang) for metric in _CARD_METRICS]
    if len(measurements.cards) > 1:
        checks.append(_allreduce_check(measurements, report, expected, lang))
    return checks
