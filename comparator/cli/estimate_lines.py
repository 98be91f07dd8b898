"""Two lines of ``suanli estimate``'s text output: the memory savers and the links assumed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape

from comparator.i18n import say

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
    return escape(
        f"{say(lang, 'Links')}: {say(lang, 'cards')} {card_kind} "
        f"{card['gbs']:g} GB/s ({card_from}) · {say(lang, 'network')} "
        f"{network['kind']} {network['gbps']:g} Gb/s {say(lang, 'per node')} ({net_from}) · "
        f"{say(lang, 'network time factor')} ×{doc['network_time_factor']:g}"
    )
