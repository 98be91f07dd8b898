"""Values that are sane or refused (issue 25.2): every job-file key and estimate's numeric flags,
given extreme values, end in a clear error (exit 1 or 2), a plan (0) or no feasible plan (4) —
never "unexpected error" and never a traceback.

The property tests run the real CLI entry (``comparator.cli.main``) on a copy of the demo
catalog (SQLite); the fast tier tries a few cases, ``slow`` many more.
"""

from __future__ import annotations

import dataclasses
import math
import re
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from comparator.domain.job_model import JobFile
from comparator.estimate.request import EstimateRequest
from tests.conftest import REPO, CliResult, run_cli

TODAY = "2026-12-01"  # the planning day of every case (--today): the base jobs' window is ahead
OK_CODES = {0, 1, 2, 4}
CST = timezone(timedelta(hours=8))

WORKLOAD_JOB: dict[str, Any] = {
    "name": "sane",
    "workload": {"card_hours": 64, "gpu": "A100-80G", "cards": 8},
    "schedule": {
        "earliest_start": datetime(2026, 12, 1, tzinfo=CST),
        "deadline": datetime(2026, 12, 4, tzinfo=CST),
    },
    "requirements": {"gpus": ["A100-80G"]},
}
MODEL_JOB: dict[str, Any] = {
    "name": "sane model",
    "model": {"name": "Qwen2.5-7B"},
    "training": {"method": "lora", "tokens": "100M"},
    "schedule": {
        "earliest_start": datetime(2026, 12, 1, tzinfo=CST),
        "deadline": datetime(2026, 12, 8, tzinfo=CST),
    },
    "requirements": {"gpus": ["RTX4090"]},
}


def _table_keys(model: Any, prefix: str) -> list[str]:
    keys = []
    for name, field in model.model_fields.items():
        table = next(
            (a for a in (field.annotation, *getattr(field.annotation, "__args__", ())) if
             isinstance(a, type) and hasattr(a, "model_fields")),
            None,
        )  # fmt: skip
        keys += _table_keys(table, f"{prefix}{name}.") if table else [f"{prefix}{name}"]
    return keys


#: every key of a job file: the pydantic model's, and [training]'s (the estimate's fields)
JOB_KEYS = [k for k in _table_keys(JobFile, "") if k not in ("model", "training")] + [
    "model.name",
    *(
        f"training.{f.name}"
        for f in dataclasses.fields(EstimateRequest)
        if f.name not in ("model", "gpu")
    ),
]

EXTREMES: list[Any] = [
    0,
    -1,
    1,
    2**31,
    2**63,
    10**30,
    -(10**30),
    0.0,
    -0.0,
    1e-300,
    1e300,
    -1e300,
    math.inf,
    -math.inf,
    math.nan,
    True,
    False,
    "",
    " ",
    "200T",
    "1e30",
    "-5",
    "nan",
    "x" * 5000,
    "广东",
    [],
    ["x"],
    [""],
    {},
    date(1, 1, 1),
    date(2020, 1, 1),
    date(9999, 12, 31),
    datetime(1, 1, 1, tzinfo=UTC),
    datetime(2020, 1, 1, tzinfo=CST),
    datetime(2030, 1, 1, tzinfo=CST),
    datetime(9999, 12, 31, 23, tzinfo=CST),
    datetime(2026, 12, 2, 12),
]


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped}"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(type(value))


def toml_document(job: dict[str, Any]) -> str:
    lines = [f"{k} = {toml_value(v)}" for k, v in job.items() if not isinstance(v, dict)]
    for table, values in job.items():
        if isinstance(values, dict):
            lines.append(f"[{table}]")
            lines += [f"{k} = {toml_value(v)}" for k, v in values.items()]
    return "\n".join(lines) + "\n"


