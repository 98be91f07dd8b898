"""``suanli estimate`` end to end: flags, --json, human tables in zh/en, clean errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from comparator.cli import main

CONFIGS = Path(__file__).parents[1] / "data" / "hf_configs"
ROOT = Path(__file__).parents[2]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_is_one_document_with_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        "estimate",
        "--model",
        "Qwen2.5-7B",
        "--method",
        "lora",
        "--tokens",
        "300M",
        "--epochs",
        "3",
        "--json",
    )
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["model"]["name"] == "Qwen2.5-7B" and doc["tokens"] == 300_000_000
    assert doc["memory_gib"]["total"] == sum(
        doc["memory_gib"][k]
        for k in ("weights", "gradients", "optimizer", "activations", "overhead")
    )
    assert doc["card_hours"] == doc["hours"] * doc["cards"] and doc["fits"] is True


def test_every_contract_flag_reaches_the_estimate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "estimate",
        "--model",
        str(CONFIGS / "llama-2-7b.json"),
        "--method",
        "full",
        "--precision",
        "fp16",
        "--pure-bf16",
        "--optimizer",
        "adamw-8bit",
        "--lora-rank",
        "8",
        "--seq-len",
        "4096",
        "--micro-batch",
        "2",
        "--no-grad-ckpt",
        "--no-flash-attn",
        "--zero",
        "2",
        "--samples",
        "52k",
        "--avg-tokens",
        "300",
        "--epochs",
        "2",
        "--gpu",
        "NVIDIA A100-SXM4-80GB",
        "--cards",
        "8",
        "--mfu",
        "0.3",
        "--headroom",
        "0.2",
        "--safety-factor",
        "1.5",
        "--json",
    )
    assert code == 0
    doc = json.loads(out)
    assert (doc["method"], doc["precision"], doc["pure_bf16"], doc["optimizer"]) == (
        "full",
        "fp16",
        True,
        "adamw-8bit",
    )
    assert (doc["seq_len"], doc["micro_batch"], doc["grad_ckpt"], doc["flash_attn"]) == (
        4096,
        2,
        False,
        False,
    )
    assert (doc["zero"], doc["cards"], doc["mfu"], doc["headroom"]) == (2, 8, 0.3, 0.2)
    assert doc["tokens"] == 52_000 * 300 and doc["total_tokens"] == 2 * 52_000 * 300
    assert doc["gpu"]["name"] == "A100-SXM4-80GB" and doc["safety_factor"] == 1.5


def test_chinese_tables_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "estimate", "--model", "Llama-2-7b", "--method", "full", "--tokens", "2T"
    )
    assert code == 0
    for text in (
        "每卡显存",
        "权重",
        "优化器状态",
        "激活",
        "合计",
        "经验法则",
        "卡时",
        "每参数 18 字节",
    ):
        assert text in out


def test_english_tables_with_advice_when_it_does_not_fit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys,
        "--lang",
        "en",
        "estimate",
        "--model",
        "Llama-2-13b",
        "--method",
        "full",
        "--cards",
        "1",
        "--tokens",
        "1B",
        "--no-offload",
    )
    assert code == 0
    for text in (
        "Memory per card",
        "does not fit",
        "Alternatives",
        "LoRA instead of full",
        "Rules of thumb",
        "Card-hours",
    ):
        assert text in out


@pytest.mark.parametrize(
    ("args", "fragment", "exit_code"),
    [
        (["--model", "7Q"], "unknown model '7Q'", 1),
        (["--model", "7B", "--seq-len", "0"], "--seq-len must be a positive integer, got 0", 2),
        (["--model", "7B", "--gpu", "Z9000"], "unknown GPU 'Z9000'", 1),
        (["--model", "7B", "--tokens", "lots"], "token count", 2),
        (["--model", "7B", "--method", "dpo"], "--method must be one of", 2),
        (["--model", "7B", "--headroom", "2"], "--headroom must be in", 2),
        (["--model", "7B", "--cards", "0"], "--cards must be a positive integer", 2),
        (["--model", str(CONFIGS / "missing-hidden-size.json")], "missing key 'hidden_size'", 1),
    ],
)
def test_bad_input_is_one_clear_error(
    capsys: pytest.CaptureFixture[str], args: list[str], fragment: str, exit_code: int
) -> None:
    """A refused option value is a usage error (exit 2); a bad file or name exits 1."""
    code, out, err = run(capsys, "--lang", "en", "estimate", *args, "--json")
    assert code == exit_code and out == ""
    assert fragment in " ".join(err.split())
    assert "Traceback" not in err and err.strip().startswith("error:")


def test_missing_model_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "estimate", "--tokens", "1B")
    assert code == 2 and "--model" in err


def test_help_has_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--lang", "en", "estimate", "--help")
    assert code == 0 and "Example:" in out and "--grad-ckpt" in out


def test_list_models(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "estimate", "--list-models", "--json")
    names = [m["name"] for m in json.loads(out)["models"]]
    assert code == 0 and "Llama-3.1-405B" in names and "Qwen3-32B" in names


def test_headroom_defaults_to_the_setting(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUANLI_HEADROOM", "0.25")
    _, out, _ = run(capsys, "estimate", "--model", "7B", "--json")
    assert json.loads(out)["usable_memory_gib"] == 60.0


def test_python_dash_m_comparator_runs_it() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "comparator",
            "estimate",
            "--model",
            "70B",
            "--method",
            "qlora",
            "--gpu",
            "4090",
            "--tokens",
            "1.5e9",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["model"]["params"] == 70_000_000_000 and doc["gpu"]["name"] == "RTX4090"


def test_text_output_shows_each_saver_with_its_time_cost_and_the_links(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 12: who chose each saver and what it costs; the links assumed or offered."""
    args = ["estimate", "--model", "Llama-2-13b", "--method", "full", "--cards", "1"]
    code, out, _ = run(capsys, "--lang", "en", *args, "--tokens", "1B")
    assert code == 0
    flat = " ".join(out.split())
    assert "Memory savers:" in flat and "CPU offload on (chosen, ×1.3)" in flat
    assert "micro-batch 1 (chosen, ×1)" in flat
    assert "network ib 1600 Gb/s per node (assumed: the fit's published clusters)" in flat
    code, out, _ = run(
        capsys, "--lang", "en", *args, "--network", "4×200G IB", "--micro-batch", "1"
    )
    flat = " ".join(out.split())
    assert "network ib 800 Gb/s per node (as offered)" in flat
    assert "micro-batch 1 (user, ×1)" in flat
    code, out, _ = run(capsys, *args, "--network", "高速网络")
    assert "节点网络“高速网络”无法完全识别" in " ".join(out.split()).replace(" ", "")
