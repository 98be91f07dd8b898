"""Column-by-column checks of a price sheet: each turns a column of text into values + problems.

Checks convert each distinct cell text once (sheets repeat values a lot), which keeps a
200,000-row import close to the speed of reading the CSV.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd

from comparator.domain.billing import BILLING_MODES, parse_billing
from comparator.domain.gpus import find_gpu, suggest_gpus
from comparator.domain.ids import id_problem
from comparator.domain.money import parse_decimal
from comparator.errors import Msg, RowProblem, SuanliError, as_msg

if TYPE_CHECKING:
    from providers.sheet.known import KnownCatalog


@dataclass(frozen=True)
class Cells:
    """A column's cells: each row's text is ``texts[codes[i]]``; ``rows`` are the sheet's
    row numbers."""

    rows: pd.Index
    codes: np.ndarray
    texts: list[str]


# a column's values (one object per distinct text: rows of one code share it) and problems
ColumnCheck = Callable[[Cells], tuple[list[object], list[RowProblem]]]


MAX_TEXT = 1_000  # characters of any cell the catalog stores
# whole-number columns: (smallest, largest); the largest fits a 32-bit INTEGER everywhere
INTEGER_RANGES = {
    "cards": (1, 100_000),
    "node_cards": (1, 1_024),
    "stock": (0, 1_000_000_000),
    "min_units": (1, 1_000_000),
    "free_trial_hours": (0, 1_000_000),
}
MAX_PRICE = Decimal(10**12)  # per unit: totals stay well inside Decimal's 28 digits
PRICE_PLACES = 12  # decimal places a price may have
OBSERVED_RANGE = (datetime(1990, 1, 1, tzinfo=UTC), datetime(2200, 1, 1, tzinfo=UTC))
# ASCII digits with an optional point: parse_decimal gives Decimal(text) for these exactly
_PLAIN_NUMBER = re.compile(r"[0-9]{1,30}(?:\.[0-9]{1,30})?")
_UNSTORABLE = re.compile("[\x00\ud800-\udfff\x1e]")  # NUL, lone surrogates, JSON non-values


class _Bad(Exception):
    """A cell that failed its check; the message says what was expected."""

    def __init__(self, text: str | Msg, /, **params: object) -> None:
        self.msg = as_msg(text, params)
        super().__init__(str(self.msg))


def _storable(text: str) -> None:
    if len(text) > MAX_TEXT:
        raise _Bad("text of at most {count} characters", count=MAX_TEXT)
    if _UNSTORABLE.search(text):
        raise _Bad("text without NUL bytes, unpaired surrogates or nested JSON values")


def spread(distinct: list[object], codes: np.ndarray) -> list[object]:
    """Each row's value: ``distinct[code]`` for every code, without a Python loop per row."""
    result: list[object] = objects(distinct)[codes].tolist()
    return result


def _by_unique(
    column: str,
    convert: Callable[[str], object],
    at_once: Callable[[list[str]], list[object] | None] | None = None,
) -> ColumnCheck:
    """A check converting each distinct text; ``at_once``, when given, converts them all
    together where all are good (else None: each is converted, and told apart, alone)."""

    def check(cells: Cells) -> tuple[list[object], list[RowProblem]]:
        bad: dict[int, Msg] = {}
        found = at_once(cells.texts) if at_once else None
        if found is not None:
            return spread(found, cells.codes), []
        converted: list[object] = []
        for code, text in enumerate(cells.texts):
            try:
                _storable(text)
                converted.append(convert(text))
            except _Bad as exc:
                bad[code] = exc.msg
                converted.append(None)
        return spread(converted, cells.codes), _problems(cells, bad, column)

    return check


def _problems(cells: Cells, bad: dict[int, Msg], column: str) -> list[RowProblem]:
    """One problem per row whose text is bad, in row order."""
    if not bad:
        return []
    rows = np.isin(cells.codes, list(bad))
    return [
        RowProblem(int(row), column, bad[code], cells.texts[code])
        for row, code in zip(cells.rows[rows].tolist(), cells.codes[rows].tolist(), strict=True)
    ]


def _required(text: str, what: str | Msg) -> str:
    if not text:
        raise _Bad("{what} (the cell is empty)", what=as_msg(what))
    return text


def _number(text: str, what: Msg, decimal: str) -> Decimal:
    plain = decimal == "." or "." not in text  # with decimal ",", 1.234 is 1234
    if plain and _PLAIN_NUMBER.fullmatch(text):  # what parse_decimal gives, 10x sooner
        return Decimal(text)
    value = parse_decimal(text, decimal)
    if value is not None:
        return value
    if decimal == "." and "," in text:
        raise _Bad(
            "{what} with a decimal point, such as 3.10 (a comma is read as the decimal mark "
            'only when the sheet declares decimal = ",")',
            what=what,
        )
    raise _Bad(what)


