"""``suanli plan``'s figures: what priced the best plan, its machines and layout, and the GPU
table (卡型算力表) the quote shows with the same rows (:mod:`comparator.plan.figures`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.markup import escape

from comparator.cli.tables import CliTable, print_table
from comparator.i18n import label, render, say, yes_no

if TYPE_CHECKING:
    from comparator.plan import Plan, PlanResult


def print_machines(out: Console, best: Plan, lang: str) -> None:
    """A multi-node plan's machines and the network they need."""
    if best.nodes <= 1:
        return
    from comparator.plan import machines_msg

    machines = machines_msg(best.nodes, best.node_cards, best.network_kind, best.network_gbps)
    out.print(escape(render(machines, lang)))


def print_figures(out: Console, best: Plan, lang: str) -> None:
    """The figures that priced the plan, as the quote's GPU table shows them."""
    if best.figures is None:
        return
    from comparator.plan import figure_texts

    row = best.figures.to_json()
    text = figure_texts(row)
    out.print(
        f"MFU {text['mfu']} · {label(lang, 'tokens_per_s_per_card')} "
        f"{text['tokens_per_s_per_card']} · {label(lang, 'card_hours')} {text['card_hours']} · "
        f"{label(lang, 'compute_hours')} {text['compute_hours']} → {row['run_hours']} h"
    )
    if row["layout"]:
        from comparator.i18n import msg_from_json

        stated = render(msg_from_json(row["layout"]["text_msg"]), lang)
        out.print(f"{label(lang, 'parallel_layout')}: {escape(stated)}")


def print_utilisation(out: Console, result: PlanResult, lang: str) -> None:
    """The seeds' memory band and ≥ 60 % compute rule on the best plan, and a better fit."""
    from comparator.i18n import msg_from_json

    for message in (result.utilisation or {}).get("text_msgs") or []:
        out.print(escape(render(msg_from_json(message), lang)))


def print_gpu_table(out: Console, result: PlanResult, lang: str) -> None:
    """The GPU table (卡型算力表) of ``assumptions.throughput``: the quote shows the same rows."""
    rows = [r for r in result.assumptions.get("throughput") or [] if "card_hours" in r]
    if not rows:
        return
    from comparator.plan import figure_texts

    table = CliTable(title=label(lang, "throughput_table"), box=box.SIMPLE)
    for key in (
        "gpu",
        "bf16_tflops",
        "mfu",
        "effective_tflops",
        "relative_speed",
        "tokens_per_s_per_card",
        "card_hours",
        "compute_hours",
        "memory_in_use",
        "compute_vs_one_card",
    ):
        table.add_column("MFU" if key == "mfu" else label(lang, key))
    for row in rows:
        text = figure_texts(row)
        table.add_row(
            f"{row['gpu']} × {row['cards']}",
            text["bf16_tflops"],
            text["mfu"],
            text["effective_tflops"],
            text["relative"],
            text["tokens_per_s_per_card"],
            text["card_hours"],
            f"{text['compute_hours']} → {row['run_hours']} h",
            text["memory_share"],
            text["compute_share"],
        )
    print_table(out, table)


def print_assumptions(out: Console, result: PlanResult, lang: str) -> None:
    """FX, the multi-node model, the tax basis, optimality, and a calibration when there is one."""
    assumptions = result.assumptions
    calibration = assumptions.get("calibration")
    if calibration:
        from comparator.i18n import msg_from_json

        said = render(msg_from_json(calibration["text_msg"]), lang)
        out.print(f"{label(lang, 'calibration')}: {escape(said)}")
    fx = assumptions.get("fx", {})
    rates = ", ".join(f"{c}={r}" for c, r in fx.get("rates", {}).items()) or "—"
    efficiency = assumptions.get("multi_node_efficiency") or label(lang, "multi_node_model")
    out.print(
        f"[dim]{say(lang, 'Assumptions')}: {say(lang, 'FX')} {rates} "
        f"({fx.get('date')}); {say(lang, 'multi-node efficiency')} "
        f"{efficiency}; {say(lang, 'tax-inclusive')}; "
        f"{say(lang, 'proven optimal')}: {yes_no(lang, result.optimal)}[/]"
    )


def print_hours_range(out: Console, best: Plan, lang: str) -> None:
    """Low / expected / high compute hours and card-hours, and where the range comes from."""
    ranges = best.ranges()
    if ranges is None:
        return
    hours, cards = ranges["work_hours_range"], ranges["card_hours_range"]
    out.print(
        f"{say(lang, 'Compute hours low/expected/high')}: "
        f"{hours['low']:,.1f} / {hours['expected']:,.1f} / {hours['high']:,.1f} h · "
        f"{say(lang, 'card-hours')} {cards['low']:,.1f} / {cards['expected']:,.1f} / "
        f"{cards['high']:,.1f}"
    )
    out.print(
        "[dim]"
        + say(
            lang,
            "The range is the 5th–95th percentile of the throughput fit's error on "
            "published runs; the price uses the expected value.",
        )
        + "[/]"
    )
