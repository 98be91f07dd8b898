"""Calibrate from the team's own trial run (issue 23, item 3): `plan --calibration FILE` and a
job's `[calibration]` move the plan's card-hours to the measurement."""

from __future__ import annotations

import re
import tomllib
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from comparator.domain.calibration import load_calibration
from comparator.domain.job import parse_job
from comparator.errors import JobFileError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SEEDS = EXAMPLES / "seeds-13b-full-8xa100.toml"  # 1,000,000 samples × 2,048 tokens, 1 epoch
TODAY = "2026-11-29"


def _calibration_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "trial.toml"
    path.write_text("[calibration]\n" + body, encoding="utf-8")
    return path


def test_plan_calibration_moves_the_card_hours_to_the_measurement(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    trial = _calibration_file(
        tmp_path,
        'gpu = "A100-80G"\ncards = 8\ntokens_per_s_per_card = 2400\nmeasured_on = 2026-11-20\n',
    )
    plain = cli("plan", str(SEEDS), "--json", "--today", TODAY, db=demo_db_url, lang="en")
    moved = cli(
        "plan", str(SEEDS), "--json", "--today", TODAY, "--calibration", str(trial),
        db=demo_db_url, lang="en",
    )  # fmt: skip
    assert plain.code == 0 and moved.code == 0, moved.err
    before, after = plain.json()["plans"][0], moved.json()["plans"][0]
    best = after["best"]
    assert best["gpu"] == "A100-SXM4-80GB" and best["cards"] == 8
    # by hand: 1,000,000 × 2,048 tokens at 2,400 tokens/s per card
    #   = 2.048e9 / 2,400 / 3,600 = 237.037… card-hours, on 8 cards 29.63 h → 30 whole hours
    assert best["card_hours"] == pytest.approx(2.048e9 / 2400 / 3600, rel=1e-9)
    assert best["work_hours"] == 30
    assert best["figures"]["tokens_per_s_per_card"] == 2400
    assert before["best"]["card_hours"] != pytest.approx(best["card_hours"], rel=0.01)
    # the range narrows around the measurement
    wide, narrow = before["best"]["card_hours_range"], best["card_hours_range"]
    assert (
        narrow["high"] - narrow["low"]
        < (wide["high"] - wide["low"]) * best["card_hours"] / (before["best"]["card_hours"])
    )
    calibration = after["assumptions"]["calibration"]
    assert calibration["gpu"] == "A100-SXM4-80GB" and calibration["measured_on"] == "2026-11-20"
    factor = 2400 / calibration["predicted_tokens_per_s_per_card"]
    assert calibration["factor"] == pytest.approx(factor, rel=1e-3)
    # the model carried the ratio: the uncalibrated card-hours over the factor
    assert best["card_hours"] == pytest.approx(before["best"]["card_hours"] / factor, rel=1e-3)

    text = cli(
        "plan", str(SEEDS), "--today", TODAY, "--calibration", str(trial), db=demo_db_url,
        lang="en",
    )  # fmt: skip
    assert "calibrated from a measured run on 8 × A100-SXM4-80GB (2026-11-20)" in text.out


def test_the_quote_says_it_was_calibrated(cli: Any, demo_db_url: str, tmp_path: Path) -> None:
    trial = _calibration_file(
        tmp_path,
        'gpu = "A100-80G"\ncards = 8\ntokens_per_s_per_card = 2400\nmeasured_on = 2026-11-20\n',
    )
    html = tmp_path / "quote.html"
    out = cli(
        "quote", str(SEEDS), "-o", str(html), "--today", TODAY, "--calibration", str(trial),
        "--json", db=demo_db_url, lang="en",
    )  # fmt: skip
    assert out.code == 0, out.err
    page = re.sub(r"<[^>]+>", "", html.read_text(encoding="utf-8"))  # ids sit in token spans
    assert "calibrated from a measured run on 8 × A100-SXM4-80GB (2026-11-20)" in page
    assert out.json()["plan"]["best"]["figures"]["tokens_per_s_per_card"] == 2400


def test_a_job_calibration_from_a_step_time(tmp_path: Path) -> None:
    data = tomllib.loads(SEEDS.read_text("utf-8"))
    data["calibration"] = {
        "gpu": "A100-80G",
        "cards": 8,
        "step_time_s": 2.048,
        "micro_batch": 1,
        "seq_len": 2048,
        "gradient_accumulation": 4,
        "stack": "deepspeed",
        "measured_on": date(2026, 11, 20),
    }
    job = parse_job(data, "seeds.toml")
    assert job.calibration is not None
    # 1 × 2,048 × 4 tokens per card per step over 2.048 s
    assert job.calibration.tokens_per_s_per_card == Decimal(4000)
    assert job.calibration.gpu == "A100-SXM4-80GB" and job.calibration.stack == "deepspeed"


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ('gpu = "A100-80G"\ncards = 8\n', "calibration.tokens_per_s_per_card"),
        ('gpu = "A100-80G"\ncards = 8\nstep_time_s = 2\n', "calibration.micro_batch"),
        ('gpu = "A100-80G"\ntokens_per_s_per_card = 1\n', "calibration.cards"),
        (
            'gpu = "A100-80G"\ncards = 8\ntokens_per_s_per_card = 1\nspeed = 2\n',
            "calibration.speed",
        ),
        ('gpu = "Z9000"\ncards = 8\ntokens_per_s_per_card = 1\n', "calibration.gpu"),
    ],
)
def test_a_bad_calibration_file_names_the_key(tmp_path: Path, body: str, key: str) -> None:
    with pytest.raises(JobFileError, match=key.replace(".", r"\.")):
        load_calibration(_calibration_file(tmp_path, body))


