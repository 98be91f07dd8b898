"""The columns of a price sheet (billing.md) and how headers are matched to them."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from comparator.errors import Msg, RowProblem


@dataclass(frozen=True)
class Column:
    name: str
    aliases: tuple[str, ...]


def _columns(*rows: tuple[str, str]) -> dict[str, Column]:
    return {name: Column(name, tuple(a for a in aliases.split() if a)) for name, aliases in rows}


COLUMNS: dict[str, Column] = _columns(
    ("provider", "服务商 供应商 厂商"),
    ("region", "地域 区域 机房 可用区 数据中心"),
    ("gpu", "卡型 GPU型号 显卡 型号"),
    ("cards", "卡数 每台卡数"),
    ("node_cards", "单机卡数"),
    ("billing", "计费方式 计费模式"),
    ("price", "单价 价格"),
    ("currency", "币种"),
    ("time_of_use", "闲时 分时 峰谷"),
    ("stock", "库存 可用数量"),
    ("min_units", "最短租期 起租"),
    ("interconnect", "卡间互联"),
    ("network", "节点网络 组网"),
    ("tax_inclusive", "含税"),
    ("vat_rate", "税率"),
    ("free_trial_hours", "免费试用"),
    ("observed_at", "报价日期 更新时间"),
    ("source", "来源"),
    ("sku", "规格 实例规格 instance_type"),
)
REQUIRED: tuple[str, ...] = ("provider", "region", "gpu", "billing", "price")

_IGNORED_IN_HEADERS = re.compile(r"[\s_\-]")
# a longer header names no column, and is no typo of one: difflib's ratio 2·M/(a+b) of a
# 65-character header and a name of at most 27 is under closest_header's 0.6 (the longest
# name or alias is 16 characters)
MAX_HEADER_CHARS = 64


def normalize_header(header: str) -> str:
    """Case-, space- and width-insensitive form of a header (全角 ＧＰＵ == GPU)."""
    return _IGNORED_IN_HEADERS.sub("", unicodedata.normalize("NFKC", header)).lower()


_LOOKUP: dict[str, str] = {
    normalize_header(alias): column.name
    for column in COLUMNS.values()
    for alias in (column.name, *column.aliases)
}


def header_map(headers: Sequence[str]) -> tuple[dict[int, str], list[RowProblem]]:
    """Header position → canonical column for the headers we know; duplicates are problems.

    Headers we do not know (a 备注 column, say) are ignored.
    """
    mapping: dict[int, str] = {}
    problems: list[RowProblem] = []
    for position, header in enumerate(headers):
        column = _LOOKUP.get(normalize_header(header)) if len(header) <= MAX_HEADER_CHARS else None
        if column is None:
            continue
        if column in mapping.values():
            problems.append(
                RowProblem(1, header, Msg("one column for {column}, not two", column=column))
            )
            continue
        mapping[position] = column
    return mapping, problems


def unknown_headers(headers: Sequence[str]) -> list[str]:
    """The headers that match no column (ignored on import; the importer warns about them)."""
    return [
        h for h in headers if len(h) > MAX_HEADER_CHARS or _LOOKUP.get(normalize_header(h)) is None
    ]


def closest_header(column: str, headers: Sequence[str]) -> str | None:
    """The header of ``headers`` most like ``column`` or one of its aliases (a typo: ``prise``)."""
    import difflib

    names = {normalize_header(a): a for a in (column, *COLUMNS[column].aliases)}
    best: tuple[float, str] | None = None
    for header in headers:
        if len(header) > MAX_HEADER_CHARS:
            continue  # a 5 MB header cell would take difflib minutes, and match nothing
        key = normalize_header(header)
        for name in names:
            ratio = difflib.SequenceMatcher(None, key, name).ratio()
            if ratio >= 0.6 and (best is None or ratio > best[0]):
                best = (ratio, header)
    return None if best is None else best[1]
