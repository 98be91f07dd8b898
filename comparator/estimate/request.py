"""What an estimate is asked for: :class:`EstimateRequest`, token counts, and validation.

Field names are the ``suanli estimate`` flag names with underscores; defaults are the flags'
defaults. :func:`request_problems` lists what is wrong with a request without raising, so the
CLI can name flags (``--seq-len``) and job files can name TOML keys (``[training] seq_len``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal

from comparator.domain.limits import MAX_JOB_CARDS, MAX_TRAINING_TOKENS
from comparator.errors import InputError, Msg, MsgList
from comparator.estimate.request_hints import FIELD_HINTS
from comparator.estimate.stacks import STACK_IDS, Stack, stack_of

METHODS = ("full", "lora", "qlora")
PRECISIONS = ("bf16", "fp16", "fp32", "fp8")  # fp8: FP8 matmuls, bf16/fp32 states
OPTIMIZERS = ("adamw", "adamw-8bit", "sgd")
#: Activation recomputation: none, selective (attention scores only; Korthikanti et al. 2022 —
#: Megatron's), op (op-level selective checkpointing: torchtitan's), full (every layer's
#: activations from its input, "gradient checkpointing"). Which a stack offers: :mod:`.stacks`.
RECOMPUTE = ("none", "selective", "op", "full")
DEFAULT_GPU = "A100-SXM4-80GB"
#: the most cards a plan places (16 machines of at most 1,024 cards: comparator.domain.limits)
MAX_CARDS = MAX_JOB_CARDS

_COUNT = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)(?:e([+-]?\d+))?\s*([kmbgt]|亿|万)?\s*$", re.I)
_COUNT_UNITS = {
    "k": 10**3,
    "m": 10**6,
    "b": 10**9,
    "g": 10**9,
    "t": 10**12,
    "万": 10**4,
    "亿": 10**8,
}
#: the hint of a count past MAX_TRAINING_TOKENS (its sources: comparator.domain.limits)
TOO_MANY_TOKENS_HINT = Msg(
    "no published training run used more than about 36T tokens (Qwen3); 100T is the limit: "
    "did you mean B (10^9) rather than T (10^12)?"
)
_OPTIMIZER_SPELLINGS = {
    "adamw": "adamw",
    "adam": "adamw",
    "adamw-8bit": "adamw-8bit",
    "adamw8bit": "adamw-8bit",
    "adamw_8bit": "adamw-8bit",
    "adamw_bnb_8bit": "adamw-8bit",
    "paged_adamw_8bit": "adamw-8bit",
    "sgd": "sgd",
}


@dataclass(frozen=True)
class EstimateRequest:
    """One estimate's inputs; field names mirror the ``suanli estimate`` flags."""

    model: str
    method: str = "lora"
    precision: str = "bf16"
    pure_bf16: bool = False
    optimizer: str = "adamw"
    lora_rank: int = 16
    seq_len: int = 2048
    micro_batch: int | None = None  # None: chosen (smallest compute-bound that fits, see savings)
    global_batch: int | None = None  # sequences per optimizer step; None: not constrained
    grad_ckpt: bool | str | None = None  # None: chosen; True/False = full/none; or RECOMPUTE
    flash_attn: bool = True
    chunked_loss: bool | None = None  # None: chosen (only when the logits do not fit)
    offload_optimizer: bool | None = None  # None: chosen (only when nothing else fits)
    zero: int | None = None
    tokens: int | None = None
    samples: int | None = None
    avg_tokens: int | None = None
    epochs: float = 1
    gpu: str = DEFAULT_GPU
    cards: int | None = None
    mfu: float | None = None
    headroom: float = 0.10
    safety_factor: float = 1.0
    interconnect: str | None = None  # the offer's 卡间互联; None: the GPU registry's
    network: str | None = None  # the offer's 节点网络; None: the reference network (assumed)
    stack: str | None = None  # training stack (stacks.STACK_IDS); None: the default, assumed

    @property
    def recompute(self) -> str | None:
        """The user's recomputation setting as one of ``RECOMPUTE``; ``None`` when free."""
        value = self.grad_ckpt
        if value is None or isinstance(value, str):
            return value
        return "full" if value else "none"

    @property
    def tokens_per_epoch(self) -> int:
        """``tokens``, or ``samples × avg_tokens``, or 0 when neither was given."""
        if self.tokens is not None:
            return self.tokens
        if self.samples is not None and self.avg_tokens is not None:
            return self.samples * self.avg_tokens
        return 0


