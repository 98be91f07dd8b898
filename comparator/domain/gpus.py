"""GPU registry: canonical names, specs and the aliases real price sheets use.

Throughput is *dense* BF16/FP16 tensor TFLOP/s (FP32 accumulate for GeForce cards); sparse
figures are twice that and never used. ``memory_gib`` is what the card exposes: an "80GB"
datasheet card shows ≈80 GiB. Specs come from ``estimation.md`` and the vendors' datasheets;
``None`` means unknown: such a card can be priced but not estimated.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from comparator.errors import UnknownGpuError


@dataclass(frozen=True)
class GpuSpec:
    name: str
    family: str
    vendor: str
    memory_gib: float
    bf16_tflops: float | None
    bandwidth_gbs: float | None
    interconnect: str  # nvlink | pcie | hccs | other
    nvlink_gbs: float | None = None
    aliases: tuple[str, ...] = field(default=(), compare=False)

    @property
    def has_nvlink(self) -> bool:
        return self.interconnect in ("nvlink", "hccs")


def _gpu(
    name: str,
    family: str,
    memory_gib: float,
    tflops: float | None,
    bandwidth: float | None,
    interconnect: str = "pcie",
    nvlink: float | None = None,
    aliases: Iterable[str] = (),
    vendor: str = "NVIDIA",
) -> GpuSpec:
    return GpuSpec(
        name, family, vendor, memory_gib, tflops, bandwidth, interconnect, nvlink, tuple(aliases)
    )


_SPECS: tuple[GpuSpec, ...] = (
    # GeForce (FP32-accumulate tensor throughput)
    _gpu("RTX3060", "RTX3060", 12, 25.6, 360, aliases=["3060"]),
    _gpu("RTX3070", "RTX3070", 8, 40.6, 448, aliases=["3070"]),
    _gpu("RTX3080", "RTX3080", 10, 59.5, 760, aliases=["3080"]),
    _gpu("RTX3090", "RTX3090", 24, 71, 936, aliases=["3090"]),
    _gpu("RTX4060", "RTX4060", 8, 30.2, 272, aliases=["4060"]),
    _gpu("RTX4070", "RTX4070", 12, 58.3, 504, aliases=["4070"]),
    _gpu("RTX4090", "RTX4090", 24, 165.2, 1008, aliases=["4090", "RTX4090 24GB"]),
    _gpu("RTX4090D", "RTX4090", 24, 147.1, 1008, aliases=["4090D"]),
    _gpu("RTX5060", "RTX5060", 8, 47.0, 448, aliases=["5060"]),
    _gpu("RTX5090", "RTX5090", 32, 209.5, 1792, aliases=["5090"]),
    _gpu("GTX1660S", "GTX1660S", 6, None, 336, aliases=["GTX1660 Super"]),
    # Workstation / professional
    _gpu("RTXA2000", "RTXA2000", 12, 32.0, 288, aliases=["A2000"]),
    _gpu("RTXA4000", "RTXA4000", 16, 76.7, 448, aliases=["A4000"]),
    _gpu("RTXA4500", "RTXA4500", 20, 94.6, 640, aliases=["A4500"]),
    _gpu("RTXA5000", "RTXA5000", 24, 111.1, 768, aliases=["A5000"]),
    _gpu("RTXA6000", "RTXA6000", 48, 154.8, 768, aliases=["A6000"]),
    _gpu("RTX6000", "RTX6000", 24, 130.5, 672, aliases=["Quadro RTX 6000"]),
    _gpu("RTX4000-Ada", "RTX4000-Ada", 20, 53.4, 360, aliases=["RTX4000Ada"]),
    _gpu(
        "RTX6000-Ada",
        "RTX6000-Ada",
        48,
        364.2,
        960,
        aliases=["RTX6000Ada", "RTX-6000-Ada", "RTX 6000 Ada Generation"],
    ),
    _gpu(
        "RTXPRO6000",
        "RTXPRO6000",
        96,
        503.8,
        1792,
        aliases=[
            "RTXPro6000",
            "RTX-PRO-6000",
            "RTXPRO6000S",
            "RTXPRO6000WS",
            "RTX PRO 6000 Blackwell",
            "RTX PRO 6000 Blackwell Server Edition",
        ],
    ),
    _gpu("M4000", "M4000", 8, None, 192, aliases=["Quadro M4000"]),
    _gpu("P4000", "P4000", 8, None, 243, aliases=["Quadro P4000"]),
    # Data centre, NVIDIA
    _gpu("K80", "K80", 12, None, 240, aliases=["Tesla K80"]),
    _gpu("M60", "M60", 8, None, 160, aliases=["Tesla M60"]),
    _gpu("P4", "P4", 8, None, 192, aliases=["Tesla P4"]),
    _gpu("P100", "P100", 16, 18.7, 732, aliases=["Tesla P100", "P100-PCIE-16GB"]),
    _gpu("T4", "T4", 16, 65, 320, aliases=["Tesla T4", "T4g"]),
    _gpu(
        "V100",
        "V100",
        16,
        125,
        900,
        "nvlink",
        300,
        aliases=["V100-16GB", "Tesla V100", "V100-SXM2-16GB"],
    ),
    _gpu(
        "V100-32GB",
        "V100",
        32,
        125,
        900,
        "nvlink",
        300,
        aliases=["V100 32G", "V100-SXM2-32GB"],
    ),
    _gpu("A10", "A10", 24, 125, 600, aliases=["NVIDIA A10"]),
    _gpu("A10G", "A10", 24, 70, 600),
    _gpu("A16", "A16", 16, 17.9, 200),
    _gpu("A30", "A30", 24, 165, 933),
    _gpu("A40", "A40", 48, 149.7, 696),
    _gpu("L4", "L4", 24, 121, 300),
    _gpu("L40", "L40", 48, 181, 864),
    _gpu("L40S", "L40S", 48, 362, 864, aliases=["L40-S"]),
    _gpu(
        "A100-SXM4-40GB",
        "A100",
        40,
        312,
        1555,
        "nvlink",
        600,
        aliases=["A100", "A100 40G", "A100-40GB", "A100-SXM-40GB", "A100 40GB SXM4"],
    ),
    _gpu("A100-PCIE-40GB", "A100", 40, 312, 1555, aliases=["A100 40GB PCIe", "A100-PCIe-40G"]),
    _gpu(
        "A100-SXM4-80GB",
        "A100",
        80,
        312,
        2039,
        "nvlink",
        600,
        aliases=[
            "A100-80GB",
            "A100 80G",
            "A100-80G",
            "A100-80GB-SXM",
            "A100 SXM 80G",
            "A100-SXM-80GB",
            "A100 80GB SXM4",
        ],
    ),
    _gpu(
        "A100-PCIE-80GB",
        "A100",
        80,
        312,
        1935,
        aliases=["A100 80GB PCIe", "A100-PCIe-80G", "A100 PCIE 80G"],
    ),
    _gpu(
        "A800-SXM4-80GB",
        "A800",
        80,
        312,
        2039,
        "nvlink",
        400,
        aliases=["A800", "A800 80G", "A800-80G", "A800-80GB", "A800 SXM"],
    ),
    _gpu("A800-PCIE-80GB", "A800", 80, 312, 1935, aliases=["A800 PCIe", "A800 80GB PCIe"]),
    _gpu(
        "H100-SXM5-80GB",
        "H100",
        80,
        989,
        3350,
        "nvlink",
        900,
        aliases=[
            "H100",
            "H100 80G",
            "H100-80G",
            "H100-80GB",
            "H100-SXM",
            "H100 SXM5",
            "H100-NVLINK",
            "H100-MEGA",
            "H100 80GB HBM3",
        ],
    ),
    _gpu("H100-PCIE-80GB", "H100", 80, 756, 2000, aliases=["H100 PCIe", "H100-PCIE"]),
    _gpu("H100-NVL", "H100", 94, 835, 3900, "nvlink", 600, aliases=["H100 NVL"]),
    _gpu(
        "H800-SXM5-80GB",
        "H800",
        80,
        989,
        3350,
        "nvlink",
        400,
        aliases=["H800", "H800 80G", "H800-80G", "H800-80GB", "H800 80GB HBM3"],
    ),
    _gpu("H800-PCIE-80GB", "H800", 80, 756, 2000, aliases=["H800 PCIe"]),
    _gpu("H20", "H20", 96, 148, 4000, "nvlink", 900, aliases=["H20 96G", "H20-96GB"]),
    _gpu(
        "H200-SXM-141GB",
        "H200",
        141,
        989,
        4800,
        "nvlink",
        900,
        aliases=["H200", "H200-SXM", "H200 141G", "H200-141GB"],
    ),
    _gpu("GH200", "GH200", 96, 989, 4000, "nvlink", 900, aliases=["GH200 96GB", "GH200 480GB"]),
    _gpu("B200", "B200", 180, 2250, 8000, "nvlink", 1800, aliases=["B200 180GB"]),
    _gpu("B300", "B300", 262, 2250, 8000, "nvlink", 1800, aliases=["B300 288GB"]),
    # Other vendors
    _gpu(
        "Ascend-910B",
        "Ascend-910B",
        64,
        313,
        1600,
        "hccs",
        392,
        aliases=["910B", "Ascend 910B", "昇腾910B", "Huawei Ascend 910B", "910B3", "910B2"],
        vendor="Huawei",
    ),
    _gpu("MI300X", "MI300X", 192, 1307, 5300, "other", aliases=["Instinct MI300X"], vendor="AMD"),
    _gpu("Radeon-MI25", "Radeon-MI25", 16, None, 484, aliases=["Radeon MI25"], vendor="AMD"),
    _gpu(
        "Radeon-Pro-V520",
        "Radeon-Pro-V520",
        8,
        None,
        512,
        aliases=["Radeon Pro V520"],
        vendor="AMD",
    ),
    _gpu("Gaudi2", "Gaudi", 96, 432, 2450, "other", aliases=["GAUDI2", "HL-225"], vendor="Intel"),
    _gpu(
        "Gaudi",
        "Gaudi",
        32,
        None,
        1000,
        "other",
        aliases=["HL-205", "Gaudi HL-205"],
        vendor="Intel",
    ),
    # Google TPUs appear in SkyPilot's accelerator list; per chip.
    _gpu("tpu-v2", "tpu", 16, 45, 600, "other", vendor="Google"),
    _gpu("tpu-v3", "tpu", 32, 123, 900, "other", vendor="Google"),
    _gpu("tpu-v4", "tpu", 32, 275, 1200, "other", vendor="Google"),
    _gpu("tpu-v5litepod", "tpu", 16, 197, 819, "other", aliases=["tpu-v5e"], vendor="Google"),
    _gpu("tpu-v5p", "tpu", 95, 459, 2765, "other", vendor="Google"),
    _gpu("tpu-v6e", "tpu", 32, 918, 1640, "other", vendor="Google"),
)

GPUS: dict[str, GpuSpec] = {spec.name: spec for spec in _SPECS}

_VENDOR_WORDS = re.compile(r"NVIDIA|GEFORCE|TESLA|HUAWEI|华为|QUADRO(?!RTX6000)|INSTINCT|INTEL")
_NOT_KEY_CHARS = re.compile(r"[\s\-_/·()（）]")
_GIG_SUFFIX = re.compile(r"(\d)G(?!B)")


def normalize_gpu_key(name: str) -> str:
    """The lookup key of a GPU name: width-, case-, space- and dash-insensitive, 80G == 80GB."""
    text = unicodedata.normalize("NFKC", name).upper()
    text = text.replace("昇腾", "ASCEND")
    text = _NOT_KEY_CHARS.sub("", text)
    text = _VENDOR_WORDS.sub("", text)
    return _GIG_SUFFIX.sub(r"\1GB", text)


def _build_index() -> dict[str, str]:
    index: dict[str, str] = {}
    for spec in _SPECS:
        for alias in (spec.name, *spec.aliases):
            key = normalize_gpu_key(alias)
            if key in index and index[key] != spec.name:
                raise AssertionError(f"GPU alias {alias!r} is ambiguous")
            index[key] = spec.name
        if spec.name.startswith("RTX"):
            index.setdefault(normalize_gpu_key(spec.name[3:]), spec.name)
    return index


_INDEX = _build_index()


def find_gpu(name: str) -> GpuSpec | None:
    """The registry entry for any known spelling of a GPU, or ``None``."""
    canonical = _INDEX.get(normalize_gpu_key(name))
    return GPUS[canonical] if canonical else None


def suggest_gpus(name: str, limit: int = 3) -> list[str]:
    """Canonical names that look like ``name`` (for "did you mean …")."""
    matches = difflib.get_close_matches(normalize_gpu_key(name), list(_INDEX), limit * 3, 0.5)
    suggestions: list[str] = []
    for key in matches:
        if _INDEX[key] not in suggestions:
            suggestions.append(_INDEX[key])
    return suggestions[:limit]


def resolve_gpu(name: str) -> GpuSpec:
    """The registry entry for ``name``; :class:`UnknownGpuError` with suggestions otherwise."""
    spec = find_gpu(name)
    if spec is None:
        raise UnknownGpuError(name, suggest_gpus(name))
    return spec


def snap_to_memory(spec: GpuSpec, memory_gib: float | None) -> GpuSpec:
    """The variant of ``spec``'s family whose memory is closest to ``memory_gib``.

    Catalogs write "A100" for both 40 GB and 80 GB cards; the memory they report decides.
    Variants of the same interconnect are preferred (SXM stays SXM).
    """
    if not memory_gib or abs(spec.memory_gib - memory_gib) <= 0.1 * spec.memory_gib:
        return spec
    family = [s for s in _SPECS if s.family == spec.family]
    return min(
        family,
        key=lambda s: (abs(s.memory_gib - memory_gib), s.interconnect != spec.interconnect),
    )