def with_value(base: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """``base`` with ``key`` (``table.key`` or ``key``) set to ``value``."""
    job = {k: dict(v) if isinstance(v, dict) else v for k, v in base.items()}
    if "." not in key:
        job[key] = value
        return job
    table, name = key.split(".", 1)
    if (table == "workload" and "model" in job) or (
        table in ("model", "training") and "workload" in job
    ):
        job = {
            k: dict(v) if isinstance(v, dict) else v
            for k, v in (MODEL_JOB if table != "workload" else WORKLOAD_JOB).items()
        }
    if table == "calibration" and "calibration" not in job:
        job["calibration"] = {"gpu": "A100-80G", "cards": 8, "tokens_per_s_per_card": 2400}
    job.setdefault(table, {})
    job[table][name] = value
    return job


def assert_clean(result: CliResult) -> None:
    text = result.out + result.err
    assert result.code in OK_CODES, (result.code, text[-2000:])
    for word in ("unexpected", "意外错误", "Traceback", "a bug in suanli", "缺陷"):
        assert word not in text, text[-2000:]
    if result.code == 1:
        assert "error:" in result.err and "hint:" in result.err, result.err


@pytest.fixture
def plan_cli(capsys: pytest.CaptureFixture[str], demo_db_template: Path, tmp_path: Path) -> Any:
    """`plan` of a job document on a copy of the demo catalog, as of TODAY."""
    import shutil

    db = tmp_path / "demo.db"
    shutil.copy(demo_db_template, db)
    job_path = tmp_path / "job.toml"

    def call(job: dict[str, Any], command: str = "plan", lang: str = "en") -> CliResult:
        job_path.write_text(toml_document(job), encoding="utf-8")
        return run_cli(
            capsys, f"sqlite:///{db}", command, str(job_path), "--today", TODAY, lang=lang
        )

    return call


_SETTINGS = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
}
JOB_CASES = st.lists(
    st.tuples(st.sampled_from(JOB_KEYS), st.sampled_from(EXTREMES)), min_size=1, max_size=2
)


def _plan_extremes(plan_cli: Any, cases: list[tuple[str, Any]], base: dict[str, Any]) -> None:
    job = base
    for key, value in cases:
        job = with_value(job, key, value)
    assert_clean(plan_cli(job))


@settings(max_examples=12, **_SETTINGS)
@given(cases=JOB_CASES, model_job=st.booleans())
def test_plan_never_fails_unexpectedly(
    plan_cli: Any, cases: list[tuple[str, Any]], model_job: bool
) -> None:
    _plan_extremes(plan_cli, cases, MODEL_JOB if model_job else WORKLOAD_JOB)


@pytest.mark.slow
@pytest.mark.long
@settings(max_examples=300, **_SETTINGS)
@given(cases=JOB_CASES, model_job=st.booleans())
def test_plan_never_fails_unexpectedly_many(
    plan_cli: Any, cases: list[tuple[str, Any]], model_job: bool
) -> None:
    _plan_extremes(plan_cli, cases, MODEL_JOB if model_job else WORKLOAD_JOB)


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize("key", JOB_KEYS)
def test_every_key_takes_every_extreme(plan_cli: Any, key: str) -> None:
    """Each key of the job file with each extreme value, one at a time (plan)."""
    for value in EXTREMES:
        for base in (WORKLOAD_JOB, MODEL_JOB):
            assert_clean(plan_cli(with_value(base, key, value)))


ESTIMATE_FLAGS = [
    "--tokens",
    "--samples",
    "--avg-tokens",
    "--epochs",
    "--cards",
    "--mfu",
    "--headroom",
    "--safety-factor",
    "--seq-len",
    "--micro-batch",
    "--global-batch",
    "--lora-rank",
    "--zero",
    "--measured-tokens-per-s",
]
FLAG_VALUES = [
    "0", "-1", "1", "1e30", "-1e30", "1e-300", "nan", "inf", "-inf", "99999999999999999999",
    "200T", "abc", "", "0.5", "1e309",
]  # fmt: skip


def _estimate(cli: Any, flags: list[tuple[str, str]]) -> CliResult:
    samples = any(f == "--samples" for f, _ in flags)
    args = ["estimate", "--model", "7B", *([] if samples else ["--tokens", "1B"])]
    for flag, value in flags:
        args += [flag, value]
    return cli(*args, lang="en")


