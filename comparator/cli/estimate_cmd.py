"""``suanli estimate``: memory per card, cards and ZeRO stage, FLOPs and hours of a job."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from comparator.cli import estimate_options as opt
from comparator.cli._common import JSON_OPTION, console, emit_json, state, tr
from comparator.cli.estimate_lines import links_line, recompute_word, savers_line, stack_line
from comparator.cli.tables import print_table
from comparator.i18n import (
    ESTIMATE_ADVICE_ZH,
    ESTIMATE_MEMORY_PARTS,
    ESTIMATE_NOTES_ZH,
    ESTIMATE_UNITS_ZH,
    RULE_OF_THUMB_ZH,
    is_en,
    render,
)
from comparator.i18n import label as label_text

if TYPE_CHECKING:  # the estimator loads inside the command: `suanli --help` stays fast
    from comparator.estimate import Advice, Estimate, EstimateRequest
    from comparator.plan import CalibrationFit


def register(app: typer.Typer) -> None:
    app.command("estimate")(estimate_command)


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

    request, fit = calibrated(_request(flags, st.settings.headroom), measured)
    result = estimate(request)
    if json_out:
        emit_json({**result.to_json(), "calibration": fit.to_json() if fit else None})
    else:
        _print_estimate(console(), result, st.lang)
        if fit is not None:
            console().print(
                escape(f"{label_text(st.lang, 'calibration')}: {render(fit.message(), st.lang)}")
            )


def calibrated(
    request: EstimateRequest, measured: float | None
) -> tuple[EstimateRequest, CalibrationFit | None]:
    """``request`` moved to a measured tokens/s per card on its own GPU × cards."""
    if measured is None:
        return request, None
    from comparator.plan import measured_fit

    fit = measured_fit(request, Decimal(repr(measured)))
    return fit.apply(request), fit


def _request(flags: dict[str, Any], default_headroom: float) -> EstimateRequest:
    """The request from the flags' values, normalised as job files are."""
    from comparator.estimate import (
        EstimateRequest,
        normalize_optimizer,
        normalize_stack,
        parse_token_count,
    )

    recompute, offload = flags.pop("recompute"), flags.pop("offload")
    for key in ("method", "precision"):
        flags[key] = flags[key].strip().lower()
    flags["optimizer"] = normalize_optimizer(flags["optimizer"]) or flags["optimizer"]
    if recompute is not None:
        flags["grad_ckpt"] = recompute.strip().lower()
    for key in ("tokens", "samples"):
        flags[key] = None if flags[key] is None else parse_token_count(flags[key])
    if flags["stack"] is not None:
        text = flags["stack"].strip().lower()
        flags["stack"] = normalize_stack(text) or text
    if flags["headroom"] is None:
        flags["headroom"] = default_headroom
    return EstimateRequest(**flags, offload_optimizer=offload)


def _list_models(lang: str, json_out: bool) -> None:
    from comparator.estimate import BUILTIN_SHAPES

    if json_out:
        emit_json({"models": [shape.summary() for shape in BUILTIN_SHAPES]})
        return
    table = Table(box=box.SIMPLE_HEAD, title=tr(lang, "内置模型", "Built-in models"))
    for header in (
        tr(lang, "模型", "Model"),
        tr(lang, "参数量", "Params"),
        "L",
        "h",
        "a",
        "kv",
        "I",
        "V",
    ):
        table.add_column(header, justify="left" if header in ("模型", "Model") else "right")
    for s in BUILTIN_SHAPES:
        params = f"{s.params / 1e9:.2f}B" + (
            f" ({s.active_params / 1e9:.1f}B act.)" if s.is_moe else ""
        )
        table.add_row(
            s.name,
            params,
            *(str(v) for v in (s.layers, s.hidden, s.heads, s.kv_heads, s.intermediate, s.vocab)),
        )
    print_table(console(), table)


def _gib(value: float) -> str:
    return f"{value:,.2f}"


