"""Cell-level reading of SkyPilot ``vms.csv`` rows: counts, prices, GPU memory, regions."""

from __future__ import annotations

import ast
import json
import re
import unicodedata
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from comparator.errors import Msg

MIB_PER_GIB = 1024
_VAST_REGION = re.compile(r"^(?P<state>.*),\s*(?P<country>[A-Z]{2}),\s*(?P<continent>[A-Z]{2})$")
_NOT_ID = re.compile(r"[^a-z0-9]+")
#: words in region names that name a country ("paris-france-1", "us-east-1", "FIN-01")
COUNTRY_WORDS: Mapping[str, str] = {
    "us": "US",
    "usa": "US",
    "canada": "CA",
    "france": "FR",
    "japan": "JP",
    "poland": "PL",
    "india": "IN",
    "germany": "DE",
    "uk": "GB",
    "fin": "FI",
    "finland": "FI",
    "sweden": "SE",
    "norway": "NO",
    "iceland": "IS",
    "netherlands": "NL",
    "australia": "AU",
    "singapore": "SG",
    "korea": "KR",
    "israel": "IL",
}


def parse_count(text: str) -> int | None:
    """GPUs per instance: 0 for none, ``None`` when fractional (AWS/Azure partial GPUs)."""
    if not text:
        return 0
    try:
        count = Decimal(text)
    except InvalidOperation:
        return None
    if count <= 0:
        return 0
    return int(count) if count == count.to_integral_value() else None


def parse_price(text: str, *, zero_means_none: bool = False) -> Decimal | None:
    """The exact decimal of a price cell; ``None`` when empty. ValueError when not positive."""
    if not text:
        return None
    try:
        price = Decimal(text)
    except InvalidOperation:
        raise ValueError(Msg("a price in USD per hour")) from None
    if zero_means_none and price == 0:
        return None
    if not price.is_finite() or price <= 0:
        raise ValueError(Msg("a positive price in USD per hour"))
    return price


def parse_gpu_info(text: str) -> Mapping[str, Any] | None:
    """``GpuInfo`` as a Python literal (most clouds) or JSON (Verda); None when empty."""
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise ValueError(Msg("a GpuInfo dict (Python literal or JSON)")) from None
    if not isinstance(value, Mapping):
        raise ValueError(Msg("a GpuInfo dict (Python literal or JSON)"))
    return value


def gpu_memory_gib(text: str, cards: int, *, whole_instance: bool) -> float | None:
    """Memory of one GPU in GiB from ``GpuInfo``, or None when the row does not say.

    ``SizeInMiB`` is per GPU except on clouds that write the whole instance's (Vast), and
    Shadeform writes GiB in it — no GPU has less than 1 GiB, so a value under 1024 is GiB.
    """
    info = parse_gpu_info(text)
    gpus = info.get("Gpus") if info else None
    if not gpus or not isinstance(gpus, list) or not isinstance(gpus[0], Mapping):
        return None
    size = (gpus[0].get("MemoryInfo") or {}).get("SizeInMiB")
    if isinstance(size, bool) or not isinstance(size, int | float) or size <= 0:
        return None
    if whole_instance:
        size = size / cards
    return float(size) if size < MIB_PER_GIB else size / MIB_PER_GIB


def region_country(region: str, default: str, overrides: Mapping[str, str]) -> str:
    """The ISO country of a region: an override, Vast's ``, CC,``, a country word, the default."""
    if region in overrides:
        return overrides[region]
    match = _VAST_REGION.match(region)
    if match:
        return match["country"]
    for word in _NOT_ID.split(region.lower()):
        if word in COUNTRY_WORDS:
            return COUNTRY_WORDS[word]
    return default


def region_name(region: str) -> str:
    """Vast writes ``", US, NA"`` when the state is unknown; drop the empty part."""
    return region.strip().lstrip(",").strip() or "unknown"


def _ascii(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


class Datacenters:
    """Data centres met while reading one file: region text → (id, name, country)."""

    def __init__(self, default_country: str, overrides: Mapping[str, str]) -> None:
        self.default_country = default_country
        self.overrides = overrides
        self._by_region: dict[str, tuple[str, str, str] | None] = {}
        self.notes: list[str] = []

    def region_id(self, region: str, line: int) -> str | None:
        """The data-centre id of a region; None (with a note) for mainland China."""
        if region not in self._by_region:
            self._by_region[region] = self._new(region, line)
        entry = self._by_region[region]
        return entry[0] if entry else None

    def used(self) -> list[tuple[str, str, str, str]]:
        """(id, name, country, region text as the catalog writes it) of each data centre."""
        return [(*entry, region) for region, entry in self._by_region.items() if entry is not None]

    def _new(self, region: str, line: int) -> tuple[str, str, str] | None:
        country = region_country(region, self.default_country, self.overrides)
        if country == "CN":
            self.notes.append(
                f"row {line} and others in region {region!r}: a mainland China "
                "data centre needs a province, which the catalog does not give; "
                "left out"
            )
            return None
        name = region_name(region)
        base = _NOT_ID.sub("-", _ascii(name).lower()).strip("-") or "region"
        taken = {entry[0] for entry in self.used()}
        dc_id, n = base, 2
        while dc_id in taken:
            dc_id, n = f"{base}-{n}", n + 1
        return dc_id, name, country
