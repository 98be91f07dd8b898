"""Quotes: plan a job against the catalog and freeze everything the report shows.

:func:`make_quote` reads the job file and the current catalog, runs the estimator (for
``[model]`` jobs), the compliance checks and the planner, assembles the quote document
(:mod:`comparator.quote.document`) and stores it under a new number
(:mod:`comparator.quote.quote_store`). Reports are rendered from the stored document only.
"""

from __future__ import annotations

import hashlib
from datetime import date, datetime
from pathlib import Path

from sqlalchemy import Engine

import comparator
from comparator.config import Settings
from comparator.domain.job import load_job
from comparator.errors import JobFileError, os_reason
from comparator.i18n import is_en
from comparator.quote.document import QuoteParts, assemble_document
from comparator.quote.quote_store import StoredQuote, freeze_quote
from comparator.services.planning import (
    collector_paused,
    context_from_settings,
    plan_for_job,
    with_calibration,
)


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of the job file's bytes (``sha256sum JOB.toml`` prints the same)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as exc:
        raise JobFileError(
            "{path}: cannot read the job file ({reason})", path=path, reason=os_reason(exc)
        ) from None


def make_quote(
    engine: Engine,
    job_path: str | Path,
    settings: Settings,
    *,
    lang: str = "zh-CN",
    objective: str = "cost",
    top: int | None = None,
    today: date | None = None,
    now: datetime | None = None,
    calibration: str | Path | None = None,
) -> StoredQuote:
    """Plan ``job_path`` on the current catalog and store the quote; returns it with its number."""
    created_at = (now or datetime.now(settings.timezone)).replace(microsecond=0)
    day = today or created_at.astimezone(settings.timezone).date()
    check_lang = "en" if is_en(lang) else "zh"
    job = with_calibration(load_job(job_path), calibration)
    context = context_from_settings(
        settings, objective=objective, top=top, today=day, lang=check_lang
    )
    with collector_paused():
        result, catalog = plan_for_job(engine, job, context)
        offers, profiles = catalog.offers, catalog.profiles
        parts = QuoteParts(
            job=job,
            input_sha256=file_sha256(job_path),
            result=result,
            offers=offers,
            provider_names={pid: p.name for pid, p in profiles.items()},
            objective=objective,
            check_lang=check_lang,
            snapshot_ids=catalog.snapshot_ids,
        )
    document = assemble_document(
        parts,
        settings,
        created_at=created_at,
        today=day,
        lang=lang,
        software_version=comparator.__version__,
    )
    return freeze_quote(engine, document)
