"""Estimate requests from a job file's [model] and [training] tables."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from comparator.errors import JobFileError
from comparator.estimate.estimator import EstimateRequest, estimate, request_from_job

CONFIGS = Path(__file__).parents[1] / "data" / "hf_configs"
JOB = """
name = "legal-assistant-qwen7b-lora"
[model]
name = "Qwen2.5-7B"
[training]
method = "lora"
tokens = "300M"
epochs = 3
seq_len = 2048
"""


def test_the_contract_example_job() -> None:
    data = tomllib.loads(JOB)
    request = request_from_job(data["model"], data["training"], gpu="A100-80G", source="job.toml")
    assert request == EstimateRequest(
        model="Qwen2.5-7B",
        method="lora",
        tokens=300_000_000,
        epochs=3.0,
        seq_len=2048,
        gpu="A100-80G",
    )
    result = estimate(request)
    assert result.fits and result.total_tokens == 900_000_000 and result.card_hours > 0


def test_every_flag_name_is_accepted_with_dashes_or_underscores() -> None:
    training = {
        "method": "FULL",
        "precision": "fp16",
        "pure-bf16": True,
        "optimizer": "AdamW_8bit",
        "lora_rank": 8,
        "seq-len": 4096,
        "micro_batch": 2,
        "grad_ckpt": False,
        "flash_attn": False,
        "zero": 3,
        "samples": "52k",
        "avg_tokens": 300,
        "epochs": 2,
        "cards": 8,
        "mfu": 0.3,
        "headroom": 0.2,
        "safety_factor": 1.5,
    }
    request = request_from_job({"name": "7B"}, training, gpu="H800", source="j.toml")
    assert (request.method, request.optimizer, request.samples) == ("full", "adamw-8bit", 52000)
    assert (request.pure_bf16, request.seq_len, request.cards, request.zero) == (True, 4096, 8, 3)
    assert request.gpu == "H800" and request.safety_factor == 1.5


@pytest.mark.parametrize(
    ("training", "fragment"),
    [
        ({"seq_len": 0}, "j.toml: [training] seq_len must be a positive integer, got 0"),
        ({"seq_len": "long"}, "[training] seq_len must be an integer, got 'long'"),
        ({"grad_ckpt": "yes"}, "[training] grad_ckpt must be true, false or one of"),
        ({"tokens": "lots"}, "[training] tokens expected a token count"),
        ({"learning_rate": 1e-4}, "[training] learning_rate is not a known key"),
        ({"gpu": "H800"}, "[training] gpu is not read here"),
        ({"method": "dora"}, "[training] method must be one of full, lora, qlora"),
        ({"samples": 100}, "[training] avg_tokens is needed too"),
    ],
)
def test_bad_training_keys_name_the_file_and_key(training: dict, fragment: str) -> None:
    with pytest.raises(JobFileError) as caught:
        request_from_job({"name": "7B"}, training, gpu="A100-80G", source="j.toml")
    assert fragment in str(caught.value)


@pytest.mark.parametrize(
    ("model", "fragment"),
    [
        ({}, "[model] name is required"),
        ({"name": "  "}, "[model] name is required"),
        ({"name": "7Q"}, "[model] name is not usable: unknown model '7Q'"),
        ({"name": "7B", "size": "7B"}, "[model] size is not a known key"),
        ({"name": "missing.json"}, "no such config.json"),
    ],
)
def test_bad_model_tables(model: dict, fragment: str) -> None:
    with pytest.raises(JobFileError) as caught:
        request_from_job(model, {}, gpu="A100-80G", source="jobs/j.toml")
    assert fragment in str(caught.value) and "jobs/j.toml" in str(caught.value)


def test_a_config_path_is_relative_to_the_job_file(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    shutil.copy(CONFIGS / "qwen2.5-7b.json", tmp_path / "models" / "config.json")
    job = tmp_path / "job.toml"
    for name in ("models/config.json", "models"):
        request = request_from_job({"name": name}, {}, gpu="4090", source=str(job))
        assert request.model == str(tmp_path / name)
        assert estimate(request).model.params == 7_615_616_512
