"""A national catalog of *another shape* than :mod:`benchmarks.scale_catalog`: the same README
formats (profiles in TOML, price sheets in CSV), drawn from a configurable distribution
(:class:`Shape`), so that the planner's pruning is measured on a market it was not tuned to.

What differs from the benchmark catalog by default (every weight is a field of :class:`Shape`):

* **GPU mix** skewed towards the large cards (H100, H800, A100-80G, A800, H20) and the cards the
  README's jobs use, with per-provider price levels (some providers are cheap on everything);
* **billing modes** weighted towards contracts (daily, weekly, monthly) with ``min_units`` above
  one, a few hourly offers with ``free_trial_hours`` (``trial_share``);
* **node sizes** of 1, 2, 4 and 8 cards per node and units of 1, 2, 4 or 8 cards;
* **provinces** concentrated: most data centres in Guangdong, Shanghai, Beijing and Guizhou (the README's jobs ask
  for Guangdong), a tail over the other provinces, some data centres with storage, upload and egress
  prices (the windowed storage job pays them);
* **time-of-use rules** many and varied (night, weekend, office-hour surcharges), shared by
  several providers, each offer choosing one;
* **networks** RDMA on most multi-card offers (the 70B job spans nodes), PCIe on small cards;
* **providers** of very unequal size (a few large clouds with many offers, a long tail of
  small ones with a handful).

Seeded: the same arguments write the same files. Used by ``benchmarks/scale.py --shape other``
and by the tests that compare the streamed planner with the unpruned one
(``tests/plan/test_plan_shapes.py``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from scale_catalog import DATACENTER, HEADER, OBSERVED, PROFILE, PROVINCES


def _weights(pairs: dict[str, float]) -> tuple[list[str], list[float]]:
    return list(pairs), list(pairs.values())


@dataclass(frozen=True)
class Shape:
    """The distribution a catalog is drawn from (each mapping: value → weight)."""

    gpus: dict[str, float] = field(  # sheet spelling → weight; prices in GPU_PRICES
        default_factory=lambda: {
            "A100 80G": 5.0,
            "A800": 3.0,
            "H800 80G": 3.0,
            "H100": 2.0,
            "H20": 2.0,
            "4090": 2.0,
            "L40S": 1.0,
            "910B": 1.0,
            "A100 40G": 1.0,
        }
    )
    billing: dict[str, float] = field(
        default_factory=lambda: {
            "hourly": 3.0,
            "spot": 1.0,
            "daily": 2.0,
            "weekly": 2.0,
            "monthly": 3.0,
        }
    )
    node_cards: dict[str, float] = field(
        default_factory=lambda: {"8": 6.0, "4": 2.0, "2": 1.0, "1": 1.0}
    )
    provinces: dict[str, float] = field(  # PROVINCES index → weight; the rest share TAIL
        default_factory=lambda: {"0": 6.0, "1": 6.0, "4": 4.0, "5": 4.0, "3": 3.0}
    )
    tail_weight: float = 0.5  # of each other province
    time_of_use: dict[str, float] = field(
        default_factory=lambda: {
            "": 6.0,
            "00:00-08:00*0.5": 1.0,
            "23:00-07:00*0.4": 1.0,
            "sat-sun*0.7": 1.0,
            "09:00-18:00*1.3": 1.0,
            "22:00-06:00*0.55": 1.0,
            "12:00-14:00*0.9": 1.0,
            "sat-sun*0.85": 1.0,
        }
    )
    rdma_share: float = 0.7  # of offers with more than one card per node
    min_units_contract: tuple[int, ...] = (1, 1, 2, 3)  # a contract's minimum periods
    trial_share: float = 0.002  # of hourly offers with free trial hours
    storage_share: float = 0.3  # of data centres that state storage prices
    provider_sizes: tuple[float, float] = (1.2, 40.0)  # Pareto shape, largest weight


GPU_PRICES = {  # list price per card-hour (CNY): a plausible order, not a market survey
    "4090": 1.8,
    "A100 80G": 7.0,
    "A800": 7.0,
    "H800 80G": 13.0,
    "H100": 15.0,
    "L40S": 4.0,
    "H20": 5.5,
    "910B": 5.0,
    "A100 40G": 4.5,
}
PERIOD = {"hourly": 1, "spot": 1, "daily": 24, "weekly": 168, "monthly": 720}
DISCOUNT = {"hourly": 1.0, "spot": 0.4, "daily": 0.85, "weekly": 0.7, "monthly": 0.5}
STORAGE = """storage_price_gb_month = {month}
upload_gbps = {gbps}
egress_price_gb = {egress}
"""


def provider_id(n: int) -> str:
    return f"shape-{n:05d}"


def _pick(rng: random.Random, pairs: dict[str, float]) -> str:
    names, weights = _weights(pairs)
    return rng.choices(names, weights)[0]


def _centres(rng: random.Random, shape: Shape, n: int) -> list[tuple[str, str, str, str]]:
    """(id, province, city, storage TOML) of provider ``n``'s data centres."""
    weights = [shape.provinces.get(str(i), shape.tail_weight) for i in range(len(PROVINCES))]
    count = rng.choice((1, 1, 2, 4))
    picks = {rng.choices(range(len(PROVINCES)), weights)[0] for _ in range(count)}
    out = []
    for i, at in enumerate(sorted(picks)):
        storage = ""
        if rng.random() < shape.storage_share:
            storage = STORAGE.format(
                month=round(rng.uniform(0.05, 0.4), 2),
                gbps=rng.choice((1, 5, 10)),
                egress=round(rng.uniform(0.2, 0.8), 2),
            )
        out.append((f"dc{n}-{i}", *PROVINCES[at], storage))
    return out