def _integer(column: str, default: int | None, decimal: str) -> Callable[[str], object]:
    low, high = INTEGER_RANGES[column]
    what = Msg("a whole number from {low} to {high}", low=low, high=high)

    def convert(text: str) -> object:
        if not text:
            return default
        value = _number(text, what, decimal)
        if value != value.to_integral_value() or not low <= value <= high:
            raise _Bad(what)
        return int(value)

    return convert


_PLAIN_WHOLE = re.compile(r"(?:[0-9]{1,12}\n)*")


def _plain_integers(column: str, default: int | None) -> Callable[[list[str]], list[object] | None]:
    """What :func:`_integer` gives every text, when each is empty or plain digits in range:
    one regular expression over them all; else None (each text is checked alone)."""
    low, high = INTEGER_RANGES[column]

    def at_once(texts: list[str]) -> list[object] | None:
        if not _PLAIN_WHOLE.fullmatch("".join(f"{t}\n" for t in texts if t)):
            return None
        values: list[object] = [int(t) if t else default for t in texts]
        in_range = all(v is None or low <= v <= high for v in values)  # type: ignore[operator]
        return values if in_range else None

    return at_once


def _price(decimal: str) -> Callable[[str], object]:
    what = Msg(
        "a positive number up to {limit} with at most {places} decimal places",
        limit=MAX_PRICE,
        places=PRICE_PLACES,
    )

    def convert(text: str) -> object:
        value = _number(_required(text, "a positive number"), what, decimal)
        exponent = value.as_tuple().exponent
        if not 0 < value <= MAX_PRICE or not isinstance(exponent, int) or exponent < -PRICE_PLACES:
            raise _Bad(what)
        return value

    return convert


# what _price accepts of "." sheets, for a whole column at once: plain numbers below
# MAX_PRICE with at most PRICE_PLACES places (zero excepted, below)
_PLAIN_PRICES = re.compile(
    rf"(?:[0-9]{{1,{len(str(MAX_PRICE)) - 1}}}(?:\.[0-9]{{1,{PRICE_PLACES}}})?\n)+"
)


def _plain_prices(texts: list[str]) -> list[object] | None:
    """The Decimal of every text when every one is a price :func:`_price` accepts as it is:
    one regular expression over them all instead of one check per text; else None."""
    if not _PLAIN_PRICES.fullmatch("\n".join(texts) + "\n"):
        return None
    values: list[object] = list(map(Decimal, texts))
    return values if all(values) else None  # a zero price is told apart by _price


def _billing(text: str) -> object:
    mode = parse_billing(_required(text, "a billing mode"))
    if mode is None:
        raise _Bad(
            "a billing mode: {names} (or 按量/包日/包周/包月/包年/竞价)",
            names=", ".join(BILLING_MODES),
        )
    return mode


def _gpu(text: str) -> object:
    spec = find_gpu(_required(text, "a GPU model"))
    if spec is None:
        hint = suggest_gpus(text)
        if hint:
            raise _Bad(
                "a GPU model known to the registry (did you mean {names}?)", names=", ".join(hint)
            )
        raise _Bad("a GPU model known to the registry")
    return spec.name


def _currency(text: str) -> object:
    if not text:
        return "CNY"
    if not re.fullmatch(r"[A-Za-z]{3}", text):
        raise _Bad("a three-letter ISO 4217 currency code such as CNY or USD")
    return text.upper()


_TRUE = {"true", "yes", "1", "是", "含税", "y"}
_FALSE = {"false", "no", "0", "否", "不含税", "n"}


def _boolean(text: str) -> object:
    if not text:
        return None
    if text.lower() in _TRUE:
        return True
    if text.lower() in _FALSE:
        return False
    raise _Bad("true or false (是/否)")


def _rate(decimal: str) -> Callable[[str], object]:
    what = Msg("a tax rate between 0 and 1 (e.g. 0.06 or 6%)")

    def convert(text: str) -> object:
        if not text:
            return None
        value = _number(text.rstrip("%"), what, decimal)
        if text.endswith("%"):
            value = value / 100
        exponent = value.as_tuple().exponent
        if not 0 <= value < 1 or not isinstance(exponent, int) or exponent < -PRICE_PLACES:
            raise _Bad(what)
        return value

    return convert


def _choice(choices: tuple[str, ...]) -> Callable[[str], object]:
    def convert(text: str) -> object:
        if not text:
            return None
        if text.lower() not in choices:
            raise _Bad("one of {names}", names=", ".join(choices))
        return text.lower()

    return convert


def _network(text: str) -> object:
    if not text:
        return None
    value = re.sub(r"\s+", "-", text.strip().lower())
    if not re.fullmatch(r"(ib|roce|eth)(-[0-9a-z.]+)*", value):
        raise _Bad("a node network such as ib-400g, roce-200g or eth-25g")
    return value


