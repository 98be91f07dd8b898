"""``suanli estimate``: memory per card, cards and ZeRO stage, FLOPs and hours of a job."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import typer
from rich import box
from rich.console import Console
from rich.markup import escape

from comparator.cli import estimate_options as opt
from comparator.cli._common import JSON_OPTION, console, emit_json, state
from comparator.cli.estimate_lines import links_line, recompute_word, savers_line, stack_line
from comparator.cli.helptext import HelpCommand
from comparator.cli.tables import TEXT, CliTable, print_table
from comparator.i18n import ESTIMATE_MEMORY_PARTS, msg_from_json, pick, render, say
from comparator.i18n import label as label_text

if TYPE_CHECKING:  # the estimator loads inside the command: `suanli --help` stays fast
    from comparator.estimate import Advice, Estimate, EstimateRequest
    from comparator.plan import CalibrationFit


def register(app: typer.Typer) -> None:
    app.command("estimate", cls=HelpCommand)(estimate_command)


def estimate_command(
    ctx: typer.Context,
    model: str | None = opt.MODEL,
    method: str = opt.METHOD,
    precision: str = opt.PRECISION,
    pure_bf16: bool = opt.PURE_BF16,
    optimizer: str = opt.OPTIMIZER,
    lora_rank: int = opt.LORA_RANK,
    seq_len: int = opt.SEQ_LEN,
    micro_batch: int | None = opt.MICRO_BATCH,
    global_batch: int | None = opt.GLOBAL_BATCH,
    grad_ckpt: bool | None = opt.GRAD_CKPT,
    recompute: str | None = opt.RECOMPUTE,
    flash_attn: bool = opt.FLASH_ATTN,
    chunked_loss: bool | None = opt.CHUNKED_LOSS,
    offload: bool | None = opt.OFFLOAD,
    zero: int | None = opt.ZERO,
    tokens: str | None = opt.TOKENS,
    samples: str | None = opt.SAMPLES,
    avg_tokens: int | None = opt.AVG_TOKENS,
    epochs: float = opt.EPOCHS,
    gpu: str = opt.GPU,
    cards: int | None = opt.CARDS,
    mfu: float | None = opt.MFU,
    headroom: float | None = opt.HEADROOM,
    safety_factor: float = opt.SAFETY_FACTOR,
    interconnect: str | None = opt.INTERCONNECT,
    network: str | None = opt.NETWORK,
    stack: str | None = opt.STACK,
    measured: float | None = opt.MEASURED_TOKENS_PER_S,
    list_models: bool = typer.Option(False, "--list-models", help="List built-in models."),
    json_out: bool = JSON_OPTION,
) -> None:
    """Resource estimate of a training job: memory per card, cards, ZeRO stage, hours.

    Example:  suanli estimate --model Qwen2.5-7B --method lora --tokens 300M --epochs 3
    """
    st = state(ctx)
    if list_models:
        _list_models(st.lang, json_out)
        return
    if model is None:
        raise typer.BadParameter("is required (or use --list-models)", param_hint="--model")
    flags = {
        k: v
        for k, v in locals().items()
        if k not in ("ctx", "st", "list_models", "json_out", "measured")
    }
    from comparator.estimate import estimate

    with _flag_errors():
        request, fit = calibrated(_request(flags, st.settings.headroom), measured)
        result = estimate(request)
    if json_out:
        document = {**result.to_json(), "calibration": fit.to_json() if fit else None}
        emit_json(with_texts(document, st.lang))
    else:
        _print_estimate(console(), result, st.lang)
        if fit is not None:
            console().print(
                escape(f"{label_text(st.lang, 'calibration')}: {render(fit.message(), st.lang)}")
            )


def with_texts(document: Any, lang: str) -> Any:
    """``document`` with each message (``<key>_msg``) rendered in ``lang`` beside it
    (``<key>_text``; ``text`` for a ``text_msg``); the English under ``<key>`` stays as it is,
    for scripts."""
    if isinstance(document, list):
        return [with_texts(item, lang) for item in document]
    if not isinstance(document, dict):
        return document
    out: dict[str, Any] = {}
    for key, value in document.items():
        out[key] = with_texts(value, lang) if not key.endswith("_msg") else value
        if key.endswith("_msg") and isinstance(value, dict):
            name = key.removesuffix("_msg")  # a calibration's `text_msg` is shown as `text`
            out["text" if name == "text" else f"{name}_text"] = render(msg_from_json(value), lang)
    return out


def calibrated(
    request: EstimateRequest, measured: float | None
) -> tuple[EstimateRequest, CalibrationFit | None]:
    """``request`` moved to a measured tokens/s per card on its own GPU × cards."""
    if measured is None:
        return request, None
    from comparator.plan import measured_fit

    fit = measured_fit(request, Decimal(repr(measured)))
    return fit.apply(request), fit


@contextmanager
def _flag_errors() -> Iterator[None]:
    """A flag value the estimate refuses (``--method dpo``, ``--cards 0``) is a usage error,
    exit 2; errors of files (a config.json, a calibration) and unknown names stay exit 1."""
    from comparator.errors import InputError, OptionError

    try:
        yield
    except InputError as exc:
        if type(exc) is not InputError:
            raise
        raise OptionError(exc.msg, hint=exc.hint) from None


def _request(flags: dict[str, Any], default_headroom: float) -> EstimateRequest:
    """The request from the flags' values, normalised as job files are."""
    from comparator.estimate import (
        EstimateRequest,
        normalize_optimizer,
        normalize_stack,
    )

    recompute, offload = flags.pop("recompute"), flags.pop("offload")
    for key in ("method", "precision"):
        flags[key] = flags[key].strip().lower()
    flags["optimizer"] = normalize_optimizer(flags["optimizer"]) or flags["optimizer"]
    if recompute is not None:
        flags["grad_ckpt"] = recompute.strip().lower()
    for key in ("tokens", "samples"):
        flags[key] = None if flags[key] is None else _count_flag(key, flags[key])
    if flags["stack"] is not None:
        text = flags["stack"].strip().lower()
        flags["stack"] = normalize_stack(text) or text
    if flags["headroom"] is None:
        flags["headroom"] = default_headroom
    return EstimateRequest(**flags, offload_optimizer=offload)


