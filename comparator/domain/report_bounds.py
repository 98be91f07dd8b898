"""What a quote report lists in full, whatever the catalog's size (pure, no imports to speak of).

At national scale a plan may exclude thousands of offers (6,801 for the seeds' 13B job on the
1M-offer catalog of benchmarks/shape_catalog.py, 2026-12-03): listing each one made a 4.8 MB
page that took a second to render and that nobody reads on a phone. The report counts every
exclusion by why, lists the first :data:`EXCLUDED_PER_KIND` of each kind (in the plan's order),
and says how many more the JSON holds (``plan.excluded``, every one). The quote document keeps
the price ages of the offers the report names (the plans' and the listed exclusions'), and the
report shows the snapshot ids as ranges, at most :data:`SNAPSHOT_RANGES` of them.
"""

from __future__ import annotations

from collections.abc import Iterable

EXCLUDED_PER_KIND = 20  # exclusions listed per kind (compliance, stock, network …)
SNAPSHOT_RANGES = 40  # runs of consecutive snapshot ids shown; the rest are counted


def listed_exclusions(kinds: Iterable[str]) -> list[int]:
    """The positions of the exclusions a report lists, given each exclusion's kind in the
    plan's order: the first :data:`EXCLUDED_PER_KIND` of each kind (exclusions without a kind,
    from older quotes, count as one kind)."""
    shown: dict[str, int] = {}
    listed: list[int] = []
    for position, kind in enumerate(kinds):
        count = shown.get(kind, 0)
        if count < EXCLUDED_PER_KIND:
            shown[kind] = count + 1
            listed.append(position)
    return listed


def id_ranges(ids: Iterable[str]) -> list[tuple[str, str]]:
    """Snapshot ids as (first, last) runs of consecutive integers, in numeric order (ids that are
    not integers follow, each its own run): ``1, 2, 3, 7`` → ``(1, 3), (7, 7)``."""
    texts: list[str] = []
    others: list[str] = []
    for text in set(ids):
        (texts if _integer(text) else others).append(text)
    numbers = sorted(map(int, texts))
    others.sort()
    runs: list[tuple[str, str]] = []
    start = previous = None
    for number in numbers:
        if previous is not None and number == previous + 1:
            previous = number
            continue
        if start is not None:
            runs.append((str(start), str(previous)))
        start = previous = number
    if start is not None:
        runs.append((str(start), str(previous)))
    return runs + [(other, other) for other in others]


def _integer(text: str) -> bool:
    """``"42"``, not ``"042"``, ``"4a"`` or ``"²"``: the id reads back as the same text."""
    return text.isascii() and text.isdigit() and (text == "0" or text[0] != "0")