def _header(e: Estimate, lang: str) -> str:
    s, r = e.model, e.request
    kind = {"full": tr(lang, "全参微调", "full fine-tuning"), "lora": "LoRA", "qlora": "QLoRA"}[
        r.method
    ]
    rank = f" r={r.lora_rank}" if r.method != "full" else ""
    mode = "pure" if r.pure_bf16 else ("mixed" if r.precision != "fp32" else "")
    moe = f", MoE {s.experts}×/{s.active_experts}" if s.is_moe else ""
    return (
        f"[bold]{escape(s.name)}[/] ({s.params / 1e9:.2f}B{moe}; L={s.layers} h={s.hidden} "
        f"a={s.heads} kv={s.kv_heads}) · {kind}{rank} · {r.precision} {mode} · "
        f"{r.optimizer} · seq {r.seq_len} × mb {e.solution.setup.micro_batch} · "
        f"{tr(lang, '重计算', 'recompute')} {recompute_word(e.solution.setup.recompute, lang)} · "
        f"flash {'✓' if r.flash_attn else '✗'}"
    )


def _memory_table(e: Estimate, lang: str) -> Table:
    title = tr(
        lang,
        f"每卡显存（GiB）· {e.gpu.name} × {e.cards} · ZeRO-{e.zero}",
        f"Memory per card (GiB) · {e.gpu.name} × {e.cards} · ZeRO-{e.zero}",
    )
    table = Table(box=box.SIMPLE_HEAD, title=title, title_justify="left", min_width=64)
    table.add_column(tr(lang, "部分", "Part"))
    table.add_column("GiB", justify="right")
    parts, detail = e.memory_gib, e.memory.detail_gib()
    for key, zh, en, children in ESTIMATE_MEMORY_PARTS:
        table.add_row(tr(lang, zh, en), _gib(parts[key]))
        for child, czh, cen in children:
            if detail[child] > 0:
                table.add_row(f"  [dim]{tr(lang, czh, cen)}[/]", f"[dim]{_gib(detail[child])}[/]")
    verdict = "[green]✓[/]" if e.fits else "[bold red]✗[/]"
    table.add_row(f"[bold]{tr(lang, '合计', 'Total')}[/]", f"[bold]{_gib(parts['total'])}[/]")
    usable = e.solution.usable_memory_gib
    table.add_row(
        tr(
            lang,
            f"可用（{e.gpu.memory_gib:g} GiB 留 {e.request.headroom:.0%} 余量）",
            f"usable ({e.gpu.memory_gib:g} GiB less {e.request.headroom:.0%} headroom)",
        ),
        f"{_gib(usable)} {verdict}",
    )
    return table


def _strategy_text(e: Estimate, lang: str) -> str:
    if e.cards == 1:
        return tr(lang, "单卡", "single card")
    sharding = f"ZeRO-{e.zero}" if e.zero else tr(lang, "DDP（不分片）", "DDP (no sharding)")
    text = tr(
        lang, f"{e.cards} 卡数据并行，{sharding}", f"data parallel over {e.cards} cards, {sharding}"
    )
    if e.needs_rdma:
        text += tr(
            lang,
            f"，{e.nodes} 台 × 8 卡，需 RDMA（IB/RoCE）",
            f", {e.nodes} nodes × 8 cards, needs RDMA (IB/RoCE)",
        )
    return text


def _why_not_zh(e: Estimate) -> str:
    parts = e.memory_gib
    names = {
        "weights": "权重",
        "gradients": "梯度",
        "optimizer": "优化器状态",
        "activations": "激活",
        "overhead": "开销",
    }
    largest = max(names, key=lambda name: parts[name])
    return (
        f"放不下：{e.cards} 卡 ZeRO-{e.zero} 时每卡需 {parts['total']:.1f} GiB，可用仅 "
        f"{e.solution.usable_memory_gib:.1f} GiB（{e.gpu.memory_gib:g} GiB 留 "
        f"{e.request.headroom:.0%} 余量）；最大的一项是{names[largest]}"
        f"（{parts[largest]:.1f} GiB）"
    )


