"""The message catalogue renders every message in both languages, each in its own script.

Under zh no English sentence is left (flag names, ids, units and technical names stay as
typed); under en no Chinese is left except proper names and official terms, which are glossed.
"""

from __future__ import annotations

import re

import pytest
import typer.main

from comparator.cli import app
from comparator.cli.helptext import untranslated
from comparator.i18n import (
    CHECKS,
    HELP_CHROME_ZH,
    HELP_ZH,
    LABELS,
    VERIFY_CHECKS,
    check_label,
    label,
    status_label,
)

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
# What may stay Latin inside Chinese text: flags, code, file names, ids, units, names of tools,
# models and standards, and the values a user types (hourly, lora, cost…).
_LATIN_OK = re.compile(
    r"--[\w-]+|`[^`]*`|\[[^\]]*\]|\S+\.(?:toml|json|csv|xlsx|xml|txt|html|pdf|py)\b"
    r"|\b[\w.-]*\d[\w.-]*\b|\b[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*\b|\b[A-Z]{2,}\w*\b"
    r"|https?://\S+|<[^>]*>"
)
_TECH = """suanli Suanli SQLAlchemy Hugging Face config json Example Usage Pango PyTorch HiGHS
    FlashAttention LoRA QLoRA ZeRO MFU cron worker token micro batch adamw sgd full lora qlora
    cost time hourly spot daily weekly monthly yearly fold zh en NVLink PCIe ECC NCCL SIGTERM
    nvidia smi topo matmul examples sources quote html pdf Llama Qwen master fp32 bf16 fp16
    mixed Monday Demo deprecated Merlion Cloud TFLOP FLOPs card hours demo nanshan lambda
    files jobs job provider ids none selective logits megatron torchtitan deepspeed Trainer
    Factory Axolotl unsloth torchtune other op market"""
TECH_WORDS = frozenset(_TECH.split())
# Chinese allowed in English text: inputs shown as examples, and glossed official terms.
CJK_OK = frozenset({"广东", "粤", "按量", "包月", "算力", "专票", "普票", "等保", "公安备案"})


def stray_english(text: str) -> list[str]:
    rest = _LATIN_OK.sub(" ", text)
    return [w for w in re.findall(r"[A-Za-z]{3,}", rest) if w not in TECH_WORDS]


def stray_chinese(text: str) -> list[str]:
    return [w for w in CJK.findall(text) if w not in CJK_OK]


def _zh_en_pairs() -> list[tuple[str, str, str]]:
    pairs = [(f"label:{k}", zh, en) for k, (zh, en) in LABELS.items()]
    pairs += [(f"check:{k}", c.zh, c.en) for k, c in CHECKS.items()]
    pairs += [(f"check-short:{k}", c.zh_short, c.en_short) for k, c in CHECKS.items()]
    pairs += [(f"verify:{k}", zh, en) for k, (zh, en) in VERIFY_CHECKS.items()]
    pairs += [(f"help:{en[:30]}", zh, en) for en, zh in HELP_ZH.items()]
    return pairs


@pytest.mark.parametrize(("key", "zh", "en"), _zh_en_pairs(), ids=lambda v: str(v)[:40])
def test_each_message_is_in_its_own_script(key: str, zh: str, en: str) -> None:
    assert not stray_chinese(en), f"{key}: Chinese in the English text {en!r}"
    assert not stray_english(zh), f"{key}: English in the Chinese text {zh!r}"


def test_every_help_text_has_its_chinese() -> None:
    assert untranslated(typer.main.get_command(app)) == []
    assert set(HELP_CHROME_ZH) and all(CJK.search(v) for v in HELP_CHROME_ZH.values())


def test_lookups_render_both_languages() -> None:
    for check_id in CHECKS:
        assert CJK.search(check_label("zh", check_id))
        assert not CJK.search(check_label("en", check_id))
    for status in ("pass", "warn", "fail", "created", "updated", "unchanged", "succeeded"):
        assert CJK.search(status_label("zh", status))
        assert status_label("en", status) == status
    for lang in ("zh", "zh-CN", "ZH-cn"):
        assert label(lang, "yes") == "是"
    assert label("en", "yes") == "yes"


COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_is_in_one_language(cli, command: str) -> None:
    args = [command, "--help"] if command else ["--help"]
    zh = cli(*args, lang="zh")
    en = cli(*args, lang="en")
    assert zh.code == en.code == 0
    assert CJK.search(zh.out)
    assert zh.out.startswith("用法: ") and "Usage:" not in zh.out
    assert en.out.startswith("Usage: ")
    zh_text = zh.out
    text = re.sub(r"[│╭╮╰╯─]", " ", zh_text)
    text = re.sub(r"\S*\|\S*", " ", text)  # the values an option takes, as typed: auto|ring
    names = set(COMMANDS)
    assert [w for w in stray_english(text) if w not in names] == [], zh.out
    assert not stray_chinese(en.out), en.out