def parse_token_count(text: str | int | float) -> int:
    """``"2T"`` → 2·10¹², ``"300M"``, ``"1.5e9"``, ``"52k"``, ``"3亿"``, ``1_000_000`` → int.

    Read exactly (``"1.5e9"`` is 1,500,000,000, never a float's neighbour) and at most
    :data:`~comparator.domain.limits.MAX_TRAINING_TOKENS`; errors quote the text as given."""
    if isinstance(text, bool) or not isinstance(text, int | float | str):
        raise InputError(
            "expected a token count such as 2T, 300M or 1.5e9, got {text!r}",
            text=text,
            hint=Msg("write a count such as 300M, 2B or 1.5e9 (per epoch)"),
        )
    value = _exact_count(text)
    if value is None or value < 0:
        raise InputError(
            "expected a non-negative token count, got {text!r}",
            text=text,
            hint=Msg("write a count such as 300M, 2B or 1.5e9 (per epoch)"),
        )
    if value > MAX_TRAINING_TOKENS:
        raise InputError(
            "expected a token count of at most 100T (10^14), got {text!r}",
            text=text,
            hint=TOO_MANY_TOKENS_HINT,
        )
    return round(value)


def _exact_count(text: str | int | float) -> Decimal | None:
    """The count ``text`` writes, exactly (None: not finite)."""
    if isinstance(text, int):
        return Decimal(text)
    if isinstance(text, float):
        return Decimal(repr(text)) if math.isfinite(text) else None
    match = _COUNT.match(text.replace(",", "").replace("_", ""))
    if not match:
        raise InputError(
            "expected a token count such as 2T, 300M, 1.5e9 or 52k, got {text!r}",
            text=text,
            hint=Msg("write a count such as 300M, 2B or 1.5e9 (per epoch)"),
        )
    number, exponent, unit = match.groups()
    try:
        value = Decimal(f"{number}e{exponent or 0}") * (_COUNT_UNITS[unit.lower()] if unit else 1)
    except ArithmeticError:  # an exponent past Decimal's range
        return None
    return value if value.is_finite() else None


def normalize_optimizer(name: str) -> str | None:
    return _OPTIMIZER_SPELLINGS.get(name.strip().lower())


def _choice(value: object, allowed: tuple[str, ...]) -> Msg | None:
    if isinstance(value, str) and value in allowed:
        return None
    return Msg("must be one of {names}, got {value!r}", names=", ".join(allowed), value=value)


def _positive_int(value: object, *, allow_zero: bool = False) -> Msg | None:
    low = 0 if allow_zero else 1
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        if allow_zero:
            return Msg("must be a non-negative integer, got {value!r}", value=value)
        return Msg("must be a positive integer, got {value!r}", value=value)
    return None


def _optional_positive(value: object) -> Msg | None:
    return None if value is None else _positive_int(value)


def _optional_text(value: object) -> Msg | None:
    if value is None or isinstance(value, str):
        return None
    return Msg("must be text, got {value!r}", value=value)


def _recompute_problem(value: object) -> Msg | None:
    if value is None or isinstance(value, bool) or value in RECOMPUTE:
        return None
    return Msg(
        "must be true, false or one of {names}, got {value!r}",
        names=", ".join(RECOMPUTE),
        value=value,
    )


def _optional_flag(value: object) -> Msg | None:
    return (
        None
        if value is None or isinstance(value, bool)
        else Msg("must be true or false, got {value!r}", value=value)
    )


def _fraction(value: object, low: float, high: float, *, closed_low: bool) -> Msg | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return Msg("must be a number, got {value!r}", value=value)
    above = value >= low if closed_low else value > low
    if not (above and value <= high):
        bracket = "[" if closed_low else "("
        return Msg(
            "must be in {bracket}{low:g}, {high:g}], got {value!r}",
            bracket=bracket,
            low=low,
            high=high,
            value=value,
        )
    return None


def _setting_problems(request: EstimateRequest) -> list[tuple[str, Msg | None]]:
    return [
        ("method", _choice(request.method, METHODS)),
        ("precision", _choice(request.precision, PRECISIONS)),
        ("optimizer", _choice(request.optimizer, OPTIMIZERS)),
        ("lora_rank", _positive_int(request.lora_rank)),
        ("seq_len", _positive_int(request.seq_len)),
        ("micro_batch", _optional_positive(request.micro_batch)),
        ("global_batch", _optional_positive(request.global_batch)),
        ("grad_ckpt", _recompute_problem(request.grad_ckpt)),
        ("chunked_loss", _optional_flag(request.chunked_loss)),
        ("offload_optimizer", _optional_flag(request.offload_optimizer)),
        (
            "zero",
            None
            if request.zero in (None, 0, 1, 2, 3)
            else Msg("must be 0, 1, 2 or 3, got {value!r}", value=request.zero),
        ),
        ("cards", None if request.cards is None else _positive_int(request.cards)),
        ("mfu", None if request.mfu is None else _fraction(request.mfu, 0, 1, closed_low=False)),
        ("headroom", _fraction(request.headroom, 0, 0.95, closed_low=True)),
        ("safety_factor", _fraction(request.safety_factor, 0.01, 100, closed_low=True)),
        ("epochs", _fraction(request.epochs, 0, 1e6, closed_low=False)),
        ("interconnect", _optional_text(request.interconnect)),
        ("network", _optional_text(request.network)),
        ("stack", None if request.stack is None else _choice(request.stack, STACK_IDS)),
    ]


