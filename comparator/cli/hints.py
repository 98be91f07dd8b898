"""What to try when a listing comes back empty: known provider ids, the GPU variant meant."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from comparator.cli._common import tr
from comparator.domain import resolve_gpu

if TYPE_CHECKING:
    from sqlalchemy import Engine


def _provider_hint(engine: Engine, provider: str, lang: str) -> str | None:
    from comparator.catalog import load_profiles

    known = sorted(load_profiles(engine))
    if provider in known:
        return None
    close = difflib.get_close_matches(provider, known, n=1)
    listed = ", ".join(known) or "—"
    if close:
        return tr(
            lang,
            f"没有服务商 {provider}；是否想用 {close[0]}？已知服务商：{listed}",
            f"no provider {provider}; did you mean {close[0]}? Known providers: {listed}",
        )
    return tr(
        lang,
        f"没有服务商 {provider}；已知服务商：{listed}",
        f"no provider {provider}; known providers: {listed}",
    )


def _gpu_hint(
    engine: Engine, gpu: str, provider: str | None, filters: dict[str, str | None], lang: str
) -> str | None:
    from comparator.catalog import current_offers

    spec = resolve_gpu(gpu)
    others = current_offers(engine, provider=provider, **{**filters, "gpu": None})
    siblings = sorted(
        {o.gpu for o in others if resolve_gpu(o.gpu).family == spec.family} - {spec.name}
    )
    if not siblings:
        return None
    names = ", ".join(siblings)
    return tr(
        lang,
        f"{gpu} 指 {spec.name}（{spec.memory_gib:g} GB），没有符合条件的报价；同系列有 {names}："
        f"试试 --gpu {siblings[0]}",
        f"{gpu} means {spec.name} ({spec.memory_gib:g} GB), with no matching offer; the same "
        f"family has {names}: try --gpu {siblings[0]}",
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
    return tr(
        lang,
        "没有符合条件的报价；去掉一个筛选条件（--gpu、--province、--billing、--provider）再试",
        "no offer matches; drop one of the filters (--gpu, --province, --billing, --provider)",
    )
