#!/usr/bin/env python3
"""Every number the README quotes from an example, computed from the example.

Run from the repository root:  .venv/bin/python scripts/readme_numbers.py [--check | --write]

The examples are planned (``suanli plan examples/… --json``) on a fresh demo catalog as of
their first day (2026-12-01), a first quote is made on it, and the demo catalog, the built-in
models, the cited runs, the latency table and the bundled configs are counted. Each README
sentence below is a template whose ``{name}`` fields are those figures: ``--check`` (the
default) prints every figure the README states otherwise and exits 1;
``--write`` puts the computed figures into README.md in place (its line breaks are kept).
``tests/package/test_readme_numbers.py`` runs the check, so a change in the tool's output fails
a test until the README says the same.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
import tempfile
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
EXAMPLES_DAY = "2026-12-01"  # the examples' earliest_start: they are planned as of that day
_FIELD = re.compile(r"\{(\w+)\}")
_WORDS = {5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}

#: README sentences with their figures as fields (whitespace matches any run of whitespace)
SENTENCES: tuple[str, ...] = (
    "The range's `expected` hours are the compute hours ({seeds_compute_hours}), not the "
    "billed whole hours ({seeds_billed_hours}).",
    "Suanli computes {seeds_card_hours} card-hours, {seeds_compute_hours} h on {seeds_cards} "
    "cards, billed {seeds_billed_hours} h, and finds an {seeds_cards}×A100 machine at "
    "{seeds_card_hour_price} 元/卡时 in the demo catalog: {seeds_total} 元),",
    "`70b-full-multinode.toml` (70B full fine-tuning over IB: {big_nodes} × {big_node_cards}-card "
    "{big_gpu} machines, {big_run_hours} h, {big_total} 元 in the demo catalog),",
    "(1 Gbit/s assumed when not stated: 2 TB ≈ {upload_hours} h)",
    "suanli quote --show {first_quote} -o again.html",
    "`providers/demo/` holds {demo_providers_word} **fictional** providers (ids `demo-…`, "
    "`demo = true`) with {demo_offers} offers:",
    "(`one.csv → demo-nanshan: {nanshan_offers} → 1 offers ({nanshan_gone} gone)`)",
    "({builtin_models} open models:",
    "an efficiency fitted to {cited_runs} cited published runs",
    "From 深圳, 广州 ({guangzhou_km} km) is ≈ {guangzhou_ms} ms and 乌兰察布 ({ulanqab_km} km) "
    "≈ {ulanqab_ms} ms,",
    "(`suanli estimate --model DeepSeek-V3/config.json` → {dsv3_params} / {dsv3_active})",
    "gpt-oss-20b → {oss_params} / {oss_active})",
    "Scout → {scout_params} / {scout_active})",
)


def _cli_json(*args: str) -> Any:
    """``suanli ARGS --json``, run in this process, as a document."""
    from comparator.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main([*args, "--json"])
    if code != 0:
        raise SystemExit(f"suanli {' '.join(args)} exited {code}")
    return json.loads(out.getvalue())


def _plan(db: str, example: str) -> dict[str, Any]:
    document = _cli_json(
        "--db", db, "plan", str(REPO / "examples" / example), "--today", EXAMPLES_DAY
    )
    best: dict[str, Any] = document["plans"][0]["best"]
    return best


def _hours(value: float) -> str:
    return f"{value:,.1f}"


def _money(value: str) -> str:
    return f"{Decimal(value):,.2f}"


def _billions(value: float) -> str:
    return f"{round(value / 1e9, 1):g}B"


def _example_figures(db: str) -> dict[str, str]:
    seeds = _plan(db, "seeds-13b-full-8xa100.toml")
    hourly = seeds["segments"][0]
    big = _plan(db, "70b-full-multinode.toml")
    storage = _plan(db, "storage-upload-windows.toml")
    upload = next(item for item in storage["bill"] if item["kind"] == "upload")
    return {
        "seeds_card_hours": _hours(seeds["figures"]["card_hours"]),
        "seeds_compute_hours": _hours(seeds["figures"]["compute_hours"]),
        "seeds_cards": str(seeds["cards"]),
        "seeds_billed_hours": str(seeds["figures"]["run_hours"]),
        "seeds_card_hour_price": f"{(Decimal(hourly['unit_price']) / seeds['cards']).normalize():f}",
        "seeds_total": _money(seeds["total_cost"]),
        "big_nodes": str(big["machines"]["nodes"]),
        "big_node_cards": str(big["machines"]["node_cards"]),
        "big_gpu": big["gpu"],
        "big_run_hours": str(big["run_hours"]),
        "big_total": _money(big["total_cost"]),
        "upload_hours": f"{Decimal(upload['quantity']):.1f}",
    }


def _catalog_figures(db: str) -> dict[str, str]:
    from comparator.config import load_settings
    from comparator.services import make_quote

    providers = _cli_json("--db", db, "providers")["providers"]
    offers = _cli_json("--db", db, "offers", "--limit", "100000")["offers"]
    nanshan = sum(1 for offer in offers if offer["provider"] == "demo-nanshan")
    from comparator.catalog import make_engine

    engine = make_engine(db)
    now = datetime.fromisoformat(f"{EXAMPLES_DAY}T09:00:00").replace(
        tzinfo=ZoneInfo("Asia/Shanghai")
    )
    job = REPO / "examples" / "lora-7b-guangdong.toml"
    stored = make_quote(engine, job, load_settings(db_url=db), now=now)
    engine.dispose()
    return {
        "demo_providers_word": _WORDS.get(len(providers), str(len(providers))),
        "demo_offers": str(len(offers)),
        "nanshan_offers": str(nanshan),
        "nanshan_gone": str(nanshan - 1),
        "first_quote": stored.number,
    }


def _model_figures() -> dict[str, str]:
    from comparator.domain.geo import approximate_rtt_ms, great_circle_km, known_city, place_of
    from comparator.estimate import BUILTIN_SHAPES
    from comparator.estimate.shapes import resolve_model

    configs = REPO / "tests" / "data" / "hf_configs"
    figures = {"builtin_models": str(len(BUILTIN_SHAPES))}
    fit = json.loads((REPO / "comparator" / "estimate" / "mfu_fit.json").read_text())
    figures["cited_runs"] = str(fit["runs"])
    start = place_of(None, known_city("深圳"))
    for key, city in (("guangzhou", "广州"), ("ulanqab", "乌兰察布")):
        there = place_of(None, known_city(city))
        assert start is not None and there is not None
        km = great_circle_km(start, there)
        figures[f"{key}_km"] = f"{round(km):,}"
        figures[f"{key}_ms"] = f"{approximate_rtt_ms(km)}"
    for key, name in (
        ("dsv3", "deepseek-v3.json"),
        ("oss", "gpt-oss-20b.json"),
        ("scout", "llama-4-scout-17b-16e.json"),
    ):
        shape = resolve_model(str(configs / name))
        figures[f"{key}_params"] = _billions(shape.params)
        figures[f"{key}_active"] = _billions(shape.active_params)
    return figures


def compute() -> dict[str, str]:
    """Every figure of :data:`SENTENCES`, from the examples on a fresh demo catalog."""
    from comparator.cli import main

    with tempfile.TemporaryDirectory() as folder:
        db = f"sqlite:///{Path(folder) / 'demo.db'}"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            if main(["--db", db, "init"]) != 0:
                raise SystemExit("suanli init failed")
        return {**_example_figures(db), **_catalog_figures(db), **_model_figures()}


def _pattern(sentence: str) -> tuple[re.Pattern[str], list[str]]:
    """The sentence as a pattern: each field a group, each whitespace run any whitespace."""
    names, parts = [], []
    for index, piece in enumerate(_FIELD.split(sentence)):
        if index % 2:
            names.append(piece)
            parts.append(r"(\S+?)")
        else:
            parts.append(r"\s+".join(re.escape(word) for word in piece.split(" ")))
    return re.compile("".join(parts)), names


def problems(readme: str, figures: dict[str, str]) -> list[str]:
    """What the README says otherwise than ``figures`` (empty: it agrees)."""
    found = []
    for sentence in SENTENCES:
        pattern, names = _pattern(sentence)
        match = pattern.search(readme)
        if match is None:
            filled = _FIELD.sub(lambda m: figures.get(m.group(1), m.group(0)), sentence)
            found.append(f"not in README.md: {filled!r}")
            continue
        for name, said in zip(names, match.groups(), strict=True):
            if name in figures and said != figures[name]:
                found.append(f"README.md says {name} = {said!r}; the tool gives {figures[name]!r}")
    return found


def written(readme: str, figures: dict[str, str]) -> str:
    """``readme`` with every sentence's figures replaced by ``figures``."""
    for sentence in SENTENCES:
        pattern, names = _pattern(sentence)
        match = pattern.search(readme)
        if match is None or not set(names) <= set(figures):
            continue
        text = readme
        for group in range(len(names), 0, -1):  # from the end: earlier spans stay valid
            start, end = match.span(group)
            text = text[:start] + figures[names[group - 1]] + text[end:]
        readme = text
    return readme


def main(argv: list[str]) -> int:
    figures = compute()
    readme = README.read_text(encoding="utf-8")
    if "--write" in argv:
        README.write_text(written(readme, figures), encoding="utf-8")
        readme = README.read_text(encoding="utf-8")
    found = problems(readme, figures)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