def _data_problems(request: EstimateRequest) -> list[tuple[str, Msg | None]]:
    problems: list[tuple[str, Msg | None]] = []
    for name in ("tokens", "samples", "avg_tokens"):
        value = getattr(request, name)
        if value is not None:
            problems.append((name, _positive_int(value, allow_zero=True)))
    if request.tokens is not None and request.samples is not None:
        problems.append(("samples", Msg("cannot be combined with tokens: give one of them")))
    if (request.samples is None) != (request.avg_tokens is None) and request.tokens is None:
        missing = "avg_tokens" if request.avg_tokens is None else "samples"
        problems.append((missing, Msg("is needed too: samples and avg_tokens go together")))
    return problems


_TOTAL_TOKENS = "makes {total:,} training tokens in all (× {epochs:g} epochs), past 100T (10^14)"


def _total_tokens_problem(request: EstimateRequest) -> tuple[str, Msg | None]:
    """The whole job's tokens (per epoch × epochs) within the sane bound."""
    total = request.tokens_per_epoch * Decimal(repr(float(request.epochs)))
    field = "tokens" if request.tokens is not None else "samples"
    if total <= MAX_TRAINING_TOKENS:
        return field, None
    return field, Msg(_TOTAL_TOKENS, total=round(total), epochs=request.epochs)


def problems_hint(problems: list[tuple[str, Msg]]) -> Msg | None:
    """What to write instead: the hint of a token count past the bound, else of the first
    setting with a problem."""
    if any(m.text == _TOTAL_TOKENS for _, m in problems):
        return TOO_MANY_TOKENS_HINT
    return next((FIELD_HINTS[f] for f, _ in problems if f in FIELD_HINTS), None)


def _combination_problems(request: EstimateRequest) -> list[tuple[str, Msg | None]]:
    problems: list[tuple[str, Msg | None]] = [_total_tokens_problem(request)]
    if request.pure_bf16 and request.precision == "fp32":
        problems.append(("pure_bf16", Msg("needs precision bf16 or fp16, not fp32")))
    if request.stack is None or request.stack in STACK_IDS:
        problems += _stack_problems(request)
    if request.cards is not None and request.cards > MAX_CARDS:
        problems.append(
            (
                "cards",
                Msg(
                    "{value} cards: more than any placement offers; at most {limit:,} (16 "
                    "machines of at most 1,024 cards)",
                    limit=MAX_CARDS,
                    value=request.cards,
                ),
            )
        )
    return problems


def _stack_problems(request: EstimateRequest) -> list[tuple[str, Msg | None]]:
    """Settings the request's stack (or the default one) does not offer: its methods,
    recomputation modes and loss first, then its sharding."""
    stack = stack_of(request.stack)
    problems: list[tuple[str, Msg | None]] = []
    if request.method not in stack.methods:
        problems.append(
            (
                "method",
                Msg(
                    "{value!r} is not offered by the {stack} stack (it trains {methods}); "
                    "choose another --stack",
                    value=request.method,
                    stack=stack.name,
                    methods=", ".join(stack.methods),
                ),
            )
        )
    recompute = request.recompute
    stated = request.stack is not None  # unstated: any mode, read as the stack that offers it
    if stated and recompute is not None and recompute not in stack.recompute:
        problems.append(
            (
                "grad_ckpt",
                Msg(
                    "{value!r} recomputation is not offered by the {stack} stack; it offers "
                    "{modes} (op-level selective: --stack {op_stack}; selective: {sel_stack})",
                    op_stack="torchtitan",
                    sel_stack="megatron",
                    value=recompute,
                    stack=stack.name,
                    modes=", ".join(stack.recompute),
                ),
            )
        )
    if stated and request.chunked_loss and stack.loss == "full" and not stack.chunkable:
        problems.append(
            (
                "chunked_loss",
                Msg("is not offered by the {stack} stack (its loss is plain)", stack=stack.name),
            )
        )
    return problems + _sharding_problems(request, stack)


