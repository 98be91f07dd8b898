"""Typed fields of a job file: each read raises :class:`JobFileError` naming file and field."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from comparator.domain.gpus import resolve_gpu
from comparator.domain.money import parse_decimal
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.errors import JobFileError, Msg, UnknownGpuError, as_msg


class FieldReader:
    """Reads fields of one job file and raises :class:`JobFileError` naming file and field."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, expected: str | Msg, got: object = None) -> JobFileError:
        params: dict[str, Any] = {"path": self.source, "key": key, "expected": as_msg(expected)}
        if got is None:
            return JobFileError("{path}: {key}: expected {expected}", **params)
        return JobFileError("{path}: {key}: expected {expected} (got {got!r})", got=got, **params)

    def table(self, data: Mapping[str, Any], key: str) -> Mapping[str, Any] | None:
        value = data.get(key)
        if value is not None and not isinstance(value, Mapping):
            raise self.fail(f"[{key}]", "a table")
        return value

    def reject_unknown(self, data: Mapping[str, Any], allowed: set[str], where: str) -> None:
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise self.fail(
                f"{where}{unknown[0]}",
                Msg("one of {names}", names=", ".join(sorted(allowed))),
                unknown[0],
            )

    def text(self, data: Mapping[str, Any], key: str, where: str) -> str | None:
        value = data.get(key)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise self.fail(where + key, "a non-empty string", value)
        return value.strip() if isinstance(value, str) else None

    def flag(self, data: Mapping[str, Any], key: str, where: str, default: bool) -> bool:
        value = data.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(where + key, "true or false", value)
        return value

    def whole(self, data: Mapping[str, Any], key: str, where: str, low: int) -> int | None:
        value = data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise self.fail(where + key, Msg("a whole number ≥ {low}", low=low), value)
        return value

    def positive(self, data: Mapping[str, Any], key: str, where: str) -> Decimal | None:
        value = data.get(key)
        if value is None:
            return None
        number = parse_decimal(value) if isinstance(value, int | float | str) else None
        if number is None or number <= 0:
            raise self.fail(where + key, "a positive number", value)
        return number

    def strings(self, data: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
        value = data.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise self.fail(where + key, "a list of strings", value)
        return tuple(v.strip() for v in value)

    def moment(self, data: Mapping[str, Any], key: str, where: str) -> datetime:
        value = data.get(key)
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value)
            except ValueError:
                raise self.fail(where + key, "an ISO date-time", value) from None
        if isinstance(value, date) and not isinstance(value, datetime):
            value = datetime.combine(value, time())
        if not isinstance(value, datetime):
            raise self.fail(where + key, "a date-time like 2026-12-01T00:00:00+08:00", value)
        return value if value.tzinfo else value.replace(tzinfo=DEFAULT_TIMEZONE)

    def gpu(self, name: str, key: str) -> str:
        try:
            return resolve_gpu(name).name
        except UnknownGpuError as exc:
            raise JobFileError(
                "{path}: {key}: {reason}", path=self.source, key=key, reason=exc.msg
            ) from None