def _count_flag(key: str, text: str) -> int:
    """``--tokens``/``--samples`` read as a count; an error names the flag."""
    from comparator.errors import InputError
    from comparator.estimate import parse_token_count

    try:
        return parse_token_count(text)
    except InputError as exc:
        raise InputError(
            "{flag} {message}", flag=f"--{key}", message=exc.msg, hint=exc.hint
        ) from None


def _list_models(lang: str, json_out: bool) -> None:
    from comparator.estimate import BUILTIN_SHAPES

    if json_out:
        emit_json({"models": [shape.summary() for shape in BUILTIN_SHAPES]})
        return
    table = CliTable(
        box=box.SIMPLE_HEAD, title=say(lang, "Built-in models"), show_edge=False, pad_edge=False
    )
    table.add_column(say(lang, "Model"))
    for header in (say(lang, "Params"), say(lang, "Active"), "L", "h", "a", "kv", "I", "V"):
        table.add_column(header, justify="right")
    for s in BUILTIN_SHAPES:
        active = f"{s.active_params / 1e9:.1f}B" if s.is_moe else ""
        table.add_row(
            s.name,
            f"{s.params / 1e9:.2f}B",
            active,
            *(str(v) for v in (s.layers, s.hidden, s.heads, s.kv_heads, s.intermediate, s.vocab)),
        )
    print_table(console(), table)


def _gib(value: float) -> str:
    return f"{value:,.2f}"


def _header(e: Estimate, lang: str) -> str:
    s, r = e.model, e.request
    name = render(s.name_msg, lang) if s.name_msg else s.name
    kind = {"full": say(lang, "full fine-tuning"), "lora": "LoRA", "qlora": "QLoRA"}[r.method]
    rank = f" r={r.lora_rank}" if r.method != "full" else ""
    mode = "pure" if r.pure_bf16 else ("mixed" if r.precision != "fp32" else "")
    moe = f", MoE {s.experts}×/{s.active_experts}" if s.is_moe else ""
    return (
        f"[bold]{escape(name)}[/] ({s.params / 1e9:.2f}B{moe}; L={s.layers} h={s.hidden} "
        f"a={s.heads} kv={s.kv_heads}) · {kind}{rank} · {r.precision} {mode} · "
        f"{r.optimizer} · {say(lang, 'sequence')} {r.seq_len} × "
        f"{say(lang, 'micro-batch')} {e.solution.setup.micro_batch} · "
        f"{say(lang, 'recompute')} {recompute_word(e.solution.setup.recompute, lang)} · "
        f"FlashAttention {'✓' if r.flash_attn else '✗'}"
    )


def _memory_table(e: Estimate, lang: str) -> CliTable:
    title = say(
        lang,
        "Memory per card (GiB) · {name} × {cards} · ZeRO-{zero}",
        name=e.gpu.name,
        cards=e.cards,
        zero=e.zero,
    )
    table = CliTable(box=box.SIMPLE_HEAD, title=title, title_justify="left", min_width=64)
    table.add_column(say(lang, "Part"))
    table.add_column("GiB", justify="right")
    parts, detail = e.memory_gib, e.memory.detail_gib()
    for key, zh, en, children in ESTIMATE_MEMORY_PARTS:
        table.add_row(pick(lang, zh, en), _gib(parts[key]))
        for child, czh, cen in children:
            if detail[child] > 0:
                table.add_row(f"  [dim]{pick(lang, czh, cen)}[/]", f"[dim]{_gib(detail[child])}[/]")
    verdict = "[green]✓[/]" if e.fits else "[bold red]✗[/]"
    table.add_row(f"[bold]{say(lang, 'Total')}[/]", f"[bold]{_gib(parts['total'])}[/]")
    usable = e.solution.usable_memory_gib
    table.add_row(
        say(
            lang,
            "usable ({memory_gib:g} GiB less {headroom:.0%} headroom)",
            memory_gib=e.gpu.memory_gib,
            headroom=e.request.headroom,
        ),
        f"{_gib(usable)} {verdict}",
    )
    return table


