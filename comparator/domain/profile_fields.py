"""Typed reading of one table of a provider profile, with errors that name file and field."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, NoReturn

from comparator.domain.provinces import canonical_city, canonical_province
from comparator.errors import ProfileError

NATIONWIDE = "全国"
_SERVICE_RE = re.compile(r"^[AB]\d{1,2}(?:-\d)?$")
_COUNTRY_WORDS = {"中国": "CN", "中国大陆": "CN", "香港": "HK", "澳门": "MO", "台湾": "TW"}


class Fields:
    """One table (``[provider]``, one ``[[licenses]]`` entry…) of a profile being parsed."""

    def __init__(
        self, data: Mapping[str, Any], source: str, where: str, allowed: Sequence[str] = ()
    ) -> None:
        self.data = data
        self.source = source
        self.where = where
        if allowed:
            self.known(allowed)

    def fail(self, key: str, expected: str, got: object = None) -> NoReturn:
        place = f"{self.where} {key}".strip()
        shown = "" if got is None else f" (got {got!r})"
        raise ProfileError(f"{self.source}: {place}: expected {expected}{shown}")

    def known(self, allowed: Sequence[str]) -> Fields:
        for key in self.data:
            if key not in allowed:
                place = f"{self.where} {key}".strip()
                raise ProfileError(
                    f"{self.source}: {place}: unknown field; expected one of {', '.join(allowed)}"
                )
        return self

    # --- tables -------------------------------------------------------------------------
    def table(self, key: str) -> Fields | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, Mapping):
            self.fail(key, f"a [{key}] table", value)
        return Fields(value, self.source, f"[{key}]")

    def tables(self, key: str) -> list[Fields]:
        value = self.data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
            self.fail(key, f"an array of tables [[{key}]]", value)
        return [Fields(v, self.source, f"[[{key}]] #{i}") for i, v in enumerate(value, 1)]

    # --- scalars ------------------------------------------------------------------------
    def optional_str(self, key: str) -> str | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            self.fail(key, "a string", value)
        return value.strip() or None

    def required_str(self, key: str) -> str:
        value = self.optional_str(key)
        if value is None:
            self.fail(key, "a non-empty string", "missing")
        return value

    def identifier(self, key: str) -> str:
        value = self.required_str(key)
        if any(ch.isspace() for ch in value):
            self.fail(key, "an id without spaces", value)
        return value

    def optional_bool(self, key: str) -> bool | None:
        value = self.data.get(key)
        if value is not None and not isinstance(value, bool):
            self.fail(key, "true or false", value)
        return value

    def optional_int(
        self, key: str, minimum: int | None = None, maximum: int | None = None
    ) -> int | None:
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, "a whole number", value)
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            self.fail(key, f"a whole number from {minimum} to {maximum}", value)
        return value

    def optional_decimal(self, key: str) -> Decimal | None:
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            self.fail(key, "a number", value)
        try:
            number = Decimal(str(value).replace(",", "").strip())
        except InvalidOperation:
            self.fail(key, "a number", value)
        if not number.is_finite() or number < 0:
            self.fail(key, "a non-negative number", value)
        return number

    def optional_date(self, key: str) -> date | None:
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, datetime):
            return value.date()
        if isinstance(value, date):
            return value
        if isinstance(value, str):
            try:
                return date.fromisoformat(value.strip())
            except ValueError:
                pass
        self.fail(key, "a date YYYY-MM-DD", value)

    def choice(self, key: str, choices: Sequence[str]) -> str:
        value = self.required_str(key)
        if value not in choices:
            self.fail(key, f"one of {', '.join(choices)}", value)
        return value

    def str_list(self, key: str) -> tuple[str, ...]:
        value = self.data.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(key, "a list of strings", value)
        return tuple(v.strip() for v in value if v.strip())

    # --- domain values ------------------------------------------------------------------
    def country(self, key: str, default: str) -> str:
        value = self.optional_str(key)
        if value is None:
            return default
        code = _COUNTRY_WORDS.get(value, value.upper())
        if not re.fullmatch(r"[A-Z]{2}", code):
            self.fail(key, "an ISO 3166 two-letter country code such as CN or US", value)
        return code

    def province(self, key: str) -> str | None:
        value = self.optional_str(key)
        if value is None:
            return None
        name = canonical_province(value)
        if name is None:
            self.fail(key, "a mainland province name or 简称 (e.g. 广东 or 粤)", value)
        return name

    def city(self, key: str) -> str | None:
        value = self.optional_str(key)
        return canonical_city(value) if value is not None else None

    def service_codes(self, key: str) -> tuple[str, ...]:
        codes = tuple(unicodedata.normalize("NFKC", c).upper() for c in self.str_list(key))
        for code in codes:
            if not _SERVICE_RE.match(code):
                self.fail(key, "service codes such as B11, B12, B14", code)
        return codes

    def coverage(self, key: str) -> tuple[str, ...]:
        return tuple(self._coverage_item(key, item) for item in self.str_list(key))

    def _coverage_item(self, key: str, item: str) -> str:
        if item == NATIONWIDE:
            return item
        parts = re.split(r"[-－·/]", item, maxsplit=1)
        province_text = parts[0]
        city_text = parts[1] if len(parts) > 1 else ""
        province = canonical_province(province_text)
        if province is None:
            self.fail(key, "provinces or province-city entries such as 广东 or 江苏-常州", item)
        return f"{province}-{canonical_city(city_text)}" if city_text else province