def _strategy_lines(e: Estimate, lang: str) -> list[str]:
    s = e.solution
    fits = (
        tr(lang, "[green]放得下[/]", "[green]fits[/]")
        if e.fits
        else tr(lang, "[bold red]放不下[/]", "[bold red]does not fit[/]")
    )
    least = str(e.min_cards) if e.min_cards else tr(lang, "无（512 卡内）", "none (≤ 512)")
    lines = [
        f"{tr(lang, '结论', 'Verdict')}: {fits} · {tr(lang, '策略', 'strategy')}: "
        f"{escape(_strategy_text(e, lang))} · {tr(lang, '最少卡数', 'min cards')}: {least}",
        f"{tr(lang, '可训练参数', 'Trainable params')}: {s.trainable_params:,}",
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


def _compute_table(e: Estimate, lang: str) -> Table:
    s = e.solution
    table = Table(
        box=box.SIMPLE_HEAD,
        title=tr(lang, "计算量与时长", "Compute and time"),
        title_justify="left",
        show_header=False,
    )
    table.add_column()
    table.add_column(justify="right")
    source = tr(lang, "用户指定", "user") if s.mfu_source == "user" else tr(lang, "拟合", "fit")
    rows = [
        (
            tr(lang, "训练 token（总）", "Training tokens (total)"),
            f"{s.total_tokens:,} ({s.tokens:,} × {e.request.epochs:g})",
        ),
        (tr(lang, "训练 FLOPs", "Training FLOPs"), f"{s.train_flops:.3e}"),
        ("MFU", f"{s.mfu:.2f} ({source})"),
        (tr(lang, "峰值算力", "Peak dense BF16"), f"{e.gpu.bf16_tflops:g} TFLOP/s"),
        (tr(lang, "安全系数", "Safety factor"), f"{e.request.safety_factor:g}×"),
        (tr(lang, "墙钟小时", "Wall-clock hours"), _span(s.hours_low, e.hours, s.hours_high)),
        (
            tr(lang, "卡时", "Card-hours"),
            _span(s.hours_low * e.cards, e.card_hours, s.hours_high * e.cards),
        ),
        (tr(lang, "并行", "Layout"), _layout_text(e)),
    ]
    for label, value in rows:
        table.add_row(label, value)
    return table


def _rules_table(e: Estimate, lang: str) -> Table:
    table = Table(
        box=box.SIMPLE_HEAD,
        title_justify="left",
        title=tr(lang, "经验法则 vs 本估算", "Rules of thumb vs this estimate"),
    )
    for header in (
        tr(lang, "经验法则", "Rule"),
        tr(lang, "法则", "Rule says"),
        tr(lang, "本估算", "Ours"),
        tr(lang, "单位", "Unit"),
    ):
        if header in ("经验法则", "Rule"):
            table.add_column(header, overflow="fold")
        else:
            table.add_column(header, justify="right")
    for rule in e.rules_of_thumb:
        text, unit = rule["rule"], rule["unit"]
        if not is_en(lang):
            text, unit = RULE_OF_THUMB_ZH.get(text, text), ESTIMATE_UNITS_ZH.get(unit, unit)
        table.add_row(escape(text), _number(rule["value"]), _number(rule["ours"]), unit)
    return table


def _number(value: Any) -> str:
    return f"{value:.3e}" if abs(value) >= 1e9 else f"{value:,.1f}"


def _advice_table(advice: tuple[Advice, ...], lang: str) -> Table:
    table = Table(
        box=box.SIMPLE_HEAD,
        title_justify="left",
        title=tr(lang, "放不下时的替代方案", "Alternatives that change the fit"),
    )
    for header in (
        tr(lang, "方案", "Change"),
        tr(lang, "卡数", "Cards"),
        "ZeRO",
        tr(lang, "每卡 GiB", "GiB/card"),
        tr(lang, "放得下", "Fits"),
        tr(lang, "小时", "Hours"),
        tr(lang, "卡时", "Card-hours"),
    ):
        if header in ("方案", "Change"):
            table.add_column(header, overflow="fold")
        else:
            table.add_column(header, justify="right")
    for a in advice:
        text = a.description if is_en(lang) else ESTIMATE_ADVICE_ZH.get(a.action, a.description)
        if not is_en(lang) and a.action == "combined":
            text = "组合：" + a.description.removeprefix("together: ")
        elif not is_en(lang) and a.action in ("shorter_seq", "more_cards"):
            text += f"（{', '.join(f'{k}={v}' for k, v in a.change.items())}）"
        table.add_row(
            escape(text),
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
        text = (
            note.message
            if is_en(lang)
            else ESTIMATE_NOTES_ZH.get(note.code, note.message).format_map(note.params)
        )
        if not is_en(lang) and note.code == "does_not_fit":
            text = _why_not_zh(e)
        out.print(f"[yellow]•[/] {escape(text)}")