ESTIMATE_CASES = st.lists(
    st.tuples(st.sampled_from(ESTIMATE_FLAGS), st.sampled_from(FLAG_VALUES)), min_size=1, max_size=3
)


@settings(max_examples=25, **_SETTINGS)
@given(flags=ESTIMATE_CASES)
def test_estimate_flags_never_fail_unexpectedly(cli: Any, flags: list[tuple[str, str]]) -> None:
    result = _estimate(cli, flags)
    text = result.out + result.err
    assert result.code in OK_CODES, text[-2000:]
    assert "bug in suanli" not in text and "Traceback" not in text, text[-2000:]


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize("flag", ESTIMATE_FLAGS)
def test_every_estimate_flag_takes_every_extreme(cli: Any, flag: str) -> None:
    for value in FLAG_VALUES:
        result = _estimate(cli, [(flag, value)])
        text = result.out + result.err
        assert result.code in OK_CODES, (flag, value, text[-2000:])
        assert "bug in suanli" not in text and "Traceback" not in text, (flag, value, text[-2000:])


# --- the cases the issue names ----------------------------------------------------------------


def test_a_window_in_the_past_is_refused_naming_the_deadline(plan_cli: Any) -> None:
    schedule = {
        "earliest_start": datetime(2020, 1, 1, tzinfo=CST),
        "deadline": datetime(2020, 1, 8, tzinfo=CST),
    }
    for command in ("plan", "quote"):
        result = plan_cli({**WORKLOAD_JOB, "schedule": schedule}, command)
        assert result.code == 1
        assert "schedule.deadline" in result.err and "before today 2026-12-01" in result.err
        assert "hint:" in result.err and "--today" in result.err


def test_the_planning_day_is_today_or_the_today_flag(
    capsys: pytest.CaptureFixture[str], demo_db_url: str
) -> None:
    """The example's window (to 2026-12-08) is refused as of 2026-12-09, planned as of 12-07."""
    example = str(REPO / "examples/lora-7b-guangdong.toml")
    late = run_cli(capsys, demo_db_url, "plan", example, "--today", "2026-12-09", lang="en")
    assert late.code == 1 and "schedule.deadline" in late.err
    assert run_cli(capsys, demo_db_url, "plan", example, "--today", "2026-12-07").code == 0


def test_a_start_decades_ahead_and_a_window_of_years_are_refused(plan_cli: Any) -> None:
    far = {
        "earliest_start": datetime(2090, 1, 1, tzinfo=CST),
        "deadline": datetime(2090, 1, 8, tzinfo=CST),
    }
    result = plan_cli({**WORKLOAD_JOB, "schedule": far})
    assert result.code == 1 and "schedule.earliest_start" in result.err
    long = {"earliest_start": datetime(2026, 12, 1, tzinfo=CST), "deadline": datetime(2099, 1, 1)}
    result = plan_cli({**WORKLOAD_JOB, "schedule": long})
    assert result.code == 1 and "schedule.deadline" in result.err and "731 days" in result.err


def test_a_deadline_before_the_start_names_the_deadline(plan_cli: Any) -> None:
    schedule = {
        "earliest_start": datetime(2026, 12, 5, tzinfo=CST),
        "deadline": datetime(2026, 12, 2, tzinfo=CST),
    }
    result = plan_cli({**WORKLOAD_JOB, "schedule": schedule})
    assert result.code == 1 and "schedule.deadline" in result.err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_tokens_200t_is_refused_naming_tokens(plan_cli: Any, lang: str) -> None:
    job = with_value(MODEL_JOB, "training.tokens", "200T")
    for command in ("plan", "quote"):
        result = plan_cli(job, command, lang=lang)
        assert result.code == 1, result.err
        assert "[training] tokens" in result.err and "'200T'" in result.err
        assert "100T" in result.err and "hint:" in result.err


