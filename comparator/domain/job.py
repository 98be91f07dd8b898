"""Job files (TOML): what to train, by when, and under which requirements.

A job gives its work either directly (``[workload] card_hours`` on a reference GPU) or through
the estimator (``[model]`` + ``[training]``), never both. Dates must carry a time zone; a naive
date-time is read in Asia/Shanghai. GPU names are canonicalised through the GPU registry and
province names through :mod:`comparator.domain.provinces`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any

from comparator.domain.calendar import TouRule, parse_rule
from comparator.domain.job_fields import FieldReader
from comparator.domain.provinces import canonical_province
from comparator.errors import (
    CalendarError,
    JobFileError,
    Msg,
    os_reason,
    toml_reason,
)

EXPORT_BASES = ("exempt", "standard_contract", "certified", "cac_assessed")
_TOP_KEYS = {
    "name",
    "currency",
    "workload",
    "model",
    "training",
    "schedule",
    "requirements",
    "budget",
    "data",
}
_DATA_KEYS = {"dataset_gb", "checkpoint_gb"}
_WORKLOAD_KEYS = {"card_hours", "gpu", "cards"}
_SCHEDULE_KEYS = {
    "earliest_start",
    "deadline",
    "interruptible",
    "restart_overhead_hours",
    "run_windows",
    "max_hours_per_day",
}
_REQUIREMENT_KEYS = {
    "gpus",
    "provinces",
    "cities",
    "certifications",
    "mlps_level",
    "contains_personal_info",
    "export_basis",
    "invoice",
    "spot",
}


@dataclass(frozen=True)
class Workload:
    """Work given directly: card-hours on the reference ``gpu``, optionally a fixed card count."""

    card_hours: Decimal | None = None
    gpu: str | None = None
    cards: int | None = None


@dataclass(frozen=True)
class Schedule:
    earliest_start: datetime
    deadline: datetime
    interruptible: bool = False
    restart_overhead_hours: int = 0
    run_windows: tuple[str, ...] = ()  # e.g. "mon-fri 09:00-18:00": the job runs only inside
    max_hours_per_day: int | None = None  # run hours (restarts included) per day, job's zone

    def in_window(self, moment: datetime) -> bool:
        """Whether the hour starting at ``moment`` (local time) lies in a run window."""
        if not self.run_windows:
            return True
        return any(rule.matches(moment) for rule in window_rules(self.run_windows))


@dataclass(frozen=True)
class Requirements:
    """What a placement must satisfy; empty tuples / ``None`` mean "no requirement"."""

    gpus: tuple[str, ...] = ()
    provinces: tuple[str, ...] = ()
    cities: tuple[str, ...] = ()
    certifications: tuple[str, ...] = ()
    mlps_level: int | None = None
    contains_personal_info: bool = False
    export_basis: str | None = None
    invoice: str | None = None
    spot: bool = False


@dataclass(frozen=True)
class DataNeeds:
    """``[data]``: what the job keeps on the data centre's disks (GB, decimal: 1 TB = 1000 GB).

    The dataset is uploaded before the first run slot and, with the checkpoints, stored for the
    whole rental window; the checkpoints are downloaded at the end (egress)."""

    dataset_gb: Decimal = Decimal(0)
    checkpoint_gb: Decimal = Decimal(0)

    @property
    def stored_gb(self) -> Decimal:
        return self.dataset_gb + self.checkpoint_gb


@dataclass(frozen=True)
class Job:
    name: str
    schedule: Schedule
    currency: str = "CNY"
    workload: Workload = field(default_factory=Workload)
    model: Mapping[str, Any] | None = None
    training: Mapping[str, Any] | None = None
    requirements: Requirements = field(default_factory=Requirements)
    max_cost: Decimal | None = None
    source: str = ""
    data: DataNeeds = field(default_factory=DataNeeds)
    max_price_per_card_hour: Decimal | None = None  # [budget]: tax-inclusive, job currency
    use_free_trial: bool = False  # [budget]: use offers' free trial hours (once per provider)


def _province(reader: FieldReader, text: str) -> str:
    canonical = canonical_province(text)
    if canonical is None:
        raise reader.fail(
            "requirements.provinces", "a mainland province name or 简称 (short name)", text
        )
    return canonical


def _workload(reader: FieldReader, data: Mapping[str, Any]) -> Workload:
    reader.reject_unknown(data, _WORKLOAD_KEYS, "workload.")
    card_hours = reader.positive(data, "card_hours", "workload.")
    if card_hours is None:
        raise reader.fail("workload.card_hours", "a positive number of card-hours")
    gpu_name = reader.text(data, "gpu", "workload.")
    if gpu_name is None:
        raise reader.fail("workload.gpu", "the reference GPU the card-hours were measured on")
    gpu = reader.gpu(gpu_name, "workload.gpu")
    return Workload(card_hours, gpu, reader.whole(data, "cards", "workload.", 1))


def _schedule(reader: FieldReader, data: Mapping[str, Any] | None) -> Schedule:
    if data is None:
        raise reader.fail("[schedule]", "a table with earliest_start and deadline")
    reader.reject_unknown(data, _SCHEDULE_KEYS, "schedule.")
    start = reader.moment(data, "earliest_start", "schedule.")
    deadline = reader.moment(data, "deadline", "schedule.")
    if deadline <= start:
        raise reader.fail(
            "schedule.deadline",
            Msg("a time after earliest_start {start}", start=start.isoformat()),
            deadline.isoformat(),
        )
    return Schedule(
        earliest_start=start,
        deadline=deadline,
        interruptible=reader.flag(data, "interruptible", "schedule.", False),
        restart_overhead_hours=reader.whole(data, "restart_overhead_hours", "schedule.", 0) or 0,
        run_windows=_run_windows(reader, data),
        max_hours_per_day=_max_hours_per_day(reader, data),
    )


@lru_cache(maxsize=64)
def window_rules(windows: tuple[str, ...]) -> tuple[TouRule, ...]:
    """Run windows read with the time-of-use grammar (``[DAYS] [HH:MM-HH:MM]``, no factor)."""
    return tuple(
        parse_rule(f"{w} *1", where="schedule.run_windows", index=i)
        for i, w in enumerate(windows, 1)
    )


def _max_hours_per_day(reader: FieldReader, data: Mapping[str, Any]) -> int | None:
    hours = reader.whole(data, "max_hours_per_day", "schedule.", 1)
    if hours is not None and hours > 24:
        raise reader.fail("schedule.max_hours_per_day", "a whole number of hours 1–24", hours)
    return hours


def _run_windows(reader: FieldReader, data: Mapping[str, Any]) -> tuple[str, ...]:
    windows = reader.strings(data, "run_windows", "schedule.")
    try:
        window_rules(windows)
    except CalendarError as exc:
        expected = Msg("windows like 'mon-fri 09:00-18:00' ({reason})", reason=exc.msg)
        raise reader.fail("schedule.run_windows", expected) from None
    return windows


def _requirements(reader: FieldReader, data: Mapping[str, Any] | None) -> Requirements:
    data = data or {}
    where = "requirements."
    reader.reject_unknown(data, _REQUIREMENT_KEYS, where)
    basis = reader.text(data, "export_basis", where)
    if basis is not None and basis not in EXPORT_BASES:
        names = ", ".join(EXPORT_BASES)
        raise reader.fail(where + "export_basis", Msg("one of {names}", names=names), basis)
    mlps = reader.whole(data, "mlps_level", where, 1)
    if mlps is not None and mlps > 5:
        raise reader.fail(where + "mlps_level", "a level from 1 to 5", mlps)
    return Requirements(
        gpus=tuple(reader.gpu(g, where + "gpus") for g in reader.strings(data, "gpus", where)),
        provinces=tuple(_province(reader, p) for p in reader.strings(data, "provinces", where)),
        cities=reader.strings(data, "cities", where),
        certifications=reader.strings(data, "certifications", where),
        mlps_level=mlps,
        contains_personal_info=reader.flag(data, "contains_personal_info", where, False),
        export_basis=basis,
        invoice=reader.text(data, "invoice", where),
        spot=reader.flag(data, "spot", where, False),
    )


def _work(reader: FieldReader, data: Mapping[str, Any]) -> tuple[Workload, Any, Any]:
    workload = reader.table(data, "workload")
    model = reader.table(data, "model")
    training = reader.table(data, "training")
    if workload is not None and (model is not None or training is not None):
        raise reader.fail("[workload]", "either [workload] or [model]+[training], not both")
    if workload is not None:
        return _workload(reader, workload), None, None
    if model is None:
        raise reader.fail("[workload]", "[workload] card_hours, or [model] and [training]")
    return Workload(), dict(model), dict(training or {})


def _data(reader: FieldReader, data: Mapping[str, Any] | None) -> DataNeeds:
    if data is None:
        return DataNeeds()
    reader.reject_unknown(data, _DATA_KEYS, "data.")
    return DataNeeds(
        reader.positive(data, "dataset_gb", "data.") or Decimal(0),
        reader.positive(data, "checkpoint_gb", "data.") or Decimal(0),
    )


def _budget(
    reader: FieldReader, data: Mapping[str, Any] | None
) -> tuple[Decimal | None, Decimal | None, bool]:
    """``[budget]``: (max_cost, max_price_per_card_hour, use_free_trial)."""
    if data is None:
        return None, None, False
    reader.reject_unknown(
        data, {"max_cost", "max_price_per_card_hour", "use_free_trial"}, "budget."
    )
    return (
        reader.positive(data, "max_cost", "budget."),
        reader.positive(data, "max_price_per_card_hour", "budget."),
        reader.flag(data, "use_free_trial", "budget.", False),
    )


def parse_job(data: Mapping[str, Any], source: str) -> Job:
    """A :class:`Job` from parsed TOML ``data``; ``source`` names the file in errors."""
    reader = FieldReader(source)
    reader.reject_unknown(data, _TOP_KEYS, "")
    workload, model, training = _work(reader, data)
    max_cost, max_price, trial = _budget(reader, reader.table(data, "budget"))
    currency = reader.text(data, "currency", "") or "CNY"
    if len(currency) != 3 or not currency.isalpha():
        raise reader.fail("currency", "an ISO 4217 code like CNY", currency)
    return Job(
        name=reader.text(data, "name", "") or Path(source).stem,
        currency=currency.upper(),
        workload=workload,
        model=model,
        training=training,
        schedule=_schedule(reader, reader.table(data, "schedule")),
        requirements=_requirements(reader, reader.table(data, "requirements")),
        max_cost=max_cost,
        max_price_per_card_hour=max_price,
        use_free_trial=trial,
        source=source,
        data=_data(reader, reader.table(data, "data")),
    )


def load_job(path: str | Path) -> Job:
    """Read and validate a job file; :class:`JobFileError` names the file and the field."""
    return read_job_file(path)[0]


def read_job_file(path: str | Path) -> tuple[Job, bytes]:
    """The job of ``path`` and the bytes it was parsed from, read once (a quote hashes those
    bytes: a second read could see an edit made in between)."""
    source = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise JobFileError("{path}: no such job file", path=source) from None
    except OSError as exc:
        raise JobFileError(
            "{path}: cannot read the job file ({reason})", path=source, reason=os_reason(exc)
        ) from None
    return loads_job(raw, source), raw


def loads_job(raw: bytes, source: str) -> Job:
    """Validate the bytes of a job file (``source`` names it in errors)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JobFileError(
            "{path}: expected UTF-8 text (TOML is UTF-8), but byte {byte} is not UTF-8; if it "
            "was saved as GB18030/GBK, save it again as UTF-8",
            path=source,
            byte=exc.start + 1,
        ) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # as a text read sees it
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise JobFileError(
            "{path}: not valid TOML ({reason})", path=source, reason=toml_reason(exc)
        ) from None
    return parse_job(data, source)
