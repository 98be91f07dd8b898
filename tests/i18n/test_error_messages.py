"""Every error the library raises is a message of the one catalogue, rendered in the language
of ``--lang``: Chinese under zh, English under en, never one inside the other.

The catalogue (``comparator.i18n.MESSAGES_ZH``) is keyed by the English template written at
the raise site; :mod:`tests.support.message_sources` reads those templates from the source.
"""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from comparator.errors import (
    InputError,
    Msg,
    MsgList,
    RowProblem,
    SheetError,
    english,
    os_reason,
)
from comparator.i18n import MESSAGES_ZH, error_text, render
from tests.i18n.test_messages import CJK, CJK_OK, stray_chinese, stray_english
from tests.support.message_sources import computed_messages, message_templates

# Chinese allowed in English messages: the inputs a user may type, shown as examples
INPUT_WORDS = frozenset({"是", "否", "包日", "包周", "包年", "竞价", "江苏", "常州", "简称"})
# official terms the English keeps beside their gloss ("no 调休 make-up workdays")
GLOSSED = frozenset({"调休", "不良名单", "互联网资源协作服务"})
# keys (snake_case), quoted examples, file suffixes, paths and header names stay as typed
_TYPED = re.compile(
    r"\w+(?:[.-]\w+)+|\w*_\w*|\"[^\"]*\"|'[^']*'|\.\w+\b|\w+(?:/\w+)+|https?(?:\(s\))?|Content-Length|crontab"
)
# Latin words that are values, keys or names a user types, allowed inside Chinese messages
# (and the kinds a planner reason starts with: `stock:`, `network:`, `budget:` …)
_WORDS = """true false url path token_env headers records values fields defaults provider spot
    region_countries region decimal format adapter retries timezone cron shared
    max_in_flight redirect_hosts max_body_mb parse_timeout_s tokens samples avg_tokens
    precision name gpu gpus card_hours earliest_start deadline export_basis mlps_level
    currency kind icp_license icp_filing gongan number uscc storage_price_gb_month
    _gb_day min_slots work_slots overhead cost time model_type column sat sun mon fri
    daily hourly weekly monthly yearly apt get install pip openpyxl WeasyPrint Pango
    libpango fonts noto cjk ib roce eth nvidia smi xml topo nvidia_smi_log Excel
    LibreOffice SkyPilot vms csv Hugging Face Llama Qwen llama qwen2 mistral mixtral
    deepseek gpt2 bloom style chinesecalendar holidays postgresql psycopg user pass host
    db postgres suanli init import quote offers history check estimate list models show Accept
    text CC fp32 fp16 bf16 lora rank Ada Hopper Blackwell Asia Shanghai JOB COLUMN
    FACTOR DAYS price cards billing sku stock interconnect Python GpuInfo
    budget location memory network requirements throughput interruptible amounts
    README Install Settings torch warning fabric vGPU
    Korthikanti dropout roofline Meta nanoGPT nanotron nemo axolotl"""
MESSAGE_WORDS = frozenset(_WORDS.split())


def _sample(template: str) -> Msg:
    fields = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    return Msg(template, **dict.fromkeys(fields, 7))


def test_every_raised_message_is_a_template_not_computed_text() -> None:
    assert computed_messages() == []


def test_every_message_in_the_source_has_its_chinese() -> None:
    templates = message_templates()
    missing = {t: w for t, w in templates.items() if t not in MESSAGES_ZH}
    assert missing == {}
    # `hint` is the keyword of an error's hint, never a parameter of its message
    assert [t for t in [*templates, *MESSAGES_ZH] if "{hint" in t] == []


@pytest.mark.parametrize("template", sorted(MESSAGES_ZH), ids=lambda t: t[:40])
def test_each_error_message_renders_in_its_own_script(template: str) -> None:
    zh_fields = {n for _, n, _, _ in string.Formatter().parse(MESSAGES_ZH[template]) if n}
    en_fields = {n for _, n, _, _ in string.Formatter().parse(template) if n}
    assert zh_fields == en_fields, template
    message = _sample(template)
    zh, en = render(message, "zh"), render(message, "en")
    assert [w for w in stray_chinese(en) if w not in INPUT_WORDS | GLOSSED] == [], en
    leftover = [w for w in stray_english(_TYPED.sub(" ", zh)) if w not in MESSAGE_WORDS]
    assert leftover == [], zh
    shown = english(template)  # less its context, if any ("price\x04Change")
    words = stray_english(_TYPED.sub(" ", re.sub(r"\{[^}]*\}", " ", shown)))
    assert CJK.search(zh) or not [w for w in words if w not in MESSAGE_WORDS], zh


def test_parameters_that_are_messages_render_in_the_same_language() -> None:
    problem = RowProblem(3, "price", Msg("a positive number"), "-1")
    error = SheetError("sheet.csv", [problem])
    zh, en = error_text(error, "zh"), error_text(error, "en")
    assert zh == "sheet.csv：1 行有误，未导入任何内容：\n  第 3 行，price 列：应为正数（实为 '-1'）"
    assert en == str(error)
    assert en.startswith("sheet.csv: 1 bad row(s), nothing imported:")
    assert "row 3, column price: expected a positive number (got '-1')" in en
    joined = InputError("{problems}", problems=MsgList([Msg("a string"), "x"], " / "))
    assert error_text(joined, "zh") == "字符串 / x"


def test_system_reasons_are_in_our_words(tmp_path: Path) -> None:
    try:
        (tmp_path / "absent.toml").read_bytes()
    except OSError as exc:
        assert render(os_reason(exc), "zh") == "没有这个文件或文件夹"
        assert render(os_reason(exc), "en") == "no such file or folder"


def test_the_english_of_an_error_is_its_str() -> None:
    error = InputError("{path}: no such file", path="a.csv")
    assert str(error) == "a.csv: no such file" == error_text(error, "en")
    assert error_text(error, "zh") == "a.csv：没有这个文件"
    assert not CJK_OK & set(CJK.findall(str(error)))
