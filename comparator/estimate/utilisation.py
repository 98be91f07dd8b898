"""Is the rented placement used? The seeds' rule: size a rental so that each card runs ≥ 60 %.

Two shares of one placement, each warned about below ``UTILISATION_FLOOR``:

* memory — the per-card total the job needs over the card's memory; when the estimator grew the
  micro-batch to fill the card, the need is the total at micro-batch 1 (a bigger micro-batch
  only uses memory that would otherwise sit idle);
* compute — the fitted efficiency per card on this many cards over that on one card of the
  same model (PCIe-only cards and several nodes lose per-card throughput).

Each warning suggests the smaller placement, re-estimated the same way: the estimator's own
placement when the user fixed more cards, else the smallest common card (``SMALLER_GPUS``)
that holds the job on no more cards, with its cards, hours and card-hours.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from comparator.errors import InputError, Msg
from comparator.estimate.memory import memory_inputs, total_gib
from comparator.estimate.mfu import efficiency
from comparator.estimate.network import has_nvlink
from comparator.estimate.search import Solution, solve

UTILISATION_FLOOR = 0.60
#: Common rental cards, smallest memory first, tried for a smaller placement.
SMALLER_GPUS = (
    "RTX4090",
    "A100-SXM4-40GB",
    "L40S",
    "A100-SXM4-80GB",
    "H100-SXM5-80GB",
    "H200-SXM-141GB",
)


def _suggestion(alt: Solution) -> dict[str, Any]:
    return {
        "gpu": alt.gpu.name,
        "cards": alt.cards,
        "hours": round(alt.hours, 2),
        "card_hours": round(alt.card_hours, 2),
        "memory_share": round(alt.memory_gib["total"] / alt.gpu.memory_gib, 3),
    }


def _fewer_cards(solution: Solution) -> Solution | None:
    """The estimator's own placement with the card count left free, when it needs fewer."""
    if solution.request.cards is None:
        return None
    alt = solve(dataclasses.replace(solution.request, cards=None))
    return alt if alt.fits and alt.cards < solution.cards else None


def _smaller_card(solution: Solution) -> Solution | None:
    request = solution.request
    for name in SMALLER_GPUS:
        try:
            alt = solve(dataclasses.replace(request, gpu=name))
        except InputError:
            continue
        smaller = alt.gpu.memory_gib < solution.gpu.memory_gib
        if smaller and alt.fits and alt.cards <= solution.cards:
            return alt
    return None


def memory_share(solution: Solution) -> float:
    """Memory the job needs per card over the card's memory (micro-batch 1 when chosen)."""
    setup = solution.setup
    total = solution.memory_gib["total"]
    if solution.request.micro_batch is None and setup.micro_batch > 1:
        inputs = memory_inputs(solution.shape, dataclasses.replace(setup, micro_batch=1))
        total = total_gib(inputs, solution.cards, solution.zero)
    return total / solution.gpu.memory_gib


def compute_share(solution: Solution) -> float:
    """Per-card efficiency on this placement over one card's (1.0 with a user MFU)."""
    if solution.mfu_source != "fit" or solution.cards == 1:
        return 1.0
    request, shape = solution.request, solution.shape
    args = (solution.gpu, shape.active_params, request.method, request.precision)
    nvlink = has_nvlink(solution.gpu, solution.links.card)
    many = efficiency(*args, solution.cards, nvlink) * solution.network_time_factor**-1
    return many / efficiency(*args, 1)


def utilisation_notes(solution: Solution) -> list[tuple[str, Msg, dict[str, Any]]]:
    """(code, message, params) for each share under the floor, with the smaller placement."""
    if not solution.fits:
        return []
    found: list[tuple[str, Msg, dict[str, Any]]] = []
    memory = memory_share(solution)
    if memory < UTILISATION_FLOOR:
        alt = _fewer_cards(solution) or _smaller_card(solution)
        params: dict[str, Any] = {"memory_share": round(memory, 3)}
        text = Msg("uses {share:.0%} of the rented memory per card (below 60 %)", share=memory)
        if alt is not None:
            params["suggestion"] = _suggestion(alt)
            text = Msg(
                "{note}; {cards} × {gpu} would hold it ({card_hours:,.1f} card-hours)",
                note=text,
                cards=alt.cards,
                gpu=alt.gpu.name,
                card_hours=alt.card_hours,
            )
        found.append(("low_memory_utilisation", text, params))
    compute = compute_share(solution)
    if compute < UTILISATION_FLOOR:
        alt = _fewer_cards(solution)
        params = {"compute_share": round(compute, 3)}
        text = Msg(
            "each card runs at {share:.0%} of one card's throughput on this placement "
            "(below 60 %: PCIe-only or multi-node communication)",
            share=compute,
        )
        if alt is not None:
            params["suggestion"] = _suggestion(alt)
            text = Msg(
                "{note}; {cards} cards would take {card_hours:,.1f} card-hours",
                note=text,
                cards=alt.cards,
                card_hours=alt.card_hours,
            )
        found.append(("low_compute_utilisation", text, params))
    return found
