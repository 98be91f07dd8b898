"""Quotes: plan a job against the catalog and freeze everything the report shows.

:func:`make_quote` reads the job file and the current catalog, runs the estimator (for
``[model]`` jobs), the compliance checks and the planner, assembles the quote document
(:mod:`comparator.quote.document`) and stores it under a new number
(:mod:`comparator.quote.store`). Reports are rendered from the stored document only.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

import comparator
from comparator.catalog.queries import current_offers, load_profiles
from comparator.compliance.engine import check_providers
from comparator.config import Settings
from comparator.domain.gpus import GPUS
from comparator.domain.job import Job, load_job
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import ProviderProfile
from comparator.errors import InputError, JobFileError
from comparator.estimate.estimator import estimate, request_from_job
from comparator.estimate.request import DEFAULT_GPU
from comparator.estimate.throughput import relative_throughput
from comparator.plan.planning import context_from_settings, plan_job
from comparator.quote.document import QuoteParts, assemble_document
from comparator.quote.store import StoredQuote, freeze_quote


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of the job file's bytes (``sha256sum JOB.toml`` prints the same)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as exc:
        raise JobFileError(f"{path}: cannot read the job file: {exc.strerror}") from None


def job_estimate(job: Job, plan: Mapping[str, Any], headroom: float) -> dict[str, Any] | None:
    """The estimate of a ``[model]`` job on the best plan's GPU and cards (else its own GPU)."""
    if job.model is None:
        return None
    best = plan.get("best")
    training = dict(job.training or {})
    gpu = (
        best["gpu"]
        if best
        else (job.workload.gpu or next(iter(job.requirements.gpus), DEFAULT_GPU))
    )
    request = request_from_job(job.model, training, gpu=gpu, source=job.source)
    if "headroom" not in training:
        request = dataclasses.replace(request, headroom=headroom)
    if best:
        request = dataclasses.replace(request, cards=int(best["cards"]))
    try:
        return estimate(request).to_json()
    except InputError:
        return None


def throughput_rows(plan: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The planner's throughput table with each GPU's speed relative to the job's reference."""
    rows = (plan.get("assumptions") or {}).get("throughput") or []
    reference_name = (plan.get("job") or {}).get("gpu")
    reference = GPUS.get(reference_name) if reference_name else None
    base = relative_throughput(reference) if reference else None
    result = []
    for row in rows:
        own = row.get("relative_throughput")
        relative = f"{float(own) / float(base):.3f}" if own and base else None
        result.append(
            {
                "gpu": row["gpu"],
                "bf16_tflops": row.get("bf16_tflops"),
                "mfu": row.get("mfu"),
                "effective_tflops": own,
                "relative": relative,
            }
        )
    return result


def compliance_report(
    profiles: Mapping[str, ProviderProfile],
    job: Job,
    offers: Sequence[OfferView],
    today: date,
    settings: Settings,
    lang: str,
) -> dict[str, Any]:
    """The ``check --json`` document for the job: every provider and its data centres."""
    last_day = job.schedule.deadline.astimezone(settings.timezone).date()
    reports = check_providers(
        profiles,
        job.requirements,
        today=today,
        last_day=last_day,
        offers=offers,
        freshness_days=settings.price_freshness_days,
    )
    return {
        "today": today.isoformat(),
        "last_day": last_day.isoformat(),
        "providers": [r.to_json(lang) for r in reports],
    }


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
) -> StoredQuote:
    """Plan ``job_path`` on the current catalog and store the quote; returns it with its number."""
    created_at = (now or datetime.now(settings.timezone)).replace(microsecond=0)
    day = today or created_at.astimezone(settings.timezone).date()
    check_lang = "en" if lang == "en" else "zh"
    job = load_job(job_path)
    offers, profiles = current_offers(engine), load_profiles(engine)
    context = context_from_settings(
        settings, objective=objective, top=top, today=day, lang=check_lang
    )
    plan = plan_job(job, offers, profiles, context).to_json()
    estimate_json = job_estimate(job, plan, settings.headroom)
    parts = QuoteParts(
        job=job,
        input_sha256=file_sha256(job_path),
        plan=plan,
        estimate=estimate_json,
        compliance=compliance_report(profiles, job, offers, day, settings, check_lang),
        offers=offers,
        provider_names={pid: p.name for pid, p in profiles.items()},
        throughput_table=throughput_rows(plan),
        mfu=estimate_json["mfu"] if estimate_json else None,
        objective=objective,
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
