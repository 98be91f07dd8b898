"""The job's work on each GPU model: card-hours, and the card counts its memory allows.

A ``[workload]`` job gives card-hours on a reference GPU; other GPUs get them scaled by the
throughput table (:mod:`comparator.estimate.throughput`). A ``[model]`` + ``[training]`` job asks the
estimator, once per GPU model, for card-hours and the fewest cards that hold the job in memory;
a GPU that cannot hold it is excluded with the reason. The plan uses the estimate's expected
card-hours; its low/high range is kept beside them (``card_hours_range``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache

from comparator.domain.gpus import GPUS, resolve_gpu
from comparator.domain.job import Job
from comparator.errors import InputError, JobFileError, Msg
from comparator.estimate.estimator import Estimate, EstimateRequest, estimate, request_from_job
from comparator.estimate.parallel import Layout
from comparator.estimate.request import DEFAULT_GPU
from comparator.estimate.throughput import scale_card_hours
from comparator.plan.calibrate import CalibrationFit, fit_calibration
from comparator.plan.candidates import GpuWork
from comparator.plan.groups import links

_FACTOR = Decimal("0.0001")


@dataclass
class WorkTable:
    """Work per GPU model, and why the other GPU models cannot take the job."""

    work: dict[str, GpuWork] = field(default_factory=dict)
    unusable: dict[str, tuple[str, Msg]] = field(default_factory=dict)  # gpu → (kind, reason)
    estimates: dict[str, Estimate] = field(default_factory=dict)
    #: gpu → (low, high) card-hours of the estimate's range; the plan uses the expected value
    card_hours_range: dict[str, tuple[Decimal, Decimal]] = field(default_factory=dict)


def _from_workload(job: Job, gpus: Iterable[str]) -> WorkTable:
    table = WorkTable()
    workload = job.workload
    assert workload.card_hours is not None and workload.gpu is not None
    reference = resolve_gpu(workload.gpu)
    for gpu in gpus:
        hours = scale_card_hours(workload.card_hours, reference, GPUS[gpu])
        if hours is None:
            table.unusable[gpu] = (
                "throughput",
                Msg(
                    "throughput: no dense BF16 figure for {gpu} or {reference}, card-hours "
                    "cannot be converted",
                    gpu=gpu,
                    reference=reference.name,
                ),
            )
            continue
        table.work[gpu] = GpuWork(gpu, hours, 1, workload.cards)
    return table


def _memory_reason(result: Estimate) -> Msg:
    solution = result.solution
    sizes = {
        "gpu": solution.gpu.name,
        "cards": solution.cards,
        "need_gib": float(solution.memory.total_gib),
        "memory_gib": float(solution.gpu.memory_gib),
    }
    if solution.request.cards is not None:
        return Msg(
            "memory: on {cards} × {gpu} the job needs {need_gib:.1f} GiB per card, "
            "{usable_gib:.1f} GiB usable ({memory_gib:g} GiB less headroom)",
            usable_gib=float(solution.usable_memory_gib),
            **sizes,
        )
    return Msg(
        "memory: {gpu} ({memory_gib:g} GiB) cannot hold the job with any card count the "
        "estimator tries (still {need_gib:.1f} GiB per card at {cards} cards)",
        **sizes,
    )


def _request(job: Job, gpu: str, headroom: float) -> EstimateRequest:
    """:func:`_base_request`, moved to the job's measured trial run when it has one."""
    request = _base_request(job, gpu, headroom)
    fit = calibration_fit(job, headroom)
    return fit.apply(request) if fit is not None else request


_FITS: dict[str, CalibrationFit] = {}


def calibration_fit(job: Job, headroom: float = 0.10) -> CalibrationFit | None:
    """The fit of the job's ``[calibration]`` (None without one), once per job and headroom."""
    calibration = job.calibration
    if calibration is None:
        return None
    if job.model is None:
        raise JobFileError(
            "{path}: [calibration] needs a [model] job: a [workload] job's card-hours are "
            "already measured",
            path=job.source,
        )
    key = repr((calibration, job.model, job.training, job.source, headroom))
    if key not in _FITS:
        if len(_FITS) > 256:
            _FITS.clear()
        base = _base_request(job, calibration.gpu, headroom)
        _FITS[key] = fit_calibration(calibration, base)
    return _FITS[key]


def _base_request(job: Job, gpu: str, headroom: float) -> EstimateRequest:
    """The estimate request of a ``[model]`` job on ``gpu`` (the planner's headroom by default).

    CPU offload is not chosen unless the job asks for it (``offload_optimizer = true``): it
    needs host RAM that no offer states, so a plan built on it might not run where ordered.
    """
    assert job.model is not None
    training = dict(job.training or {})
    request = request_from_job(job.model, training, gpu=gpu, source=job.source)
    if "headroom" not in training:
        request = dataclasses.replace(request, headroom=headroom)
    if "offload_optimizer" not in training:
        request = dataclasses.replace(request, offload_optimizer=False)
    return request