def test_tokens_1e30_and_epochs_past_the_bound_are_refused(plan_cli: Any) -> None:
    result = plan_cli(with_value(MODEL_JOB, "training.tokens", 1e30))
    assert result.code == 1 and "[training] tokens" in result.err
    job = with_value(with_value(MODEL_JOB, "training.tokens", "50T"), "training.epochs", 3)
    result = plan_cli(job)
    assert result.code == 1 and "150,000,000,000,000 training tokens" in result.err


def test_a_refused_quote_burns_no_number(plan_cli: Any) -> None:
    assert plan_cli(with_value(MODEL_JOB, "training.tokens", "200T"), "quote").code == 1
    saved = plan_cli(WORKLOAD_JOB, "quote")
    assert saved.code == 0 and re.search(r"Q-\d{4}-000001", saved.out), saved.out


@pytest.mark.parametrize(
    ("key", "value", "named"),
    [
        ("workload.card_hours", 1e12, "workload.card_hours"),
        ("workload.cards", 100_000, "workload.cards"),
        ("data.dataset_gb", 1e30, "data.dataset_gb"),
        ("schedule.restart_overhead_hours", 10**9, "schedule.restart_overhead_hours"),
        ("training.cards", 100_000, "[training] cards"),
    ],
)
def test_values_past_any_run_name_their_key(
    plan_cli: Any, key: str, value: Any, named: str
) -> None:
    result = plan_cli(with_value(WORKLOAD_JOB, key, value))
    assert result.code == 1, result.out + result.err
    assert named in result.err and "hint:" in result.err


def test_estimate_refuses_1e30_tokens_naming_the_flag(cli: Any) -> None:
    result = cli("estimate", "--model", "7B", "--tokens", "1e30", lang="en")
    assert result.code == 2  # an option value out of range: a usage error
    assert "--tokens" in result.err and "'1e30'" in result.err and "hint:" in result.err
    assert "Wall-clock" not in result.out


def test_estimate_echoes_the_token_count_exactly(cli: Any) -> None:
    result = cli("estimate", "--model", "7B", "--tokens", "1.5e9", "--json")
    assert result.json()["tokens"] == 1_500_000_000
    text = cli("estimate", "--model", "7B", "--tokens", "3e13", lang="en").out
    assert "30,000,000,000,000" in text and "30,000,000,000,000,0" not in text


def test_a_calibration_100_times_off_the_prediction_is_refused(plan_cli: Any, cli: Any) -> None:
    result = plan_cli(with_value(MODEL_JOB, "calibration.tokens_per_s_per_card", 1e30))
    assert result.code == 1, result.out + result.err
    assert "calibration:" in result.err and "100× off" in result.err and "hint:" in result.err
    flags = ("estimate", "--model", "7B", "--tokens", "1B", "--measured-tokens-per-s", "1e9")
    result = cli(*flags, lang="en")
    assert result.code == 1 and "--measured-tokens-per-s" in result.err


def test_a_model_name_no_file_system_takes_is_an_unknown_model(plan_cli: Any, cli: Any) -> None:
    name = "x" * 5000
    result = plan_cli(with_value(MODEL_JOB, "model.name", name))
    assert result.code == 1 and "[model] name" in result.err and "unknown model" in result.err
    assert cli("estimate", "--model", name, lang="en").code == 1


def test_suanli_today_is_the_planning_day_unless_today_is_given(
    capsys: pytest.CaptureFixture[str], demo_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    example = str(REPO / "examples/lora-7b-guangdong.toml")
    monkeypatch.setenv("SUANLI_TODAY", "2026-12-20")
    late = run_cli(capsys, demo_db_url, "plan", example, lang="en")
    assert late.code == 1 and "before today 2026-12-20" in late.err
    assert run_cli(capsys, demo_db_url, "plan", example, "--today", "2026-12-02").code == 0
    monkeypatch.setenv("SUANLI_TODAY", "someday")
    bad = run_cli(capsys, demo_db_url, "plan", example, lang="en")
    assert bad.code == 1 and "SUANLI_TODAY" in bad.err