def _time_of_use(text: str) -> object:
    if not text:
        return ""
    from comparator.domain.calendar import parse_time_of_use

    try:
        parse_time_of_use(text)
    except (SuanliError, ArithmeticError, ValueError) as exc:
        reason = exc.msg if isinstance(exc, SuanliError) else Msg("{reason}", reason=str(exc))
        raise _Bad(
            "time-of-use rules like '00:00-08:00*0.5; sat-sun*0.8' ({reason})", reason=reason
        ) from None
    return text


def _observed_at(timezone: ZoneInfo) -> Callable[[str], object]:
    def convert(text: str) -> object:
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            try:
                parsed = datetime.combine(date.fromisoformat(text), datetime.min.time())
            except ValueError:
                raise _Bad(
                    "an ISO date or time such as 2026-11-28 or 2026-11-28T10:00+08:00"
                ) from None
        aware = parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone)
        try:
            in_range = OBSERVED_RANGE[0] <= aware.astimezone(UTC) < OBSERVED_RANGE[1]
        except (OverflowError, ValueError):
            in_range = False
        if not in_range:
            raise _Bad("a date between 1990 and 2199")
        return aware

    return convert


def _text(text: str) -> object:
    return text


def _provider(known: KnownCatalog) -> Callable[[str], object]:
    def convert(text: str) -> object:
        if text not in known.regions:
            problem = id_problem(text) if text else None
            if problem is not None:  # a look-alike or invisible character: say which
                raise _Bad(problem)
            if not known.regions:
                raise _Bad("a provider id whose profile was imported (none imported yet)")
            names = ", ".join(sorted(known.regions))
            raise _Bad("a provider id whose profile was imported (known: {names})", names=names)
        return text

    return convert


def column_checks(
    known: KnownCatalog, timezone: ZoneInfo, decimal: str = "."
) -> Mapping[str, ColumnCheck]:
    """One check per column, in the order the values are needed; ``decimal``: "." or ","."""
    return {
        "provider": _by_unique("provider", _provider(known)),
        "region": _by_unique("region", lambda t: _required(t, "a data-centre id")),
        "gpu": _by_unique("gpu", _gpu),
        "cards": _by_unique("cards", _integer("cards", 1, decimal), _plain_integers("cards", 1)),
        "node_cards": _by_unique(
            "node_cards", _integer("node_cards", 8, decimal), _plain_integers("node_cards", 8)
        ),
        "billing": _by_unique("billing", _billing),
        "price": _by_unique("price", _price(decimal), _plain_prices if decimal == "." else None),
        "currency": _by_unique("currency", _currency),
        "time_of_use": _by_unique("time_of_use", _time_of_use),
        "stock": _by_unique(
            "stock", _integer("stock", None, decimal), _plain_integers("stock", None)
        ),
        "min_units": _by_unique(
            "min_units", _integer("min_units", 1, decimal), _plain_integers("min_units", 1)
        ),
        "interconnect": _by_unique("interconnect", _choice(("nvlink", "pcie", "hccs"))),
        "network": _by_unique("network", _network),
        "tax_inclusive": _by_unique("tax_inclusive", _boolean),
        "vat_rate": _by_unique("vat_rate", _rate(decimal)),
        "free_trial_hours": _by_unique(
            "free_trial_hours",
            _integer("free_trial_hours", 0, decimal),
            _plain_integers("free_trial_hours", 0),
        ),
        "observed_at": _by_unique("observed_at", _observed_at(timezone)),
        "source": _by_unique("source", _text),
        "sku": _by_unique("sku", _text),
    }


def rows_where(column: list[object], predicate: Callable[[object], bool]) -> np.ndarray:
    """A boolean mask of the rows whose value satisfies ``predicate``, asked once per value."""
    codes, uniques = pd.factorize(objects(column))  # None is code -1: the last answer
    return np.array([*(predicate(u) for u in uniques), predicate(None)], dtype=bool)[codes]


def objects(column: list[object]) -> np.ndarray:
    """A column as a NumPy object array (never split into dimensions, whatever the values)."""
    array = np.empty(len(column), dtype=object)
    array[:] = column
    return array


_VAT_CNY, _VAT_OTHER = Decimal("0.06"), Decimal(0)


def fill_tax_defaults(values: dict[str, list[object]]) -> list[str]:
    """Tax basis defaults (billing.md): CNY prices include 6 % VAT unless the sheet says so.
    The names of the columns it filled in."""
    is_cny = rows_where(values["currency"], lambda c: c == "CNY")
    filled: list[str] = []
    for name, if_cny, otherwise in (
        ("tax_inclusive", True, False),
        ("vat_rate", _VAT_CNY, _VAT_OTHER),
    ):
        column = objects(values[name])
        missing = rows_where(values[name], lambda v: v is None)
        if missing.any():
            column[missing & is_cny] = if_cny
            column[missing & ~is_cny] = otherwise
            values[name] = column.tolist()
            filled.append(name)
    return filled