def _from_model(job: Job, gpus: Iterable[str], headroom: float) -> WorkTable:
    table = WorkTable()
    for gpu in gpus:
        request = _request(job, gpu, headroom)
        if job.workload.cards is not None and request.cards is None:
            request = dataclasses.replace(request, cards=job.workload.cards)
        try:
            result = estimate(request)
        except JobFileError:
            raise
        except InputError as exc:
            table.unusable[gpu] = ("throughput", Msg("estimate: {reason}", reason=exc.msg))
            continue
        table.estimates[gpu] = result
        layout = model_layout(result)
        if not result.fits and layout is None:
            table.unusable[gpu] = ("memory", _memory_reason(result))
            continue
        hours = Decimal(repr(layout.card_hours if layout else result.card_hours))
        solution = result.solution
        if layout is not None:
            min_cards, split = layout.cards, (layout.tp, layout.cp, layout.pp)
        else:
            min_cards, split = result.min_cards or result.cards, None
        table.work[gpu] = GpuWork(
            gpu,
            hours,
            min_cards,
            request.cards,
            card_hours_at=_card_hours_at(request, hours),
            on_links=_on_links(request, hours),
            hours_range=_narrowed(
                _range_factors(solution.hours_low, solution.hours, solution.hours_high),
                calibration_fit(job, headroom),
                gpu,
            ),
            network_modelled=True,
            layout=split,
        )
        table.card_hours_range[gpu] = (
            Decimal(repr(solution.hours_low * solution.cards)),
            Decimal(repr(solution.hours_high * solution.cards)),
        )
        narrowed = table.work[gpu].hours_range
        if calibration_fit(job, headroom) is not None and narrowed is not None:
            table.card_hours_range[gpu] = (hours * narrowed[0], hours * narrowed[1])
    return table


def model_layout(result: Estimate) -> Layout | None:
    """The estimator's tensor / context / pipeline layout when data parallelism cannot hold the
    job and that layout can (None when plain data parallelism fits, or nothing does)."""
    if result.fits:
        return None
    layout = result.layout
    if layout is None or not layout.fits or layout.tp * layout.cp * layout.pp == 1:
        return None
    return layout


def _narrowed(
    factors: tuple[Decimal, Decimal] | None, fit: CalibrationFit | None, gpu: str
) -> tuple[Decimal, Decimal] | None:
    """A calibrated estimate's narrower range (:mod:`comparator.plan.calibrate`)."""
    if factors is None or fit is None:
        return factors
    spread = Decimal(repr(fit.spread(gpu)))
    low, high = factors
    return (1 - (1 - low) * spread).quantize(_FACTOR), (1 + (high - 1) * spread).quantize(_FACTOR)


def _range_factors(low: float, hours: float, high: float) -> tuple[Decimal, Decimal] | None:
    """The estimate's low and high hours as multipliers of its expected hours."""
    if hours <= 0 or low == high:
        return None
    return Decimal(repr(low / hours)).quantize(_FACTOR), Decimal(repr(high / hours)).quantize(
        _FACTOR
    )


def _on_links(
    request: EstimateRequest, fallback: Decimal
) -> Callable[[str], Callable[[int], Decimal]]:
    """Per link key (plan.groups), the estimator's card-hours with the offer's links."""

    @cache
    def on(key: str) -> Callable[[int], Decimal]:
        interconnect, network = links(key)
        linked = dataclasses.replace(
            request,
            interconnect=interconnect or request.interconnect,
            network=network or request.network,
        )
        return _card_hours_at(linked, fallback)

    return on


def _card_hours_at(request: EstimateRequest, fallback: Decimal) -> Callable[[int], Decimal]:
    """The estimator's card-hours on each card count, asked once per count."""

    @cache
    def on(cards: int) -> Decimal:
        try:
            result = estimate(dataclasses.replace(request, cards=cards))
        except InputError:
            return fallback
        if result.fits:
            return Decimal(repr(result.card_hours))
        layout = model_layout(result)
        return Decimal(repr(layout.card_hours)) if layout is not None else fallback

    return on


def work_table(job: Job, gpus: Iterable[str], *, headroom: float = 0.10) -> WorkTable:
    """Work of ``job`` on every GPU model in ``gpus`` (canonical names)."""
    names = sorted(set(gpus))
    if job.workload.card_hours is not None:
        return _from_workload(job, names)
    return _from_model(job, names, headroom)


def placement_estimate(
    job: Job, placement: tuple[str, int] | None, *, headroom: float = 0.10, link: str = "|"
) -> Estimate | None:
    """The estimate of a ``[model]`` job on a placement (GPU, cards), else on the job's own GPU.

    ``link``: the placement's link key (plan.groups), so the hours are those of its offers.

    None for a ``[workload]`` job, or when the estimator cannot judge that placement.
    """
    if job.model is None:
        return None
    if placement is None:
        gpu = job.workload.gpu or next(iter(job.requirements.gpus), DEFAULT_GPU)
        request = _request(job, gpu, headroom)
    else:
        interconnect, network = links(link)
        request = _request(job, placement[0], headroom)
        request = dataclasses.replace(
            request,
            cards=placement[1],
            interconnect=interconnect or request.interconnect,
            network=network or request.network,
        )
    try:
        return estimate(request)
    except InputError:
        return None
