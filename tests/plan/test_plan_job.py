"""Job files (CONTRACT.md "Job file"): parsing, canonical names and clear errors."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from comparator.domain.job import load_job
from comparator.errors import JobFileError

CONTRACT_EXAMPLE = """
name = "legal-assistant-qwen7b-lora"
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

[requirements]
gpus = ["A100-80G", "H800"]
provinces = ["广东省"]
cities = []
certifications = ["ISO27001"]
mlps_level = 3
contains_personal_info = true
invoice = "专票"
spot = false

[budget]
max_cost = 20000
"""


def write(tmp_path: Path, text: str, name: str = "job.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_contract_example_loads_with_canonical_names(tmp_path: Path) -> None:
    job = load_job(write(tmp_path, CONTRACT_EXAMPLE))
    assert job.name == "legal-assistant-qwen7b-lora"
    assert job.workload.card_hours == Decimal(120)
    assert job.workload.gpu == "A100-SXM4-80GB" and job.workload.cards == 8
    assert job.requirements.gpus == ("A100-SXM4-80GB", "H800-SXM5-80GB")
    assert job.requirements.provinces == ("广东",)
    assert job.requirements.mlps_level == 3 and job.requirements.contains_personal_info
    assert job.max_cost == Decimal(20000)
    assert job.schedule.interruptible and job.schedule.restart_overhead_hours == 0
    assert job.source.endswith("job.toml")


def test_naive_dates_are_read_in_shanghai(tmp_path: Path) -> None:
    text = CONTRACT_EXAMPLE.replace("2026-12-08T00:00:00+08:00", "2026-12-08T00:00:00")
    job = load_job(write(tmp_path, text))
    assert job.schedule.deadline == datetime(2026, 12, 8, tzinfo=ZoneInfo("Asia/Shanghai"))
    assert job.schedule.deadline.tzinfo is not None


def test_a_model_job_keeps_model_and_training_for_the_estimator(tmp_path: Path) -> None:
    text = """
[model]
name = "Qwen2.5-7B"
[training]
method = "lora"
tokens = "300M"
[schedule]
earliest_start = 2026-12-01T00:00:00+08:00
deadline = 2026-12-08T00:00:00+08:00
"""
    job = load_job(write(tmp_path, text, "qwen.toml"))
    assert job.name == "qwen" and job.workload.card_hours is None
    assert job.model == {"name": "Qwen2.5-7B"} and job.training == {
        "method": "lora",
        "tokens": "300M",
    }
    assert not job.schedule.interruptible


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (("card_hours = 120", "card_hours = -1"), "workload.card_hours"),
        (('gpu = "A100-80G"', 'gpu = "A1OO"'), "workload.gpu"),
        (("cards = 8", "cards = 0"), "workload.cards"),
        (
            ("deadline = 2026-12-08T00:00:00+08:00", "deadline = 2026-11-30T00:00:00+08:00"),
            "schedule.deadline",
        ),
        (("interruptible = true", 'interruptible = "yes"'), "schedule.interruptible"),
        (
            ("restart_overhead_hours = 0", "restart_overhead_hours = 0.5"),
            "schedule.restart_overhead_hours",
        ),
        (('provinces = ["广东省"]', 'provinces = ["Atlantis"]'), "requirements.provinces"),
        (("mlps_level = 3", "mlps_level = 7"), "requirements.mlps_level"),
        (("spot = false", "spot = false\nspots = true"), "requirements.spots"),
        (("max_cost = 20000", "max_cost = 0"), "budget.max_cost"),
        (('currency = "CNY"', 'currency = "yuan"'), "currency"),
    ],
)
def test_bad_fields_are_named_with_the_file(
    tmp_path: Path, change: tuple[str, str], field: str
) -> None:
    path = write(tmp_path, CONTRACT_EXAMPLE.replace(*change))
    with pytest.raises(JobFileError) as caught:
        load_job(path)
    assert str(caught.value).startswith(f"{path}: {field}")


def test_workload_and_model_are_exclusive(tmp_path: Path) -> None:
    text = CONTRACT_EXAMPLE + '\n[model]\nname = "7B"\n'
    with pytest.raises(JobFileError, match="either \\[workload\\] or \\[model\\]"):
        load_job(write(tmp_path, text))
    no_work = (
        CONTRACT_EXAMPLE.split("[workload]")[0]
        + "[schedule]"
        + CONTRACT_EXAMPLE.split("[schedule]")[1]
    )
    with pytest.raises(JobFileError, match="\\[workload\\] card_hours, or \\[model\\]"):
        load_job(write(tmp_path, no_work))


def test_unreadable_files_are_job_file_errors(tmp_path: Path) -> None:
    with pytest.raises(JobFileError, match="no such job file"):
        load_job(tmp_path / "missing.toml")
    with pytest.raises(JobFileError, match="not valid TOML"):
        load_job(write(tmp_path, "name = \n"))
