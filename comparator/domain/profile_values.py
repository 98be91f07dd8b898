"""The values of a provider profile as pydantic types: each checks a value the way a person
writes it in TOML (or the JSON the catalog stores) and gives the value the profile holds.

A check that fails raises :func:`~comparator.domain.input_model.bad` with what was expected in
the catalogue's words; :mod:`comparator.domain.profile_model` declares the tables with these
types, and :func:`~comparator.domain.input_model.render_errors` names the file, table and key.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BeforeValidator, TypeAdapter, WithJsonSchema

from comparator.domain.credentials import identify_number
from comparator.domain.ids import id_problem
from comparator.domain.input_model import bad
from comparator.domain.money import parse_decimal
from comparator.domain.provinces import canonical_city, canonical_province
from comparator.errors import Msg

NATIONWIDE = "全国"
COVERAGE_TEXT = "provinces or province-city entries such as 广东 or 江苏-常州"
MAX_TEXT = 1_000  # characters of any text field
MAX_ID = 64  # characters of a provider id (data-centre ids: 128)
INT_RANGE = (-(2**31), 2**31 - 1)  # what a 32-bit INTEGER column holds
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_SERVICE_RE = re.compile(r"^[AB]\d{1,2}(?:-\d)?$")
_COUNTRY_WORDS = {"中国": "CN", "中国大陆": "CN", "香港": "HK", "澳门": "MO", "台湾": "TW"}
NUMBER_KINDS = {
    "licence": Msg("a telecom licence number ([[licenses]] number)"),
    "icp_license": Msg(
        "an ICP licence number ([[licenses]] number or [[filings]] kind icp_license)"
    ),
    "icp_filing": Msg("an ICP filing ([[filings]] kind icp_filing)"),
    "gongan": Msg("a 公安备案 (public security filing) number ([[filings]] kind gongan)"),
    "uscc": Msg("a USCC ([provider] uscc)"),
}


def _storable(value: str) -> str:
    if len(value) > MAX_TEXT:
        raise bad(Msg("text of at most {count} characters", count=MAX_TEXT), value)
    if _UNSTORABLE.search(value):
        raise bad(Msg("text without NUL bytes or unpaired surrogates"), value)
    return value


def optional_text(value: object) -> str | None:
    """A string, stripped; empty as not given."""
    if type(value) is str and len(value) <= MAX_TEXT and not _UNSTORABLE.search(value):
        return value.strip() or None  # the common case, in one test (profiles come in bulk)
    if value is None:
        return None
    if not isinstance(value, str):
        raise bad(Msg("a string"), value)
    return _storable(value).strip() or None


def _required_text(value: object) -> str:
    text = optional_text(value)
    if text is None:
        raise bad(Msg("a non-empty string"), value)
    return text


def identifier(max_length: int) -> BeforeValidator:
    """An id without spaces, look-alike letters or control characters, at most ``max_length``."""

    def check(value: object) -> str:
        text = _required_text(value)
        if any(ch.isspace() for ch in text):
            raise bad(Msg("an id without spaces"), text)
        if len(text) > max_length:
            raise bad(Msg("an id of at most {count} characters", count=max_length), text)
        problem = id_problem(text)
        if problem is not None:
            raise bad(problem, text)
        return text

    return BeforeValidator(check)


def _flag(value: object) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise bad(Msg("true or false"), value)
    return value


def whole(low: int = INT_RANGE[0], high: int = INT_RANGE[1]) -> BeforeValidator:
    """A whole number from ``low`` to ``high`` (a 32-bit column's range by default)."""

    def check(value: object) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad(Msg("a whole number"), value)
        if not low <= value <= high:
            raise bad(Msg("a whole number from {low} to {high}", low=low, high=high), value)
        return value

    return BeforeValidator(check)


def amount(value: object) -> Decimal | None:
    """A non-negative number, written as TOML number or as its digits in a string."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise bad(Msg("a number"), value)
    number = parse_decimal(value)
    if number is None:
        raise bad(Msg("a number written with a decimal point, such as 1000000.50"), value)
    if number < 0:
        raise bad(Msg("a non-negative number"), value)
    return number


def _day(value: object) -> date | None:
    if value is None or (isinstance(value, date) and not isinstance(value, datetime)):
        return value
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise bad(Msg("a date YYYY-MM-DD"), value)


def texts(value: object) -> tuple[str, ...]:
    """A list of strings (or one string), stripped, empty ones dropped."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise bad(Msg("a list of strings"), value)
    for item in value:
        if len(item) > MAX_TEXT or _UNSTORABLE.search(item):
            _storable(item)
    return tuple(stripped for stripped in (v.strip() for v in value) if stripped)


def _country(value: object) -> str | None:
    text = optional_text(value)
    if text is None:
        return None
    code = _COUNTRY_WORDS.get(text, text.upper())
    if not re.fullmatch(r"[A-Z]{2}", code):
        raise bad(Msg("an ISO 3166 two-letter country code such as CN or US"), text)
    return code


def _province(value: object) -> str | None:
    text = optional_text(value)
    if text is None:
        return None
    name = canonical_province(text)
    if name is None:
        expected = Msg("a mainland province name or 简称 (short name, e.g. 广东 or 粤)")
        raise bad(expected, text)
    return name


def _city(value: object) -> str | None:
    text = optional_text(value)
    return canonical_city(text) if text is not None else None


def _services(value: object) -> tuple[str, ...]:
    codes = tuple(unicodedata.normalize("NFKC", c).upper() for c in texts(value))
    for code in codes:
        if not _SERVICE_RE.match(code):
            raise bad(Msg("service codes such as B11, B12, B14"), code)
    return codes


def _coverage(value: object) -> tuple[str, ...]:
    return tuple(_coverage_item(item) for item in texts(value))


def _coverage_item(item: str) -> str:
    if item == NATIONWIDE:
        return item
    parts = re.split(r"[-－·/]", item, maxsplit=1)
    city_text = parts[1] if len(parts) > 1 else ""
    province = canonical_province(parts[0])
    if province is None:
        raise bad(Msg(COVERAGE_TEXT), item)
    return f"{province}-{canonical_city(city_text)}" if city_text else province


def _timezone(value: object) -> str | None:
    name = optional_text(value)
    if name is None:
        return None
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name too long for a path
        raise bad(Msg("an IANA time zone such as Asia/Shanghai"), name) from None
    return name


def wrong_number(number: str, *allowed: str) -> Msg | None:
    """Why ``number`` is not one of the ``allowed`` kinds (it clearly is another), or None."""
    kind = identify_number(number)
    if kind is None or kind in allowed:
        return None
    return Msg(
        "{wanted}, but this is {found}", wanted=NUMBER_KINDS[allowed[0]], found=NUMBER_KINDS[kind]
    )


def credential_number(*allowed: str) -> BeforeValidator:
    """A credential number, refused when it clearly is another kind of number."""

    def check(value: object) -> str | None:
        number = optional_text(value)
        if number is None:
            return None
        problem = wrong_number(number, *allowed)
        if problem is not None:
            raise bad(problem, number)
        return number

    return BeforeValidator(check)


def _discount(value: object) -> Decimal | None:
    factor = amount(value)
    if factor is not None and not 0 < factor <= 1:
        raise bad(Msg("a factor above 0 and at most 1 (0.9 = 10% off)"), factor)
    return factor


def _upload(value: object) -> Decimal | None:
    gbps = amount(value)
    if gbps is not None and gbps <= 0:
        raise bad(Msg("a positive bandwidth in Gbit/s"), gbps)
    return gbps


def _sla(value: object) -> Decimal | None:
    percent = amount(value)
    if percent is not None and not 0 < percent <= 100:
        raise bad(Msg("an availability in percent above 0 and at most 100"), percent)
    return percent


def _currency(value: object) -> str | None:
    text = optional_text(value)
    return None if text is None else text.upper()


_NUMBER: dict[str, Any] = {"anyOf": [{"type": "number", "minimum": 0}, {"type": "string"}]}
_TEXTS: dict[str, Any] = {
    "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]
}
_DATE: dict[str, Any] = {"type": "string", "format": "date"}
Text = Annotated[str | None, BeforeValidator(optional_text)]
RequiredText = Annotated[str, BeforeValidator(_required_text)]
Flag = Annotated[bool | None, BeforeValidator(_flag)]
Amount = Annotated[Decimal | None, BeforeValidator(amount), WithJsonSchema(_NUMBER)]
Day = Annotated[date | None, BeforeValidator(_day), WithJsonSchema(_DATE)]
Texts = Annotated[tuple[str, ...], BeforeValidator(texts), WithJsonSchema(_TEXTS)]
Country = Annotated[str | None, BeforeValidator(_country)]
Province = Annotated[str | None, BeforeValidator(_province)]
City = Annotated[str | None, BeforeValidator(_city)]
Services = Annotated[tuple[str, ...], BeforeValidator(_services), WithJsonSchema(_TEXTS)]
Coverage = Annotated[tuple[str, ...], BeforeValidator(_coverage), WithJsonSchema(_TEXTS)]
Timezone = Annotated[str | None, BeforeValidator(_timezone)]
Discount = Annotated[Decimal | None, BeforeValidator(_discount), WithJsonSchema(_NUMBER)]
Upload = Annotated[Decimal | None, BeforeValidator(_upload), WithJsonSchema(_NUMBER)]
Sla = Annotated[Decimal | None, BeforeValidator(_sla), WithJsonSchema(_NUMBER)]
Currency = Annotated[str | None, BeforeValidator(_currency)]


def stored_discount(value: object) -> str | None:
    """A profile's ``[provider] discount`` (as its document states it) as the catalog keeps it
    beside the document (``provider.discount``): the field's value as text, which
    ``Decimal`` reads back unchanged; None when none is stated or the value is refused."""
    try:
        found = _discount_adapter().validate_python(value)
    except ValueError:
        return None
    return None if found is None else str(found)


@functools.cache
def _discount_adapter() -> TypeAdapter[Decimal | None]:
    return TypeAdapter(Discount)
