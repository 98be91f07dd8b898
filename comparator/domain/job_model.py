"""The job file as pydantic models: every key, its type and its check, and the JSON Schema.

:func:`comparator.domain.job.parse_job` validates a parsed TOML document with :class:`JobFile`
and builds the :class:`~comparator.domain.job.Job` the planner reads. ``suanli schema job``
prints :func:`job_schema`. Errors name the file, the table and the key in the catalogue's words
(:mod:`comparator.domain.input_model`).
"""

from __future__ import annotations

from datetime import date, datetime, time
from decimal import Decimal
from functools import lru_cache
from typing import Annotated, Any

from pydantic import BeforeValidator, ConfigDict, Field, WithJsonSchema, model_validator

from comparator.domain.calendar import TouRule, parse_rule
from comparator.domain.geo import CITY_COORDINATES, known_city
from comparator.domain.gpus import resolve_gpu
from comparator.domain.input_model import FileTable, bad, reason
from comparator.domain.job_service import support_hours
from comparator.domain.limits import (
    MAX_CARD_HOURS,
    MAX_DATA_GB,
    MAX_JOB_CARDS,
    MAX_RESTART_OVERHEAD_HOURS,
    MAX_WINDOW_DAYS,
)
from comparator.domain.money import parse_decimal
from comparator.domain.provinces import canonical_province
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.errors import CalendarError, Msg, UnknownGpuError

EXPORT_BASES = ("exempt", "standard_contract", "certified", "cac_assessed")


@lru_cache(maxsize=64)
def window_rules(windows: tuple[str, ...]) -> tuple[TouRule, ...]:
    """Run windows read with the time-of-use grammar (``[DAYS] [HH:MM-HH:MM]``, no factor)."""
    return tuple(
        parse_rule(f"{w} *1", where="schedule.run_windows", index=i)
        for i, w in enumerate(windows, 1)
    )


# --- value checks: the value as TOML gives it → the value the Job holds --------------------


def _support(value: object) -> str:
    """Round-the-clock support, however the job writes it."""
    if not isinstance(value, str) or support_hours(value) != "7x24":
        raise bad(Msg('"7x24" (round-the-clock support)'), value)
    return "7x24"


def _latency_from(value: object) -> str:
    """A city of :data:`~comparator.domain.geo.CITY_COORDINATES`."""
    city = known_city(value) if isinstance(value, str) and value.strip() else None
    if city is None:
        names = "、".join(list(CITY_COORDINATES)[:8]) + "…"
        raise bad(Msg("a city such as {names}", names=names), value)
    return city


