"""``suanli estimate``: memory per card, cards and ZeRO stage, FLOPs and hours of a job."""

from __future__ import annotations

from typing import Any

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from comparator.cli._common import JSON_OPTION, console, emit_json, state, tr
from comparator.cli.tables import print_table
from comparator.estimate import (
    BUILTIN_SHAPES,
    DEFAULT_GPU,
    Advice,
    Estimate,
    EstimateRequest,
    estimate,
    normalize_optimizer,
    parse_token_count,
)
from comparator.i18n import (
    ESTIMATE_ADVICE_ZH,
    ESTIMATE_NOTES_ZH,
    ESTIMATE_UNITS_ZH,
    RULE_OF_THUMB_ZH,
    is_en,
)

_PARTS: tuple[tuple[str, str, str, tuple[tuple[str, str, str], ...]], ...] = (
    (
        "weights",
        "权重",
        "Weights",
        (("base_weights", "基座", "base"), ("adapter_weights", "LoRA 适配器", "LoRA adapters")),
    ),
    ("gradients", "梯度", "Gradients", ()),
    ("optimizer", "优化器状态", "Optimizer states", ()),
    (
        "activations",
        "激活",
        "Activations",
        (("layer_activations", "各层", "layers"), ("logits", "logits", "logits")),
    ),
    (
        "overhead",
        "开销",
        "Overhead",
        (
            ("cuda_context", "CUDA 上下文/框架", "CUDA context/framework"),
            ("zero3_gathered", "ZeRO-3 在途参数", "ZeRO-3 gathered params"),
            ("comm_buckets", "通信桶", "comm buckets"),
            ("dequant_workspace", "QLoRA 反量化缓冲", "QLoRA dequant buffer"),
        ),
    ),
)


def register(app: typer.Typer) -> None:
    app.command("estimate")(estimate_command)


def estimate_command(
    ctx: typer.Context,
    model: str | None = typer.Option(
        None,
        "--model",
        help="Built-in name (Llama-2-7b, Qwen2.5-7B …), a Hugging Face "
        "config.json path, or a size such as 7B / 350M.",
    ),
    method: str = typer.Option("lora", "--method", help="full | lora | qlora."),
    precision: str = typer.Option(
        "bf16",
        "--precision",
        help="bf16 | fp16 | fp32 (full + bf16/fp16 = mixed precision, fp32 master).",
    ),
    pure_bf16: bool = typer.Option(
        False,
        "--pure-bf16",
        help="Full FT with bf16 weights, grads and optimizer states (no fp32 master).",
    ),
    optimizer: str = typer.Option("adamw", "--optimizer", help="adamw | adamw-8bit | sgd."),
    lora_rank: int = typer.Option(16, "--lora-rank", help="LoRA rank, on every linear layer."),
    seq_len: int = typer.Option(2048, "--seq-len", help="Sequence length (tokens)."),
    micro_batch: int = typer.Option(1, "--micro-batch", help="Micro-batch per card."),
    grad_ckpt: bool = typer.Option(
        True, "--grad-ckpt/--no-grad-ckpt", help="Full activation recomputation."
    ),
    flash_attn: bool = typer.Option(
        True, "--flash-attn/--no-flash-attn", help="FlashAttention (no s² attention scores kept)."
    ),
    zero: int | None = typer.Option(
        None, "--zero", help="ZeRO stage 0-3 (default: the smallest that fits)."
    ),
    tokens: str | None = typer.Option(
        None, "--tokens", help="Training tokens per epoch: 2T, 300M, 1.5e9 …"
    ),
    samples: str | None = typer.Option(
        None, "--samples", help="Samples per epoch (with --avg-tokens), instead of --tokens."
    ),
    avg_tokens: int | None = typer.Option(None, "--avg-tokens", help="Average tokens per sample."),
    epochs: float = typer.Option(1.0, "--epochs", help="Epochs."),
    gpu: str = typer.Option(DEFAULT_GPU, "--gpu", help="Any GPU alias: A100-80G, 4090, H800 …"),
    cards: int | None = typer.Option(
        None, "--cards", help="Card count (default: the fewest that fit)."
    ),
    mfu: float | None = typer.Option(
        None, "--mfu", help="Model FLOPs utilisation (default: table by GPU class and method)."
    ),
    headroom: float | None = typer.Option(
        None, "--headroom", help="Memory kept free, 0-0.95 (default 0.10 or SUANLI_HEADROOM)."
    ),
    safety_factor: float = typer.Option(
        1.0, "--safety-factor", help="Multiply hours by this buffer (the seeds use 1.5)."
    ),
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
    request = EstimateRequest(
        model=model,
        method=method.strip().lower(),
        precision=precision.strip().lower(),
        pure_bf16=pure_bf16,
        optimizer=normalize_optimizer(optimizer) or optimizer,
        lora_rank=lora_rank,
        seq_len=seq_len,
        micro_batch=micro_batch,
        grad_ckpt=grad_ckpt,
        flash_attn=flash_attn,
        zero=zero,
        tokens=None if tokens is None else parse_token_count(tokens),
        samples=None if samples is None else parse_token_count(samples),
        avg_tokens=avg_tokens,
        epochs=epochs,
        gpu=gpu,
        cards=cards,
        mfu=mfu,
        headroom=st.settings.headroom if headroom is None else headroom,
        safety_factor=safety_factor,
    )
    result = estimate(request)
    if json_out:
        emit_json(result.to_json())
    else:
        _print_estimate(console(), result, st.lang)


def _list_models(lang: str, json_out: bool) -> None:
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
        f"{r.optimizer} · seq {r.seq_len} × mb {r.micro_batch} · "
        f"{tr(lang, '检查点', 'ckpt')} {'✓' if r.grad_ckpt else '✗'} · "
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
    for key, zh, en, children in _PARTS:
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
    ]
    return lines


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
    source = tr(lang, "用户指定", "user") if s.mfu_source == "user" else tr(lang, "默认表", "table")
    rows = [
        (
            tr(lang, "训练 token（总）", "Training tokens (total)"),
            f"{s.total_tokens:,} ({s.tokens:,} × {e.request.epochs:g})",
        ),
        (tr(lang, "训练 FLOPs", "Training FLOPs"), f"{s.train_flops:.3e}"),
        ("MFU", f"{s.mfu:.2f} ({source})"),
        (tr(lang, "峰值算力", "Peak dense BF16"), f"{e.gpu.bf16_tflops:g} TFLOP/s"),
        (tr(lang, "安全系数", "Safety factor"), f"{e.request.safety_factor:g}×"),
        (tr(lang, "墙钟小时", "Wall-clock hours"), f"{e.hours:,.2f}"),
        (tr(lang, "卡时", "Card-hours"), f"{e.card_hours:,.2f}"),
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
        text = note.message if is_en(lang) else ESTIMATE_NOTES_ZH.get(note.code, note.message)
        if not is_en(lang) and note.code == "does_not_fit":
            text = _why_not_zh(e)
        out.print(f"[yellow]•[/] {escape(text)}")
