"""What to try when a listing comes back empty: known provider ids, the GPU variant meant."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from comparator.domain import resolve_gpu
from comparator.i18n import say

if TYPE_CHECKING:
    from sqlalchemy import Engine


def _provider_hint(engine: Engine, provider: str, lang: str) -> str | None:
    from comparator.catalog import provider_ids

    known = sorted(provider_ids(engine))
    if provider in known:
        return None
    close = difflib.get_close_matches(provider, known, n=1)
    listed = ", ".join(known) or "—"
    if close:
        return say(
            lang,
            "no provider {provider}; did you mean {value}? Known providers: {listed}",
            provider=provider,
            value=close[0],
            listed=listed,
        )
    return say(
        lang, "no provider {provider}; known providers: {listed}", provider=provider, listed=listed
    )


def _gpu_hint(
    engine: Engine, gpu: str, provider: str | None, filters: dict[str, str | None], lang: str
) -> str | None:
    from comparator.catalog import current_gpus, listing_filter

    spec = resolve_gpu(gpu)
    wanted = listing_filter(None, filters["province"])
    models = current_gpus(engine, wanted, provider=provider, billing=filters["billing"])
    siblings = sorted({m for m in models if resolve_gpu(m).family == spec.family} - {spec.name})
    if not siblings:
        return None
    names = ", ".join(siblings)
    return say(
        lang,
        (
            "{gpu} means {name} ({memory_gib:g} GB), with no matching offer; the same family "
            "has {names}: try --gpu {value}"
        ),
        gpu=gpu,
        name=spec.name,
        memory_gib=spec.memory_gib,
        names=names,
        value=siblings[0],
    )


def empty_offers_hint(
    engine: Engine,
    lang: str,
    *,
    gpu: str | None,
    provider: str | None,
    filters: dict[str, str | None],
) -> str:
    """Why `offers` (or `history`) found nothing, and what to try instead."""
    if provider is not None:
        hint = _provider_hint(engine, provider, lang)
        if hint:
            return hint
    if gpu is not None:
        hint = _gpu_hint(engine, gpu, provider, filters, lang)
        if hint:
            return hint
    return say(
        lang,
        ("no offer matches; drop one of the filters (--gpu, --province, --billing, --provider)"),
    )