def _text(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise bad(Msg("a non-empty string"), value)
    return value.strip()


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise bad(Msg("true or false"), value)
    return value


def _whole(low: int, high: int | None = None) -> BeforeValidator:
    def check(value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise bad(Msg("a whole number ≥ {low}", low=low), value)
        if high is not None and value > high:
            raise bad(Msg("a whole number from {low} to {high}", low=low, high=high), value)
        return value

    return BeforeValidator(check)


def _positive(value: object) -> Decimal:
    number = parse_decimal(value) if isinstance(value, int | float | str) else None
    if number is None or number <= 0:
        raise bad(Msg("a positive number"), value)
    return number


def _at_most(high: int, hint: Msg) -> BeforeValidator:
    """A positive number no larger than ``high`` (beyond it a typo: :mod:`.limits`)."""

    def check(value: object) -> Decimal:
        number = _positive(value)
        if number > high:
            raise bad(Msg("a positive number up to {high:,}", high=high), value, hint=hint)
        return number

    return BeforeValidator(check)


def _strings(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise bad(Msg("a list of strings"), value)
    return tuple(v.strip() for v in value)


def _moment(value: object) -> datetime:
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise bad(Msg("an ISO date-time"), value) from None
    if isinstance(value, date) and not isinstance(value, datetime):
        value = datetime.combine(value, time())
    if not isinstance(value, datetime):
        raise bad(Msg("a date-time like 2026-12-01T00:00:00+08:00"), value)
    return value if value.tzinfo else value.replace(tzinfo=DEFAULT_TIMEZONE)


def _gpu(value: object) -> str:
    name = _text(value)
    try:
        return resolve_gpu(name).name
    except UnknownGpuError as exc:
        raise reason(exc.msg) from None


def _gpus(value: object) -> tuple[str, ...]:
    return tuple(_gpu(name) for name in _strings(value))


def _provinces(value: object) -> tuple[str, ...]:
    names = []
    for text in _strings(value):
        canonical = canonical_province(text)
        if canonical is None:
            raise bad(Msg("a mainland province name or 简称 (short name)"), text)
        names.append(canonical)
    return tuple(names)


def _windows(value: object) -> tuple[str, ...]:
    windows = _strings(value)
    try:
        window_rules(windows)
    except CalendarError as exc:
        raise bad(Msg("windows like 'mon-fri 09:00-18:00' ({reason})", reason=exc.msg)) from None
    return windows


def _export_basis(value: object) -> str:
    basis = _text(value)
    if basis not in EXPORT_BASES:
        raise bad(Msg("one of {names}", names=", ".join(EXPORT_BASES)), basis)
    return basis


def _currency(value: object) -> str:
    text = _text(value)
    if len(text) != 3 or not text.isalpha():
        raise bad(Msg("an ISO 4217 code like CNY"), text)
    return text.upper()


def _table(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise bad(Msg("a table"), value)
    return dict(value)


_NUMBER_SCHEMA = {"anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "string"}]}
_STRINGS_SCHEMA = {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]}
_MOMENT_SCHEMA = {"type": "string", "format": "date-time"}
Text = Annotated[str, BeforeValidator(_text)]
Flag = Annotated[bool, BeforeValidator(_flag)]
Positive = Annotated[Decimal, BeforeValidator(_positive), WithJsonSchema(_NUMBER_SCHEMA)]
Strings = Annotated[tuple[str, ...], BeforeValidator(_strings), WithJsonSchema(_STRINGS_SCHEMA)]
Moment = Annotated[datetime, BeforeValidator(_moment), WithJsonSchema(_MOMENT_SCHEMA)]
Table = Annotated[dict[str, Any], BeforeValidator(_table)]
_CARD_HOURS_HINT = Msg(
    "10^9 card-hours is over 30 times the largest published training run (Llama 3.1 405B: "
    "30.84M H100 hours); check the unit"
)
_GB_HINT = Msg("sizes are in GB (1 TB = 1000 GB); check the unit")
CardHours = Annotated[
    Decimal, _at_most(MAX_CARD_HOURS, _CARD_HOURS_HINT), WithJsonSchema(_NUMBER_SCHEMA)
]
DataGb = Annotated[Decimal, _at_most(MAX_DATA_GB, _GB_HINT), WithJsonSchema(_NUMBER_SCHEMA)]
JobCards = Annotated[int, _whole(1, MAX_JOB_CARDS)]


Gpus = Annotated[tuple[str, ...], BeforeValidator(_gpus), WithJsonSchema(_STRINGS_SCHEMA)]
Provinces = Annotated[tuple[str, ...], BeforeValidator(_provinces), WithJsonSchema(_STRINGS_SCHEMA)]
Windows = Annotated[tuple[str, ...], BeforeValidator(_windows), WithJsonSchema(_STRINGS_SCHEMA)]
Gpu = Annotated[str, BeforeValidator(_gpu)]


# --- the tables -----------------------------------------------------------------------------


class WorkloadTable(FileTable):
    """``[workload]``: work given directly, as card-hours measured on a reference GPU."""

    card_hours: CardHours = Field(description="a positive number of card-hours")
    gpu: Annotated[str, BeforeValidator(_gpu)] = Field(
        description="the reference GPU the card-hours were measured on"
    )
    cards: JobCards | None = Field(None, description="a whole number ≥ 1")


class ScheduleTable(FileTable):
    """``[schedule]``: when the job may run; naive date-times are read in Asia/Shanghai.
    Either ``earliest_start`` and ``deadline``, or ``days`` from the planning day."""

    model_config = ConfigDict(
        **FileTable.model_config,
        json_schema_extra={
            "oneOf": [{"required": ["earliest_start", "deadline"]}, {"required": ["days"]}]
        },
    )

    earliest_start: Moment | None = Field(
        None, description="a date-time like 2026-12-01T00:00:00+08:00 (or give days)"
    )
    deadline: Moment | None = Field(
        None, description="a date-time like 2026-12-01T00:00:00+08:00 (or give days)"
    )
    days: Annotated[int, _whole(1, MAX_WINDOW_DAYS)] | None = Field(
        None,
        description="a window of this many days from the planning day (instead of "
        "earliest_start and deadline)",
    )
    interruptible: Flag = Field(False, description="true or false")
    restart_overhead_hours: Annotated[int, _whole(0, MAX_RESTART_OVERHEAD_HOURS)] = Field(
        0, description="a whole number ≥ 0"
    )
    run_windows: Windows = Field((), description="windows like 'mon-fri 09:00-18:00'")
    max_hours_per_day: Annotated[int, _whole(1, 24)] | None = Field(
        None, description="a whole number of hours 1–24"
    )

    @model_validator(mode="after")
    def _deadline_after_start(self) -> ScheduleTable:
        if self.days is not None:
            given = [k for k in ("earliest_start", "deadline") if getattr(self, k) is not None]
            if given:
                raise bad(
                    Msg("either days or earliest_start and deadline, not both"),
                    key=f"schedule.{given[0]}",
                    hint=Msg(
                        "keep days = N for a window that starts on the planning day, or the "
                        "two dates for a fixed one"
                    ),
                )
            return self
        for key in ("earliest_start", "deadline"):
            if getattr(self, key) is None:
                raise bad(
                    Msg("a date-time like 2026-12-01T00:00:00+08:00 (or days = N instead)"),
                    key=f"schedule.{key}",
                    hint=Msg(
                        "give earliest_start and deadline, or days = 7 for a week from the "
                        "planning day (--today)"
                    ),
                )
        assert self.earliest_start is not None and self.deadline is not None
        if self.deadline <= self.earliest_start:
            start = self.earliest_start.isoformat()
            raise bad(
                Msg("a time after earliest_start {start}", start=start),
                self.deadline.isoformat(),
                key="schedule.deadline",
            )
        if (self.deadline - self.earliest_start).days > MAX_WINDOW_DAYS:
            raise bad(
                Msg(
                    "a time at most {days} days after earliest_start {start}",
                    days=MAX_WINDOW_DAYS,
                    start=self.earliest_start.isoformat(),
                ),
                self.deadline.isoformat(),
                key="schedule.deadline",
                hint=Msg(
                    "the planner works hour by hour over the window: give the real deadline, "
                    "or plan the job in parts"
                ),
            )
        return self


class RequirementsTable(FileTable):
    """``[requirements]``: what a placement must satisfy; absent keys require nothing."""

    gpus: Gpus = Field((), description="a list of strings")
    provinces: Provinces = Field((), description="a mainland province name or 简称 (short name)")
    cities: Strings = Field((), description="a list of strings")
    certifications: Strings = Field((), description="a list of strings")
    mlps_level: Annotated[int, _whole(1, 5)] | None = Field(None, description="a level from 1 to 5")
    contains_personal_info: Flag = Field(False, description="true or false")
    export_basis: Annotated[str, BeforeValidator(_export_basis)] | None = Field(
        None, description="one of 'exempt', 'standard_contract', 'certified', 'cac_assessed'"
    )
    invoice: Text | None = Field(None, description="a non-empty string")
    spot: Flag = Field(False, description="true or false")
    own_datacenter: Flag = Field(False, description="true or false")
    support: Annotated[str, BeforeValidator(_support)] | None = Field(
        None, description='"7x24" (round-the-clock support)'
    )
    max_support_response_minutes: Annotated[int, _whole(1)] | None = Field(
        None, description="a whole number ≥ 1"
    )
    elastic_scaling: Flag = Field(False, description="true or false")
    max_latency_ms: Positive | None = Field(None, description="a positive number")
    latency_from: Annotated[str, BeforeValidator(_latency_from)] | None = Field(
        None, description="a known city name"
    )

    @model_validator(mode="after")
    def _latency_needs_a_city(self) -> RequirementsTable:
        if self.max_latency_ms is not None and self.latency_from is None:
            raise bad(
                Msg("the city max_latency_ms is measured from"), key="requirements.latency_from"
            )
        return self


class DataTable(FileTable):
    """``[data]``: what the job keeps on the data centre's disks, GB (1 TB = 1000 GB)."""

    dataset_gb: DataGb | None = Field(None, description="a positive number")
    checkpoint_gb: DataGb | None = Field(None, description="a positive number")


class BudgetTable(FileTable):
    """``[budget]``: a cap on the total and on the price per card-hour (tax-inclusive)."""

    max_cost: Positive | None = Field(None, description="a positive number")
    max_price_per_card_hour: Positive | None = Field(None, description="a positive number")
    use_free_trial: Flag = Field(False, description="true or false")


def _day(value: object) -> date:
    if isinstance(value, datetime):
        return value.date()
    if not isinstance(value, date):
        raise bad(Msg("a date like 2026-11-20"), value)
    return value


class CalibrationTable(FileTable):
    """``[calibration]``: a measured trial run on one GPU × cards."""

    gpu: Gpu = Field(description="the GPU the trial ran on, like A100-80G")
    cards: JobCards = Field(description="the number of cards the trial ran on")
    tokens_per_s_per_card: Positive | None = Field(None, description="a positive number")
    step_time_s: Positive | None = Field(None, description="a positive number")
    micro_batch: Annotated[int, _whole(1)] | None = Field(None, description="a whole number ≥ 1")
    seq_len: Annotated[int, _whole(1)] | None = Field(None, description="a whole number ≥ 1")
    gradient_accumulation: Annotated[int, _whole(1)] = Field(1, description="a whole number ≥ 1")
    stack: Text | None = Field(None, description="a non-empty string")
    measured_on: Annotated[date, BeforeValidator(_day)] | None = Field(
        None, description="a date like 2026-11-20"
    )
    note: Text | None = Field(None, description="a non-empty string")

    @model_validator(mode="after")
    def _one_speed(self) -> CalibrationTable:
        if (self.tokens_per_s_per_card is None) == (self.step_time_s is None):
            raise bad(
                Msg(
                    "tokens_per_s_per_card, or step_time_s with micro_batch and seq_len "
                    "(one of them)"
                ),
                key="calibration.tokens_per_s_per_card",
            )
        if self.step_time_s is not None and (self.micro_batch is None or self.seq_len is None):
            raise bad(
                Msg("micro_batch and seq_len beside step_time_s"), key="calibration.micro_batch"
            )
        return self

    def tokens_per_s(self) -> Decimal:
        if self.tokens_per_s_per_card is not None:
            return self.tokens_per_s_per_card
        assert self.step_time_s is not None and self.micro_batch and self.seq_len
        tokens = self.micro_batch * self.seq_len * self.gradient_accumulation
        return Decimal(tokens) / self.step_time_s


class JobFile(FileTable):
    """A job file: what to train (``[workload]``, or ``[model]`` + ``[training]``), by when
    (``[schedule]``) and under which requirements."""

    name: Text | None = Field(None, description="a non-empty string")
    currency: Annotated[str, BeforeValidator(_currency)] = Field(
        "CNY", description="an ISO 4217 code like CNY"
    )
    workload: WorkloadTable | None = Field(
        None, description="[workload] card_hours, or [model] and [training]"
    )
    model: Table | None = Field(None, description="a table")
    training: Table | None = Field(None, description="a table")
    schedule: ScheduleTable = Field(description="a table with earliest_start and deadline")
    requirements: RequirementsTable = Field(
        default_factory=RequirementsTable, description="a table"
    )
    budget: BudgetTable | None = Field(None, description="a table")
    data: DataTable | None = Field(None, description="a table")
    calibration: CalibrationTable | None = Field(None, description="a [calibration] table")

    @model_validator(mode="before")
    @classmethod
    def _work_first(cls, data: Any) -> Any:
        """Which work the job gives is checked before its tables' keys, as the file reads."""
        if not isinstance(data, dict):
            return data
        workload, model, training = (data.get(k) for k in ("workload", "model", "training"))
        if workload is not None and (model is not None or training is not None):
            raise bad(Msg("either [workload] or [model]+[training], not both"), key="[workload]")
        if workload is None and model is None:
            raise bad(Msg("[workload] card_hours, or [model] and [training]"), key="[workload]")
        return data


def job_schema() -> dict[str, Any]:
    """The JSON Schema of a job file (TOML date-times are ``date-time`` strings in it)."""
    schema = JobFile.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