def _strategy_lines(e: Estimate, lang: str) -> list[str]:
    s = e.solution
    fits = say(lang, "[green]fits[/]") if e.fits else say(lang, "[bold red]does not fit[/]")
    least = str(e.min_cards) if e.min_cards else say(lang, "none (≤ 512)")
    lines = [
        f"{say(lang, 'Verdict')}: {fits} · {say(lang, 'strategy')}: "
        f"{escape(render(e.solution.strategy_msg, lang))} · {say(lang, 'min cards')}: {least}",
        f"{say(lang, 'Trainable params')}: {s.trainable_params:,}",
        stack_line(e, lang),
        savers_line(e, lang),
        links_line(e, lang),
    ]
    return lines


def _span(low: float, expected: float, high: float) -> str:
    if high <= low:
        return f"{expected:,.2f}"
    return f"{expected:,.2f} ({low:,.2f}–{high:,.2f})"


def _layout_text(e: Estimate) -> str:
    layout = e.layout
    if layout is None:
        return "—"
    text = f"TP {layout.tp} × PP {layout.pp} × CP {layout.cp} × DP {layout.dp}"
    return text if layout.fits and e.fits else f"{text} ({layout.cards} cards)"


def _compute_table(e: Estimate, lang: str) -> CliTable:
    s = e.solution
    table = CliTable(
        box=box.SIMPLE_HEAD,
        title=say(lang, "Compute and time"),
        title_justify="left",
        show_header=False,
    )
    table.add_column()
    table.add_column(justify="right")
    source = say(lang, "user") if s.mfu_source == "user" else say(lang, "fit")
    rows = [
        (
            say(lang, "Training tokens (total)"),
            f"{s.total_tokens:,} ({s.tokens:,} × {e.request.epochs:g})",
        ),
        (say(lang, "Training FLOPs"), f"{s.train_flops:.3e}"),
        ("MFU", f"{s.mfu:.2f} ({source})"),
        (say(lang, "Peak dense BF16"), f"{e.gpu.bf16_tflops:g} TFLOP/s"),
        (say(lang, "Safety factor"), f"{e.request.safety_factor:g}×"),
        (say(lang, "Wall-clock hours"), _span(s.hours_low, e.hours, s.hours_high)),
        (
            say(lang, "Card-hours"),
            _span(s.hours_low * e.cards, e.card_hours, s.hours_high * e.cards),
        ),
        (say(lang, "Layout"), _layout_text(e)),
    ]
    for label, value in rows:
        table.add_row(label, value)
    return table


def _rules_table(e: Estimate, lang: str) -> CliTable:
    table = CliTable(
        box=box.SIMPLE_HEAD,
        title_justify="left",
        title=say(lang, "Rules of thumb vs this estimate"),
    )
    table.add_column(say(lang, "Rule"), kind=TEXT)
    for header in (say(lang, "Rule says"), say(lang, "Ours"), say(lang, "Unit")):
        table.add_column(header, justify="right")
    for rule in e.rules_of_thumb:
        text = render(msg_from_json(rule["rule_msg"]), lang)
        unit = render(msg_from_json(rule["unit_msg"]), lang)
        table.add_row(escape(text), _number(rule["value"]), _number(rule["ours"]), unit)
    return table


def _number(value: Any) -> str:
    return f"{value:.3e}" if abs(value) >= 1e9 else f"{value:,.1f}"


def _advice_table(advice: tuple[Advice, ...], lang: str) -> CliTable:
    table = CliTable(
        box=box.SIMPLE_HEAD,
        title_justify="left",
        title=say(lang, "Alternatives that change the fit"),
    )
    table.add_column(say(lang, "advice\x04Change"), kind=TEXT)
    for header in (
        say(lang, "Cards"),
        "ZeRO",
        say(lang, "GiB/card"),
        say(lang, "Fits"),
        say(lang, "Hours"),
        say(lang, "Card-hours"),
    ):
        table.add_column(header, justify="right")
    for a in advice:
        table.add_row(
            escape(render(a.text, lang)),
            str(a.cards),
            str(a.zero),
            _gib(a.memory_gib),
            "[green]✓[/]" if a.fits else "[red]✗[/]",
            f"{a.hours:,.2f}",
            f"{a.card_hours:,.2f}",
        )
    return table


def _print_estimate(out: Console, e: Estimate, lang: str) -> None:
    out.print(_header(e, lang))
    print_table(out, _memory_table(e, lang))
    for line in _strategy_lines(e, lang):
        out.print(line)
    print_table(out, _compute_table(e, lang))
    print_table(out, _rules_table(e, lang))
    if e.advice:
        print_table(out, _advice_table(e.advice, lang))
    for note in e.notes:
        out.print(f"[yellow]•[/] {escape(render(note.msg, lang))}")