def _offer(rng: random.Random, shape: Shape, pid: str, dc: str, level: float) -> str:
    gpu = _pick(rng, shape.gpus)
    node = int(_pick(rng, shape.node_cards))
    cards = rng.choice([c for c in (1, 2, 4, 8) if c <= node])
    billing = _pick(rng, shape.billing)
    hourly = billing in ("hourly", "spot")
    tou = _pick(rng, shape.time_of_use) if hourly else ""
    price = GPU_PRICES[gpu] * cards * PERIOD[billing] * DISCOUNT[billing] * level
    price *= rng.uniform(0.8, 1.25)
    stock = rng.choice(("", "1", "4", "16", "64"))
    min_units = 1 if hourly else rng.choice(shape.min_units_contract)
    small = gpu in ("4090", "L40S")
    network = ""
    if node > 1 and not small and rng.random() < shape.rdma_share:
        network = rng.choice(("ib-400g", "ib-200g", "roce-200g", "roce-100g"))
    link = "pcie" if small or node < 4 else "nvlink"
    trial = rng.choice((2, 5, 10)) if hourly and rng.random() < shape.trial_share else 0
    return (
        f"{pid},{dc},{gpu},{cards},{node},{billing},{price:.2f},CNY,{tou},{stock},{min_units},"
        f"{link},{network},{OBSERVED},shape,,{trial}\n"
    )


def _sizes(rng: random.Random, shape: Shape, offers: int, providers: int) -> list[int]:
    """Offers per provider: Pareto weights (a few large clouds, a long tail), at least one."""
    alpha, cap = shape.provider_sizes
    weights = [min(rng.paretovariate(alpha), cap) for _ in range(providers)]
    total = sum(weights)
    sizes = [max(1, int(offers * w / total)) for w in weights]
    sizes[-1] += offers - sum(sizes)
    while sizes[-1] < 1:  # rounding took too much: shave the largest
        big = sizes.index(max(sizes))
        sizes[big] -= 1
        sizes[-1] += 1
    return sizes


def write_catalog(
    root: Path,
    offers: int,
    providers: int,
    *,
    seed: int = 26,
    shape: Shape | None = None,
    sheet_rows: int = 100_000,
) -> tuple[list[Path], list[Path]]:
    """Write ``providers`` profiles and ``offers`` offers drawn from ``shape``."""
    shape = shape or Shape()
    rng = random.Random(seed)
    (root / "profiles").mkdir(parents=True, exist_ok=True)
    (root / "sheets").mkdir(parents=True, exist_ok=True)
    header = HEADER.rstrip("\n") + ",sku,free_trial_hours\n"
    profiles, sheets, lines = [], [], [header]
    for n, count in enumerate(_sizes(rng, shape, offers, providers)):
        pid = provider_id(n)
        centres = _centres(rng, shape, n)
        text = PROFILE.format(pid=pid, n=n) + "".join(
            DATACENTER.format(dc=dc, province=p, city=c, i=i) + storage
            for i, (dc, p, c, storage) in enumerate(centres)
        )
        path = root / "profiles" / f"{pid}.toml"
        path.write_text(text, encoding="utf-8")
        profiles.append(path)
        level = rng.choice((0.75, 0.9, 1.0, 1.0, 1.1, 1.3))
        lines += [_offer(rng, shape, pid, rng.choice(centres)[0], level) for _ in range(count)]
        if len(lines) > sheet_rows or n == providers - 1:
            sheet = root / "sheets" / f"sheet-{len(sheets):03d}.csv"
            sheet.write_text("".join(lines), encoding="utf-8")
            sheets.append(sheet)
            lines = [header]
    return sheets, profiles
