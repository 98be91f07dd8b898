"""SkyPilot catalog v8 ``vms.csv`` → USD offers, plus a synthesised provider profile.

One row is one instance type in one region; ``Price`` and ``SpotPrice`` are USD per hour for the
whole instance, so an offer's ``cards`` is the row's ``AcceleratorCount``. Spot prices become
separate ``spot`` offers. CPU-only rows and fractional GPUs are left out. Integrity checks fail
the whole file, every bad row listed: a price that is not a positive number, a GPU the registry
does not know. Quirks handled (see ``shared/data/skypilot-catalog/SOURCE.md``): columns in any
order, ``GpuInfo`` as a Python literal or JSON, Shadeform's GiB in ``SizeInMiB``, Vast's
``SizeInMiB`` for the whole instance, empty ``Price`` (spot-only), Vast's ``0.00`` for "no spot",
accelerator-name drift (``RTX6000Ada``/``RTX-6000-Ada``), Vast's ``"<state>, <CC>, <continent>"``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, ClassVar

from comparator.catalog.models import OfferIn
from comparator.domain.gpus import GPUS, GpuSpec, find_gpu, snap_to_memory
from comparator.domain.profile import ProviderProfile, parse_profile
from comparator.errors import InputError, Msg, RowProblem, SheetError
from providers.base import Adapter, AdapterResult, SourceSpec
from providers.fetch import Validators, document_name
from providers.skypilot.rows import Datacenters, gpu_memory_gib, parse_count, parse_price

REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
#: clouds whose GpuInfo ``SizeInMiB`` is the memory of all the instance's GPUs together
WHOLE_INSTANCE_MEMORY_CLOUDS = frozenset({"vast"})
MEMORY_NOTE_RATIO = 0.25  # note rows whose memory differs from the registry's by more


@dataclass(frozen=True)
class SkypilotOptions:
    cloud: str
    name: str
    country: str = "US"
    spot: bool = True
    region_countries: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, spec: SourceSpec) -> SkypilotOptions:
        options = spec.options
        cloud = str(options.get("cloud") or _cloud_from_location(spec.location) or spec.provider)
        countries = options.get("region_countries", {})
        spot = options.get("spot", True)
        if not isinstance(countries, Mapping) or not isinstance(spot, bool):
            raise InputError(
                '{where}: expected spot = true|false and a region_countries table of region = "CC"',
                where=spec.where,
                hint=Msg(
                    "`suanli schema sources` prints every key a sources file takes; "
                    "examples/sources.toml shows each adapter"
                ),
            )
        country = str(options.get("country", "US")).upper()
        return cls(
            cloud.lower(),
            str(options.get("name") or spec.provider),
            country,
            spot,
            {str(k): str(v).upper() for k, v in countries.items()},
        )


def _cloud_from_location(location: str) -> str | None:
    parts = location.replace("\\", "/").split("?", 1)[0].split("/")
    return parts[-2] if len(parts) >= 2 and parts[-1] == "vms.csv" else None


@dataclass
class CatalogParse:
    """Offers, bad rows (integrity failures) and rows deliberately left out of one vms.csv."""

    offers: list[OfferIn] = field(default_factory=list)
    problems: list[RowProblem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class SkypilotAdapter(Adapter):
    """A SkyPilot catalog v8 ``vms.csv`` (path or URL) of one cloud."""

    name: ClassVar[str] = "skypilot"
    option_help: ClassVar[Mapping[str, str]] = {
        "cloud": "SkyPilot cloud name; default: the folder in .../v8/<cloud>/vms.csv",
        "name": "provider display name; default: the provider id",
        "country": "provider's ISO country code, also data centres' default (US)",
        "spot": "turn SpotPrice into `spot` offers (default true)",
        "region_countries": 'table region = "CC" for data centres in other countries',
    }

    @classmethod
    def check_options(cls, options: Mapping[str, Any], where: str) -> None:
        SkypilotOptions.parse(SourceSpec("x", cls.name, "vms.csv", options=options, origin=where))

    async def fetch(self, since: Validators | None = None) -> AdapterResult:
        document = await self.download(self.source.location, since)
        if document.not_modified:
            return AdapterResult(None, [], document.validators, not_modified=True)
        fetched_at = datetime.now(self.source.timezone)
        profile, parsed = await self.parse_within(
            parse_vms_csv, document.content, self.source, fetched_at
        )
        return AdapterResult(profile, parsed.offers, document.validators, notes=tuple(parsed.notes))


def parse_vms_csv(
    content: bytes, source: SourceSpec, fetched_at: datetime
) -> tuple[ProviderProfile, CatalogParse]:
    """The profile and offers of one vms.csv; SheetError lists every row failing integrity."""
    options = SkypilotOptions.parse(source)
    rows = _read_rows(content, source.shown)
    datacenters = Datacenters(options.country, options.region_countries)
    parsed, context = CatalogParse(), _RowContext(source, fetched_at)
    for line, row in enumerate(rows, start=2):
        _parse_row(line, row, options, datacenters, parsed, context)
    if not parsed.offers and not parsed.problems:
        parsed.problems.append(RowProblem(1, "AcceleratorName", "at least one GPU instance"))
    if parsed.problems:
        raise SheetError(source.shown, parsed.problems)
    parsed.notes.extend(datacenters.notes)
    return _profile(options, source, datacenters), parsed


def _read_rows(content: bytes, location: str) -> list[dict[str, str]]:
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            "{location}: expected UTF-8 CSV ({reason})",
            location=location,
            reason=exc.reason,
            hint=Msg(
                "check the source's url and records path against what it answers; its last good snapshot stays current"
            ),
        ) from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        problems = [RowProblem(1, c, "a SkyPilot v8 vms.csv column") for c in missing]
        raise SheetError(location, problems)
    return [{k: (v or "").strip() for k, v in row.items() if k} for row in reader]


@dataclass(frozen=True)
class _RowContext:
    source: SourceSpec
    fetched_at: datetime


def _parse_row(
    line: int,
    row: Mapping[str, str],
    options: SkypilotOptions,
    datacenters: Datacenters,
    parsed: CatalogParse,
    context: _RowContext,
) -> None:
    accelerator = row["AcceleratorName"]
    cards = parse_count(row["AcceleratorCount"])
    if not accelerator or cards == 0:
        return  # a CPU-only instance
    if cards is None:
        parsed.notes.append(
            f"row {line}: {row['InstanceType']} has a fractional GPU count "
            f"({row['AcceleratorCount']}); left out"
        )
        return
    problems_before = len(parsed.problems)
    spec = _gpu(line, row, cards, options, parsed)
    prices = _prices(line, row, options, parsed)
    region = datacenters.region_id(row["Region"], line)
    if spec is None or len(parsed.problems) > problems_before or region is None:
        return
    for billing, price in prices:
        parsed.offers.append(_offer(row, spec, cards, region, billing, price, context))


def _gpu(
    line: int, row: Mapping[str, str], cards: int, options: SkypilotOptions, parsed: CatalogParse
) -> GpuSpec | None:
    spec = find_gpu(row["AcceleratorName"])
    if spec is None:
        parsed.problems.append(
            RowProblem(
                line,
                "AcceleratorName",
                "a GPU known to the registry (add an alias to comparator/gpus.py)",
                row["AcceleratorName"],
            )
        )
        return None
    whole_instance = options.cloud in WHOLE_INSTANCE_MEMORY_CLOUDS
    try:
        memory_gib = gpu_memory_gib(row.get("GpuInfo", ""), cards, whole_instance=whole_instance)
    except ValueError as exc:
        expected = _expected(exc)
        parsed.problems.append(RowProblem(line, "GpuInfo", expected, row.get("GpuInfo", "")[:60]))
        return None
    snapped = form_factor(snap_to_memory(spec, memory_gib), row["InstanceType"])
    if memory_gib and abs(snapped.memory_gib - memory_gib) > MEMORY_NOTE_RATIO * snapped.memory_gib:
        parsed.notes.append(
            f"row {line}: {row['AcceleratorName']} reports {memory_gib:g} GiB per "
            f"GPU; priced as {snapped.name} ({snapped.memory_gib:g} GiB)"
        )
    return snapped


def form_factor(spec: GpuSpec, sku: str) -> GpuSpec:
    """The PCIe or SXM variant the instance type names (``gpu_1x_h100_pcie``, ``A100_SXM4``)."""
    words = sku.lower()
    wanted = "pcie" if "pcie" in words else "nvlink" if "sxm" in words else spec.interconnect
    variants = [
        s
        for s in GPUS.values()
        if s.family == spec.family and s.memory_gib == spec.memory_gib and s.interconnect == wanted
    ]
    return spec if spec.interconnect == wanted or not variants else variants[0]


def _expected(exc: ValueError) -> Msg | str:
    """What a cell should have held: the row reader's message (or the error's own text)."""
    said = exc.args[0] if exc.args else None
    return said if isinstance(said, Msg) else str(exc)


def _prices(
    line: int, row: Mapping[str, str], options: SkypilotOptions, parsed: CatalogParse
) -> list[tuple[str, Decimal]]:
    prices: list[tuple[str, Decimal]] = []
    columns = [("hourly", "Price")] + ([("spot", "SpotPrice")] if options.spot else [])
    for billing, column in columns:
        try:
            price = parse_price(row.get(column, ""), zero_means_none=column == "SpotPrice")
        except ValueError as exc:
            parsed.problems.append(RowProblem(line, column, _expected(exc), row.get(column, "")))
            continue
        if price is not None:
            prices.append((billing, price))
    if not prices and not parsed.problems:
        parsed.notes.append(f"row {line}: {row['InstanceType']} has neither Price nor SpotPrice")
    return prices


def _offer(
    row: Mapping[str, str],
    spec: GpuSpec,
    cards: int,
    region: str,
    billing: str,
    price: Decimal,
    context: _RowContext,
) -> OfferIn:
    return OfferIn(
        provider=context.source.provider,
        region=region,
        gpu=spec.name,
        cards=cards,
        node_cards=cards,
        billing=billing,
        price=price,
        currency="USD",
        tax_inclusive=False,
        vat_rate=Decimal(0),
        observed_at=context.fetched_at,
        source=context.source.shown,
        sku=row["InstanceType"],
    )


def _profile(
    options: SkypilotOptions, source: SourceSpec, datacenters: Datacenters
) -> ProviderProfile:
    data = {
        "provider": {
            "id": source.provider,
            "name": options.name,
            "country": options.country,
            "source": f"SkyPilot catalog v8 ({options.cloud})",
        },
        "datacenters": [
            {"id": dc_id, "name": name, "country": country, "region": region}
            for dc_id, name, country, region in datacenters.used()
        ],
    }
    return parse_profile(data, f"{document_name(source.location)} ({options.cloud}, synthesised)")
