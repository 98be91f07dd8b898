"""Typed reading of one table of a provider profile, with errors that name file and field."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any, NoReturn

from comparator.domain.ids import id_problem
from comparator.domain.money import parse_decimal
from comparator.domain.provinces import canonical_city, canonical_province
from comparator.errors import Msg, ProfileError, as_msg

NATIONWIDE = "全国"
MAX_TEXT = 1_000  # characters of any text field
MAX_ID = 64  # characters of a provider id (data-centre ids: 128)
INT_RANGE = (-(2**31), 2**31 - 1)  # what a 32-bit INTEGER column holds
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
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

    def fail(self, key: str, expected: str | Msg, got: object = None) -> NoReturn:
        place = f"{self.where} {key}".strip()
        text = "" if got is None else repr(got)
        if len(text) > 80:
            text = f"{text[:80]}… ({len(text)})"
        if not text:
            raise ProfileError(
                "{path}: {place}: expected {expected}",
                path=self.source,
                place=place,
                expected=as_msg(expected),
            )
        raise ProfileError(
            "{path}: {place}: expected {expected} (got {got})",
            path=self.source,
            place=place,
            expected=as_msg(expected),
            got=text,
        )

    def known(self, allowed: Sequence[str]) -> Fields:
        for key in self.data:
            if key not in allowed:
                place = f"{self.where} {key}".strip()
                raise ProfileError(
                    "{path}: {place}: unknown field; expected one of {names}",
                    path=self.source,
                    place=place,
                    names=", ".join(allowed),
                )
        return self

    # --- tables -------------------------------------------------------------------------
    def table(self, key: str) -> Fields | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, Mapping):
            self.fail(key, Msg("a [{key}] table", key=key), value)
        return Fields(value, self.source, f"[{key}]")

    def tables(self, key: str) -> list[Fields]:
        value = self.data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
            self.fail(key, Msg("an array of tables [[{key}]]", key=key), value)
        return [Fields(v, self.source, f"[[{key}]] #{i}") for i, v in enumerate(value, 1)]

    # --- scalars ------------------------------------------------------------------------
    def optional_str(self, key: str) -> str | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            self.fail(key, "a string", value)
        self._storable(key, value)
        return value.strip() or None

    def _storable(self, key: str, value: str) -> None:
        if len(value) > MAX_TEXT:
            self.fail(key, Msg("text of at most {count} characters", count=MAX_TEXT), value)
        if _UNSTORABLE.search(value):
            self.fail(key, "text without NUL bytes or unpaired surrogates", value)

    def required_str(self, key: str) -> str:
        value = self.optional_str(key)
        if value is None:
            self.fail(key, "a non-empty string", "missing")
        return value

    def identifier(self, key: str, max_length: int = MAX_ID) -> str:
        value = self.required_str(key)
        if any(ch.isspace() for ch in value):
            self.fail(key, "an id without spaces", value)
        if len(value) > max_length:
            self.fail(key, Msg("an id of at most {count} characters", count=max_length), value)
        problem = id_problem(value)
        if problem is not None:
            self.fail(key, problem, value)
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
        low = INT_RANGE[0] if minimum is None else minimum
        high = INT_RANGE[1] if maximum is None else maximum
        if not low <= value <= high:
            self.fail(key, Msg("a whole number from {low} to {high}", low=low, high=high), value)
        return value

    def optional_decimal(self, key: str) -> Decimal | None:
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            self.fail(key, "a number", value)
        number = parse_decimal(value)
        if number is None:
            self.fail(key, "a number written with a decimal point, such as 1000000.50", value)
        if number < 0:
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
            self.fail(key, Msg("one of {names}", names=", ".join(choices)), value)
        return value

    def str_list(self, key: str) -> tuple[str, ...]:
        value = self.data.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(key, "a list of strings", value)
        for item in value:
            self._storable(key, item)
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
            self.fail(key, "a mainland province name or 简称 (short name, e.g. 广东 or 粤)", value)
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