def test_a_missing_calibration_file_is_one_error(cli: Any, demo_db_url: str) -> None:
    result = cli("plan", str(SEEDS), "--calibration", "/nonexistent/trial.toml", db=demo_db_url)
    assert result.code != 0 and "trial.toml" in result.err and "Traceback" not in result.err


def test_estimate_moves_to_a_measured_tokens_per_s(cli: Any) -> None:
    args = ("estimate", "--model", "Llama-2-13b", "--method", "full", "--tokens", "2048M")
    args += ("--gpu", "A100-80G", "--cards", "8", "--json")
    plain = cli(*args).json()
    moved = cli(*args, "--measured-tokens-per-s", "2400").json()
    # by hand: 2.048e9 tokens / 2,400 tokens/s per card / 3,600 s = 237.04 card-hours
    assert moved["card_hours"] == pytest.approx(2.048e9 / 2400 / 3600, rel=1e-9)
    assert moved["calibration"]["cards"] == 8 and plain["calibration"] is None
    predicted = 2.048e9 / (plain["card_hours"] * 3600)
    assert moved["calibration"]["predicted_tokens_per_s_per_card"] == pytest.approx(predicted, 1e-3)


def test_verify_writes_the_calibration_file_plan_reads(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    smi = Path(__file__).parents[1] / "data" / "nvidia-smi" / "a100-sxm4-80gb-x8.xml"
    out = tmp_path / "trial.toml"
    result = cli(
        "verify", "--nvidia-smi-xml", str(smi), "--no-measure", "--calibration-out", str(out),
        "--trial-tokens-per-s", "2400", "--json", db=demo_db_url,
    )  # fmt: skip
    assert result.code == 0, result.err
    calibration = load_calibration(out)
    assert calibration.gpu == "A100-SXM4-80GB" and calibration.cards == 8
    assert calibration.tokens_per_s_per_card == Decimal("2400.0")
    assert calibration.measured_on is not None
    planned = cli(
        "plan", str(SEEDS), "--json", "--today", TODAY, "--calibration", str(out),
        db=demo_db_url,
    )  # fmt: skip
    assert planned.json()["plans"][0]["best"]["card_hours"] == pytest.approx(
        2.048e9 / 2400 / 3600, rel=1e-9
    )
    missing = cli("verify", "--nvidia-smi-xml", str(smi), "--calibration-out", str(out))
    assert missing.code != 0 and "--trial-tokens-per-s" in missing.err
