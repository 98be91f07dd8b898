"""Build an :class:`EstimateRequest` from a job file's ``[model]`` and ``[training]`` tables.

``[training]`` takes the same names and defaults as the ``suanli estimate`` flags (dashes or
underscores); ``tokens`` and ``samples`` accept ``"300M"``-style strings. The GPU comes from
the caller (the planner tries each candidate GPU). Every problem raises a
:class:`JobFileError` naming the job file and the key.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from comparator.errors import InputError, JobFileError, Msg, MsgList, as_msg
from comparator.estimate.request import (
    RECOMPUTE,
    EstimateRequest,
    normalize_optimizer,
    parse_token_count,
    problems_hint,
    request_problems,
)
from comparator.estimate.shapes import path_exists, resolve_model
from comparator.estimate.stacks import normalize_stack

_FIELDS = {f.name for f in dataclasses.fields(EstimateRequest)} - {"model", "gpu"}
_BOOL_KEYS = frozenset({"pure_bf16", "flash_attn", "chunked_loss", "offload_optimizer"})
_INT_KEYS = frozenset(
    {"lora_rank", "seq_len", "micro_batch", "global_batch", "zero", "cards", "avg_tokens"}
)
_COUNT_KEYS = frozenset({"tokens", "samples"})
_NUMBER_KEYS = frozenset({"epochs", "mfu", "headroom", "safety_factor"})
_TEXT_KEYS = frozenset({"method", "precision", "optimizer", "stack"})


def _fail(
    source: str, where: str, message: str | Msg, hint: str | Msg | None = None
) -> JobFileError:
    return JobFileError(
        "{source}: {where} {message}",
        source=source,
        where=where,
        message=as_msg(message),
        hint=hint,
    )


def _as_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise InputError(
            "must be true or false, got {value!r}",
            value=value,
            hint=Msg("`suanli schema job` prints the kind of value each [training] key takes"),
        )
    return value


def _as_recompute(value: Any) -> bool | str:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in RECOMPUTE:
        return value.strip().lower()
    raise InputError(
        "must be true, false or one of {names}, got {value!r}",
        names=", ".join(RECOMPUTE),
        value=value,
        hint=Msg("`suanli schema job` prints the kind of value each [training] key takes"),
    )


def _as_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(
            "must be an integer, got {value!r}",
            value=value,
            hint=Msg("`suanli schema job` prints the kind of value each [training] key takes"),
        )
    return value


def _as_count(value: Any) -> int:
    return parse_token_count(value)


def _as_number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(
            "must be a number, got {value!r}",
            value=value,
            hint=Msg("`suanli schema job` prints the kind of value each [training] key takes"),
        )
    return float(value)


def _as_text(key: str) -> Callable[[Any], str]:
    def convert(value: Any) -> str:
        if not isinstance(value, str):
            raise InputError(
                "must be a string, got {value!r}",
                value=value,
                hint=Msg("`suanli schema job` prints the kind of value each [training] key takes"),
            )
        text = value.strip().lower()
        if key == "stack":
            return normalize_stack(text) or text
        return (normalize_optimizer(text) or text) if key == "optimizer" else text

    return convert


def _converter(key: str) -> Callable[[Any], Any]:
    if key in _BOOL_KEYS:
        return _as_bool
    if key == "grad_ckpt":
        return _as_recompute
    if key in _INT_KEYS:
        return _as_int
    if key in _COUNT_KEYS:
        return _as_count
    if key in _NUMBER_KEYS:
        return _as_number
    return _as_text(key)


def _training_values(training: Mapping[str, Any], source: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for raw_key, value in training.items():
        key = str(raw_key).replace("-", "_")
        if key == "gpu":
            raise _fail(
                source,
                "[training] gpu",
                "is not read here: put the GPU in [workload] gpu or [requirements] gpus",
            )
        if key not in _FIELDS:
            known = ", ".join(sorted(_FIELDS))
            raise _fail(
                source,
                f"[training] {raw_key}",
                Msg("is not a known key; expected one of {names}", names=known),
            )
        try:
            values[key] = _converter(key)(value)
        except InputError as exc:
            raise _fail(source, f"[training] {raw_key}", exc.msg, exc.hint) from None
    return values


def _model_spec(model: Mapping[str, Any], source: str) -> str:
    extra = sorted(str(k) for k in model if k != "name")
    if extra:
        raise _fail(source, f"[model] {extra[0]}", "is not a known key; expected only name")
    name = model.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _fail(
            source,
            "[model] name",
            "is required: a model name, a config.json path or a size such as 7B",
        )
    name = name.strip()
    path = Path(name).expanduser()
    if path.is_absolute():
        return str(path)
    beside_job = Path(source).parent / path
    if path_exists(beside_job) or name.endswith(".json"):
        return str(beside_job)  # relative paths are relative to the job file
    return name


def request_from_job(
    model: Mapping[str, Any], training: Mapping[str, Any], *, gpu: str, source: str
) -> EstimateRequest:
    """The estimate request a job file describes; :class:`JobFileError` on any bad key."""
    spec = _model_spec(model, source)
    try:
        resolve_model(spec)
    except InputError as exc:
        raise _fail(
            source, "[model] name", Msg("is not usable: {reason}", reason=exc.msg)
        ) from None
    request = EstimateRequest(model=spec, gpu=gpu, **_training_values(training, source))
    problems = request_problems(request)
    if problems:
        lines = [
            Msg("[training] {field} {message}", field=field, message=message)
            for field, message in problems
        ]
        raise JobFileError(
            "{path}: {problems}",
            path=source,
            problems=MsgList(lines),
            hint=problems_hint(problems),
        )
    return request
