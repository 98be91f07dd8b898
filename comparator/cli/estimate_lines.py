"""Two lines of ``suanli estimate``'s text output: the memory savers and the links assumed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape

from comparator.errors import Msg
from comparator.i18n import render, say

if TYPE_CHECKING:
    from comparator.estimate import Estimate

_SAVER_NAMES = {
    "recompute": "recompute",
    "chunked_loss": "chunked loss",
    "offload_optimizer": "CPU offload",
    "micro_batch": "micro-batch",
}


_RECOMPUTE_WORDS = {
    "none": "recompute\x04none",
    "selective": "selective",
    "op": "op-level selective",
    "full": "full",
}


def recompute_word(value: str, lang: str) -> str:
    """``none`` / ``selective`` / ``full`` in ``lang``."""
    known = _RECOMPUTE_WORDS.get(value)
    return say(lang, known) if known else value


def _shown(value: str | bool | int, lang: str) -> str:
    if isinstance(value, bool):
        return say(lang, "on") if value else say(lang, "off")
    if isinstance(value, str) and value in _RECOMPUTE_WORDS:
        return recompute_word(value, lang)
    return str(value)


def savers_line(e: Estimate, lang: str) -> str:
    """Each memory saver: its value, who chose it and its time factor."""
    parts = []
    for choice in e.solution.choices:
        shown = _shown(choice.value, lang)
        who = say(lang, "chooser\x04user") if choice.chosen_by == "user" else say(lang, "chosen")
        parts.append(
            f"{say(lang, _SAVER_NAMES[choice.setting])} {shown} ({who}, ×{choice.time_factor:g})"
        )
    return escape(f"{say(lang, 'Memory savers')}: " + " · ".join(parts))


def links_line(e: Estimate, lang: str) -> str:
    """The interconnect and network the hours assume, each stated or assumed."""
    doc = e.to_json()["links"]
    card, network = doc["interconnect"], doc["network"]
    assumed = say(lang, "assumed")
    stated = say(lang, "as offered")
    card_kind = "NVLink" if card["nvlink"] else "PCIe"
    card_from = stated if not card["assumed"] else say(lang, "GPU registry, assumed")
    net_from = stated if not network["assumed"] else assumed
    if network["text"] is None:
        net_from = say(lang, "assumed: the fit's published clusters")
    kind = network["kind"] if network["kind"] != "unknown" else say(lang, "network\x04unknown")
    return escape(
        f"{say(lang, 'Links')}: {say(lang, 'cards')} {card_kind} "
        f"{card['gbs']:g} GB/s ({card_from}) · {say(lang, 'network')} "
        f"{kind} {network['gbps']:g} Gb/s {say(lang, 'per node')} ({net_from}) · "
        f"{say(lang, 'network time factor')} ×{doc['network_time_factor']:g}"
    )


def stack_line(e: Estimate, lang: str) -> str:
    """The training stack the estimate assumed, its loss, and where the efficiency comes from."""
    s = e.solution
    stack = s.stack
    if s.stack_assumed:
        head = Msg(
            "Stack: {name} (assumed: none given; the hours range covers every stack)",
            name=Msg(stack.name),
        )
    else:
        head = Msg("Stack: {name}", name=Msg(stack.name))
    return escape(
        f"{render(head, lang)} · {render(Msg('loss {loss}', loss=stack.loss), lang)} · "
        f"{render(efficiency_source_msg(s.efficiency_source, s.mfu_source), lang)}"
    )


def efficiency_source_msg(source: dict[str, object], mfu_source: str) -> Msg:
    """Where the GPU's efficiency figure comes from, in words."""
    if mfu_source == "user":
        return Msg("efficiency: --mfu as given")
    basis, gpu, runs = source.get("basis"), source.get("gpu"), source.get("cited_runs")
    if basis == "cited_runs":
        return Msg("efficiency: fitted to {runs} cited runs on {gpu}", runs=runs, gpu=gpu)
    if basis == "roofline":
        return Msg(
            "efficiency: no cited run on {gpu}; bounded by the roofline of its memory "
            "bandwidth ({gbs} GB/s)",
            gpu=gpu,
            gbs=source.get("bandwidth_gbs"),
        )
    if basis == "sibling":
        return Msg(
            "efficiency: no cited run on {gpu}; capped at what {sibling} delivers "
            "(faster on both peak and bandwidth)",
            gpu=gpu,
            sibling=source.get("bound_by"),
        )
    return Msg("efficiency: no cited run on {gpu}; its card class's fit", gpu=gpu)
