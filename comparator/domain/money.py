"""Money: ``Decimal`` everywhere, one rounding rule, dated FX conversion."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

CENT = Decimal("0.01")


def parse_decimal(text: object) -> Decimal | None:
    """A finite Decimal from a sheet cell (str/int/Decimal), or None when it is not a number."""
    if isinstance(text, bool):
        return None
    if isinstance(text, float):
        text = repr(text)
    try:
        value = Decimal(str(text).strip().replace(",", ""))
    except (InvalidOperation, ValueError):
        return None
    return value if value.is_finite() else None


def round_money(amount: Decimal) -> Decimal:
    """Round once to 0.01, half up (billing.md)."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def money_str(amount: Decimal) -> str:
    """A decimal string with two places, as the contract writes money."""
    return f"{round_money(amount):.2f}"


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
