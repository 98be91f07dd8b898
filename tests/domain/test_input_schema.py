"""`suanli schema job|profile|sources`, and the file models behind it: the models are the
readers (the schemas list exactly the keys accepted), and every example file validates."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from comparator.domain.input_model import _table_class
from comparator.domain.job_model import JobFile
from comparator.domain.profile_model import ProfileFile
from comparator.i18n.messages import MESSAGES_ZH
from comparator.refresh.sources_model import (
    COMMON_KEYS,
    SOURCES_FILE,
    source_models,
    sources_file_model,
)
from providers import ADAPTERS

REPO = Path(__file__).resolve().parents[2]
JOBS = sorted(
    p for p in (REPO / "examples").glob("*.toml") if "[schedule]" in p.read_text(encoding="utf-8")
)


@pytest.mark.parametrize("kind", ["job", "profile", "sources"])
def test_schema_prints_a_json_schema(cli: Any, kind: str) -> None:
    result = cli("schema", kind)
    assert result.code == 0, result.err
    schema = result.json()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["type"] == "object" and schema["additionalProperties"] is False


def test_schema_of_an_unknown_kind_is_a_usage_error(cli: Any) -> None:
    result = cli("schema", "quote", lang="en")
    assert result.code == 2 and "'quote' is not one of 'job', 'profile', 'sources'" in result.err


def test_the_job_schema_names_every_table_and_key(cli: Any) -> None:
    schema = cli("schema", "job").json()
    assert set(schema["properties"]) == {
        "name",
        "currency",
        "workload",
        "model",
        "training",
        "schedule",
        "requirements",
        "budget",
        "data",
        "calibration",
    }
    assert schema["required"] == ["schedule"]
    schedule = schema["$defs"]["ScheduleTable"]
    assert schedule["oneOf"] == [
        {"required": ["earliest_start", "deadline"]},
        {"required": ["days"]},
    ]
    assert schedule["properties"]["days"]["anyOf"][0]["type"] == "integer"
    assert schedule["properties"]["deadline"]["anyOf"][0]["format"] == "date-time"


def _descriptions(model: type[BaseModel]) -> set[str]:
    found = set()
    for field in model.model_fields.values():
        if field.description:
            found.add(field.description)
        table = _table_class(field.annotation)
        if table is not None:
            found |= _descriptions(table)
    return found


def test_every_job_key_description_is_a_message_with_its_chinese() -> None:
    missing = sorted(d for d in _descriptions(JobFile) if d not in MESSAGES_ZH)
    assert missing == []


@pytest.mark.parametrize("job", JOBS, ids=lambda p: p.stem)
def test_every_example_job_validates_as_a_job_file(job: Path) -> None:
    JobFile.model_validate(tomllib.loads(job.read_text(encoding="utf-8")))


def test_every_profile_key_description_is_a_message_with_its_chinese() -> None:
    missing = sorted(d for d in _descriptions(ProfileFile) if d not in MESSAGES_ZH)
    assert missing == []


def test_every_demo_profile_validates_against_the_profile_schema() -> None:
    profiles = sorted((REPO / "providers" / "demo").rglob("*.toml"))
    assert profiles
    for path in profiles:
        ProfileFile.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))


def test_the_sources_schema_lists_the_keys_each_adapter_accepts() -> None:
    assert len(source_models()) == len(ADAPTERS)
    for model in source_models():
        adapter = model.model_fields["adapter"].annotation.__args__[0]  # type: ignore[union-attr]
        expected = {*COMMON_KEYS, *ADAPTERS[adapter].option_help}
        assert set(model.model_fields) == expected, adapter
        assert model.model_config.get("extra") == "forbid", adapter


def test_the_example_sources_file_validates_against_the_sources_schema() -> None:
    document = tomllib.loads((REPO / "examples" / "sources.toml").read_text(encoding="utf-8"))
    sources_file_model().model_validate(document)
    SOURCES_FILE.validate_python(document)
