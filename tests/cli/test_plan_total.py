"""Several jobs planned together print their combined total, the JSON's ``total_cost``
(issue 25: the text output had no total)."""

from __future__ import annotations

import pytest

from comparator.domain import money_text
from tests.conftest import REPO, run_cli

JOBS = [
    str(REPO / "examples" / n) for n in ("lora-7b-guangdong.toml", "seeds-13b-full-8xa100.toml")
]


@pytest.mark.slow
def test_several_jobs_print_their_total(
    capsys: pytest.CaptureFixture[str], demo_db_url: str
) -> None:
    args = ("plan", *JOBS, "--today", "2026-12-01")
    document = run_cli(capsys, demo_db_url, *args, "--json").json()
    plans = [p["best"]["total_cost"] for p in document["plans"]]
    assert sum(float(t) for t in plans) == pytest.approx(float(document["total_cost"]))
    english = run_cli(capsys, demo_db_url, *args, lang="en")
    assert english.code == 0
    total = money_text(document["total_cost"], "CNY")  # ¥2,776.16: the CLI's one money format
    assert f"Total of 2 of 2 jobs: {total}" in english.out
    chinese = run_cli(capsys, demo_db_url, *args)
    assert f"2 个任务中 2 个有方案，合计：{total}" in chinese.out
