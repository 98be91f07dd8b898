"""Money: ``Decimal`` everywhere, one rounding rule, dated FX conversion."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

CENT = Decimal("0.01")
MAX_NUMBER_TEXT = 64  # characters of a number as written
MAX_MAGNITUDE = 40  # |exponent| of a number's leading digit: 1e-40 … 9.99e40
_POINT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?")
_COMMA = re.compile(r"[+-]?(?:[0-9]{1,3}(?:\.[0-9]{3})+|[0-9]+)(?:,[0-9]+)?")


def parse_decimal(text: object, decimal_mark: str = ".") -> Decimal | None:
    """A finite Decimal from a sheet cell (str/int/Decimal), or None when it is not a number.

    Digits as people write them (full-width ``１２`` too) with ``decimal_mark``: ``"."`` (the
    default; a comma is then not a number, never a thousands separator read as ×1000) or
    ``","`` (``1,5`` or ``1.234,56``). The value comes back in canonical form (``1E+2`` →
    ``100``), so SQLite's text and PostgreSQL's NUMERIC hold the same digits. Numbers beyond
    1e±40 or written in more than 64 characters are refused before any arithmetic. A signed
    zero (``-0``, ``-0.0``) is zero: it comes back unsigned, so ``-0`` is never stored as text.
    """
    if isinstance(text, bool):
        return None
    if isinstance(text, float):
        text = repr(text)
    if isinstance(text, int) and abs(text) >= 10**MAX_MAGNITUDE:
        return None
    raw = str(text)
    if len(raw) > MAX_NUMBER_TEXT * 4:
        return None
    written = unicodedata.normalize("NFKC", raw).strip()
    if len(written) > MAX_NUMBER_TEXT:
        return None
    if decimal_mark == ",":
        if not _COMMA.fullmatch(written):
            return None
        written = written.replace(".", "").replace(",", ".")
    elif not (_POINT.fullmatch(written) or isinstance(text, Decimal)):
        return None
    try:
        value = Decimal(written)
    except (InvalidOperation, ValueError):
        return None
    if not value.is_finite() or (value and abs(value.adjusted()) > MAX_MAGNITUDE):
        return None
    canonical = Decimal(f"{value:f}")
    return canonical.copy_abs() if canonical.is_zero() else canonical  # -0 is stored as 0


def round_money(amount: Decimal) -> Decimal:
    """Round once to 0.01, half up (billing.md)."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def money_str(amount: Decimal) -> str:
    """A decimal string with two places, as the contract writes money."""
    return f"{round_money(amount):.2f}"


CURRENCY_SYMBOLS = {"CNY": "¥", "USD": "US$", "EUR": "€", "HKD": "HK$", "JPY": "JP¥"}


def money_text(amount: Decimal | int | float | str, currency: str = "CNY") -> str:
    """Money as people read it, the one format of the CLI and the reports: ``¥4,608.00``.

    Rounded once to the cent, thousands grouped; other currencies by their symbol (``US$``)
    or their ISO code and a space. A sheet's precision (``71.1111``) never shows.
    """
    value = round_money(Decimal(str(amount)))
    symbol = CURRENCY_SYMBOLS.get(currency.upper(), f"{currency.upper()} ")
    sign = "-" if value < 0 else ""
    return f"{sign}{symbol}{abs(value):,.2f}"


@dataclass(frozen=True)
class FxTable:
    """Rates as the CNY price of one unit of each currency, read on ``as_of``."""

    rates_cny: dict[str, Decimal]
    as_of: date

    def knows(self, currency: str) -> bool:
        return currency.upper() in self.rates_cny

    def convert(self, amount: Decimal, from_currency: str, to_currency: str) -> Decimal:
        """``amount`` in ``from_currency`` expressed in ``to_currency`` (not rounded)."""
        src, dst = from_currency.upper(), to_currency.upper()
        if src == dst:
            return amount
        return amount * self.rates_cny[src] / self.rates_cny[dst]

    def rate(self, from_currency: str, to_currency: str) -> Decimal:
        return self.convert(Decimal(1), from_currency, to_currency)
