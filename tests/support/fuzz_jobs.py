"""Seeded mutations of a valid job file: values swapped for other TOML types, keys dropped,
unknown keys, tables replaced by values, signed zeros, BOMs, GB18030 with and without its
declaration, Big5, damaged bytes. Used by tests/domain/test_input_job_fuzz.py and
``scripts/faults`` (:mod:`tests.support.faults`).
"""

from __future__ import annotations

import codecs
import random
import tomllib
from typing import Any

BASE: dict[str, Any] = tomllib.loads(
    """
name = "客服助手微调"
currency = "CNY"
[workload]
card_hours = 120
gpu = "A100-80G"
cards = 8
[schedule]
earliest_start = 2026-12-01T00:00:00+08:00
deadline = 2026-12-08T00:00:00+08:00
interruptible = true
restart_overhead_hours = 0
run_windows = ["mon-fri 09:00-18:00"]
max_hours_per_day = 9
[requirements]
gpus = ["A100-80G", "H800"]
provinces = ["广东省", "粤"]
certifications = ["ISO27001"]
mlps_level = 3
export_basis = "exempt"
[budget]
max_cost = 20000
max_price_per_card_hour = "35.5"
[data]
dataset_gb = 500
"""
)
ODD_VALUES: list[Any] = [
    0,
    -0,
    -0.0,
    -1,
    1.5,
    10**30,
    "",
    "  ",
    "x" * 300,
    "-0",
    "1e400",
    "NaN",
    True,
    [],
    [1, "a"],
    {},
    {"a": 1},
    "2026-13-45",
    "A1OO",
    "Atlantis",
    "\x00",
]


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return (
            '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\x00", "\\u0000") + '"'
        )
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + "}"
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def _dump(document: dict[str, Any]) -> str:
    top = [f"{k} = {_toml_value(v)}" for k, v in document.items() if not isinstance(v, dict)]
    tables = [
        f"[{k}]\n" + "\n".join(f"{key} = {_toml_value(v)}" for key, v in table.items())
        for k, table in document.items()
        if isinstance(table, dict)
    ]
    return "\n".join(top) + "\n\n" + "\n\n".join(tables) + "\n"


def mutate(rng: random.Random) -> bytes:
    document = {k: dict(v) if isinstance(v, dict) else v for k, v in BASE.items()}
    for _ in range(rng.randint(1, 4)):
        table = rng.choice(list(document))
        kind = rng.randrange(5)
        target = document[table]
        if kind == 0 and isinstance(target, dict) and target:
            target[rng.choice(list(target))] = rng.choice(ODD_VALUES)
        elif kind == 1 and isinstance(target, dict) and target:
            del target[rng.choice(list(target))]
        elif kind == 2:
            (target if isinstance(target, dict) else document)["unknown_key"] = 1
        elif kind == 3:
            document[table] = rng.choice(ODD_VALUES)
        else:
            document.pop(table, None)
    text = _dump(document)
    encoding = rng.choice(["utf-8", "utf-8-bom", "gb18030-declared", "gb18030", "big5"])
    if encoding == "utf-8-bom":
        data = codecs.BOM_UTF8 + text.encode()
    elif encoding == "gb18030-declared":
        data = ("# -*- coding: gb18030 -*-\n" + text).encode("gb18030")
    else:
        data = text.encode(encoding.removesuffix("-bom"), errors="replace")
    if rng.random() < 0.15:
        buffer = bytearray(data)
        for _ in range(rng.randint(1, 6)):
            buffer[rng.randrange(len(buffer))] = rng.randrange(256)
        data = bytes(buffer)
    return data
