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

from comparator.catalog import CatalogGroups, current_snapshot_ids
from comparator.config import Settings, software_version
from comparator.domain.collector import collector_paused
from comparator.domain.job import read_job_file
from comparator.i18n import is_en
from comparator.plan import plan_job_read
from comparator.quote.document import QuoteParts, assemble_document
from comparator.quote.quote_store import StoredQuote, freeze_quote
from comparator.services.planning import (
    context_from_settings,
    sane_job,
    with_calibration,
    within_range,
)


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
    """Plan ``job_path`` on the current catalog and store the quote; returns it with its number.

    Open (the job file, read once, and the catalog as the planner's offer source), call the
    planner, store the document."""
    created_at = (now or datetime.now(settings.timezone)).replace(microsecond=0)
    day = today or created_at.astimezone(settings.timezone).date()
    check_lang = "en" if is_en(lang) else "zh"
    version = software_version()
    job, job_bytes = read_job_file(job_path)
    job = with_calibration(job, calibration)
    source, snapshot_ids = CatalogGroups(engine), current_snapshot_ids(engine)
    context = context_from_settings(
        settings, objective=objective, top=top, today=day, lang=check_lang
    )
    job = sane_job(job, context)
    with collector_paused():  # no collection walks the planner's heap until it is stored
        with within_range([job]):
            result, read = plan_job_read(job, source, None, context)
            parts = QuoteParts(
                job=job,
                input_sha256=hashlib.sha256(job_bytes).hexdigest(),
                result=result,
                offers=read.offers,
                provider_names={pid: p.name for pid, p in read.profiles.items()},
                objective=objective,
                check_lang=check_lang,
                snapshot_ids=snapshot_ids,
                holidays=context.holidays,
            )
            document = assemble_document(
                parts,
                settings,
                created_at=created_at,
                today=day,
                lang=lang,
                software_version=version,
            )
        return freeze_quote(engine, document)