def _sharding_problems(request: EstimateRequest, stack: Stack) -> list[tuple[str, Msg | None]]:
    """ZeRO stages and optimizer offload the stack does not offer."""
    problems: list[tuple[str, Msg | None]] = []
    if request.offload_optimizer and stack.offload_min_zero is None:
        problems.append(
            (
                "offload_optimizer",
                Msg("is not offered by the {stack} stack", stack=stack.name),
            )
        )
    multi = request.cards is None or request.cards > 1
    if request.zero is not None and multi and request.zero not in stack.zero_stages:
        problems.append(
            (
                "zero",
                Msg(
                    "stage {value} is not offered by the {stack} stack (it shards with {stages})",
                    value=request.zero,
                    stack=stack.name,
                    stages=", ".join(str(z) for z in stack.zero_stages),
                ),
            )
        )
    floor = stack.offload_min_zero
    zero = request.zero
    below_floor = zero is not None and floor is not None and zero < floor
    if request.offload_optimizer and below_floor and multi:
        problems.append(
            (
                "offload_optimizer",
                Msg(
                    "needs ZeRO stage {floor} or higher under {stack} (optimizer offload "
                    "shards the states first; DDP cannot offload them), got --zero {value}",
                    floor=floor,
                    stack=stack.name,
                    value=zero,
                ),
            )
        )
    return problems


def _is_int(value: object, low: int) -> bool:
    return type(value) is int and value >= low


def _is_number(value: object, low: float, high: float) -> bool:
    return type(value) in (int, float) and low <= value <= high  # type: ignore[operator]


def _plainly_valid(r: EstimateRequest) -> bool:
    """A fast yes for the common well-formed request (the detailed checks explain a no)."""
    return (
        r.method in METHODS
        and r.precision in PRECISIONS
        and r.optimizer in OPTIMIZERS
        and _is_int(r.lora_rank, 1)
        and _is_int(r.seq_len, 1)
        and (r.micro_batch is None or _is_int(r.micro_batch, 1))
        and (r.global_batch is None or _is_int(r.global_batch, 1))
        and (r.grad_ckpt is None or isinstance(r.grad_ckpt, bool) or r.grad_ckpt in RECOMPUTE)
        and (r.chunked_loss is None or isinstance(r.chunked_loss, bool))
        and (r.offload_optimizer is None or isinstance(r.offload_optimizer, bool))
        and r.zero in (None, 0, 1, 2, 3)
        and (r.cards is None or (_is_int(r.cards, 1) and r.cards <= MAX_CARDS))
    ) and (
        (r.mfu is None or _is_number(r.mfu, 1e-9, 1))
        and _is_number(r.headroom, 0, 0.95)
        and _is_number(r.safety_factor, 0.01, 100)
        and _is_number(r.epochs, 1e-9, 1e6)
        and r.samples is None
        and r.avg_tokens is None
        and (r.tokens is None or _is_int(r.tokens, 0))
        and r.tokens_per_epoch * r.epochs <= MAX_TRAINING_TOKENS
        and not (r.pure_bf16 and r.precision == "fp32")
        and _stack_allows(r)
        and (r.interconnect is None or isinstance(r.interconnect, str))
        and (r.network is None or isinstance(r.network, str))
        and (r.stack is None or r.stack in STACK_IDS)
        and isinstance(r.model, str)
        and bool(r.model.strip())
    )


def _stack_allows(r: EstimateRequest) -> bool:
    if r.stack is not None and r.stack not in STACK_IDS:
        return False
    return not _stack_problems(r)


def request_problems(request: EstimateRequest) -> list[tuple[str, Msg]]:
    """(field, message) for every invalid setting; empty when the request is well-formed."""
    if _plainly_valid(request):
        return []
    if not isinstance(request.model, str) or not request.model.strip():
        return [("model", Msg("must name a model, a config.json or a size such as 7B"))]
    checks = _setting_problems(request) + _data_problems(request)
    found = [(field, msg) for field, msg in checks if msg]
    if found:
        return found
    return [(field, msg) for field, msg in _combination_problems(request) if msg]


def flag_name(field: str) -> str:
    return "--" + field.replace("_", "-")


def check_request(request: EstimateRequest) -> None:
    """Raise one :class:`InputError` naming every bad flag."""
    problems = request_problems(request)
    if problems:
        lines = [
            Msg("{flag} {message}", flag=flag_name(f), message=message) for f, message in problems
        ]
        raise InputError("{problems}", problems=MsgList(lines), hint=problems_hint(problems))
