"""Bad input, run as a user would, under both languages: the error and its hint are wholly in
the language of ``--lang`` (flag names, keys, paths, ids and units as typed).

Each case is a command that fails (bad job file, bad or mislabelled sheet, a job file in
GB18030 or Shift-JIS, a fake ``.xlsx``, bad flags and usage errors, an unknown provider or GPU,
a file that is not there, a sources file that is not there, a refresh source that fails).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.i18n.test_error_messages import _TYPED, MESSAGE_WORDS
from tests.i18n.test_messages import CJK, stray_chinese, stray_english

BAD_JOB = """name = "x"
[workload]
card_hours = -3
gpu = "A100"
[schedule]
earliest_start = 2026-12-01T00:00:00+08:00
deadline = 2026-12-09T00:00:00+08:00
"""
SHEET = "provider,region,gpu,cards,billing,price\ndemo-nanshan,sz-1,H100,8,hourly,abc\n"
SOURCES = '[[source]]\nprovider = "demo-nanshan"\nadapter = "sheet"\npath = "absent.csv"\n'
# what a user typed and the catalog holds: echoed as they are
ECHOED = frozenset(
    {
        "服务商",
        "供应商",
        "厂商",
        "地域",
        "区域",
        "机房",
        "可用区",
        "数据中心",
        "计费方式",
        "计费模式",
        "单价",
        "价格",
        "测试",
        "名称",
    }
)


def _files(tmp_path: Path) -> dict[str, Path]:
    files = {
        "bad.toml": BAD_JOB.encode(),
        "gb18030.toml": 'name = "测试"\n'.encode("gb18030"),
        "sjis.toml": 'name = "テスト"\n'.encode("shift_jis"),
        "bad.csv": SHEET.encode(),
        "cols.csv": b"prise,gpu\n1,H100\n",
        "fake.xlsx": b"provider,region\n",
        "sources.toml": SOURCES.encode(),
    }
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    return {name: tmp_path / name for name in files}


def _cases(files: dict[str, Path], tmp_path: Path) -> list[tuple[str, ...]]:
    return [
        ("plan", str(files["bad.toml"])),
        ("plan", str(files["gb18030.toml"])),
        ("plan", str(files["sjis.toml"])),
        ("plan", str(tmp_path / "absent.toml")),
        ("import", str(files["bad.csv"])),
        ("import", str(files["cols.csv"])),
        ("import", str(files["fake.xlsx"])),
        ("offers", "--limit", "-1"),
        ("offers", "--bogus"),
        ("offers", "extra"),
        ("plan", str(files["bad.toml"]), "--objective"),
        ("verify", "--nvidia-smi-xml", str(tmp_path / "absent.xml")),
        ("verify", "--nvidia-smi-xml", str(tmp_path)),
        ("estimate",),
        ("offers", "--gpu", "Z9000"),
        ("offers", "--province", "火星"),
        ("check", "nobody"),
        ("plan", str(files["bad.toml"]), "--objective", "fast"),
        ("estimate", "--model", "7Q"),
        ("estimate", "--model", "7B", "--seq-len", "0"),
        ("quote", "--show", "123"),
        ("refresh", "--config", str(tmp_path / "none.toml")),
        ("refresh", "--config", str(files["sources.toml"])),
    ]


def _words(text: str, paths: list[str]) -> str:
    for path in paths:
        text = text.replace(path, " ")
    return re.sub(r"[│┃┏┓┗┛━─┡┩╇╋┳┻┼┬┴├┤└┘┌┐]", " ", text)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_bad_input_reads_in_one_language(
    cli: Any, demo_db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "400")  # a table cell keeps a long path on one line
    files = _files(tmp_path)
    named = [*files.values(), tmp_path / "absent.csv", tmp_path]
    paths = sorted((str(p) for p in named), key=len, reverse=True)
    for args in _cases(files, tmp_path):
        result = cli(*args, db=demo_db_url, lang=lang)
        assert result.code in (1, 2), (args, result.out, result.err)
        assert "Traceback" not in result.err
        text = _words(result.err + result.out, paths)
        if lang == "en":
            assert not [w for w in stray_chinese(text) if w not in ECHOED | {"火星"}], (args, text)
            continue
        assert CJK.search(result.err), (args, result.err)
        words = stray_english(_TYPED.sub(" ", text))
        leftover = [w for w in words if w not in MESSAGE_WORDS | {"error", "hint"}]
        assert leftover == [], (args, text)


# data shown as stored, in no language: a profile's `key=value` evidence, the sheets'
# time-of-use rules (`sat-sun*0.8; holiday*0.7`) and PCIe generations (`gen4`)
_DATA = re.compile(r"\b\w+=\S*|\b(?:sat|sun|holiday|workday)\b|\bgen ?\d")


def _job_names() -> set[str]:
    import tomllib

    from tests.conftest import REPO

    names = set()
    for path in (REPO / "examples").glob("*.toml"):
        name = tomllib.loads(path.read_text(encoding="utf-8")).get("name", "")
        names |= set(re.findall(r"[A-Za-z]+", str(name)))  # the user's own words
    return names


@pytest.mark.slow
def test_readme_commands_print_no_english_under_zh(
    cli: Any, demo_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every README command under the default --lang zh: no English word outside proper
    names, units, flags, ids and the data as typed (job names, rules, file keys)."""
    from tests.cli.test_cli_widths import COMMANDS

    monkeypatch.setenv("COLUMNS", "120")
    from comparator.i18n import CHECKS

    typed = _job_names() | set(CHECKS) | {"error", "hint"}  # check ids prefix their reasons
    for args in COMMANDS:
        result = cli(*args, db=demo_db_url, lang="zh")
        assert result.code in (0, 1), (args, result.err)
        text = _DATA.sub(" ", _words(result.out + result.err, []))
        words = stray_english(_TYPED.sub(" ", text))
        leftover = sorted({w for w in words if w not in MESSAGE_WORDS | typed})
        assert leftover == [], (args, leftover)


# `estimate --json` of the README's examples, one that does not fit (advice, why_not), the
# `other` stack with link strings it cannot read (its notes), and one with a global batch
JSON_ESTIMATES: tuple[tuple[str, ...], ...] = (
    ("--model", "Qwen2.5-7B", "--method", "lora", "--tokens", "300M", "--epochs", "3"),
    ("--model", "Llama-3.1-70B", "--method", "full", "--gpu", "H800", "--tokens", "2B"),
    ("--model", "Llama-3.1-70B", "--method", "full", "--gpu", "4090", "--cards", "8"),
    ("--model", "7B", "--stack", "other", "--interconnect", "x", "--network", "y 7G"),
    ("--model", "Mixtral-8x7B", "--gpu", "4090", "--offload", "--global-batch", "64"),
    ("--model", "Qwen2.5-7B", "--measured-tokens-per-s", "2000", "--tokens", "1B"),
)


def _texts(document: Any, english: bool = False) -> list[str]:
    """The texts a JSON document shows a reader: string values with a space in them (one
    word is an id or an enum value, `"method": "lora"`), less the messages (`<key>_msg`,
    their ids) and, unless ``english``, the English kept for scripts beside a `<key>_msg`."""
    if isinstance(document, list):
        return [text for item in document for text in _texts(item, english)]
    if not isinstance(document, dict):
        return [document] if isinstance(document, str) and " " in document else []
    shown = []
    for key, value in document.items():
        if key.endswith(("_msg", "_msgs")) or (f"{key}_msg" in document and not english):
            continue
        shown += _texts(value, english)
    return shown


def _pairs(document: Any) -> list[tuple[str, str, str]]:
    """(key, English, text in --lang) of every message in ``document``."""
    if isinstance(document, list):
        return [pair for item in document for pair in _pairs(item)]
    if not isinstance(document, dict):
        return []
    found = []
    for key, value in document.items():
        if key.endswith("_msg") and value is not None:
            name = key.removesuffix("_msg")
            shown = "text" if name == "text" else f"{name}_text"
            english = "" if name == "text" else document[name]  # a calibration's: no English
            found.append((key, english, document[shown]))
        found += _pairs(value)
    return found


def test_estimate_json_reads_zh_beside_its_english(cli: Any) -> None:
    """Under zh every text of `estimate --json` is Chinese (`<key>_text`) beside its message
    (`<key>_msg`); the English under `<key>` is what `--lang en` prints, for scripts."""
    for args in JSON_ESTIMATES:
        zh = cli("estimate", *args, "--json", lang="zh").json()
        en = cli("estimate", *args, "--json", lang="en").json()
        pairs = _pairs(zh)
        assert pairs and [p[1] for p in pairs] == [p[1] for p in _pairs(en)], args
        assert all(english == text for _, english, text in _pairs(en) if english), args
        for key, _, text in pairs:
            assert CJK.search(text) or not stray_english(_TYPED.sub(" ", text)), (key, text)
        text = _DATA.sub(" ", " \n".join(_texts(zh)))
        leftover = [w for w in stray_english(_TYPED.sub(" ", text)) if w not in MESSAGE_WORDS]
        assert leftover == [], (args, leftover)
        assert stray_english(" ".join(_texts(en, english=True))), args  # the check can fail


def test_import_json_warnings_read_zh_with_their_messages(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    sheet = tmp_path / "extra.csv"
    sheet.write_text(
        "provider,region,gpu,cards,billing,price,prise\ndemo-nanshan,gd-sz-1,H100,8,hourly,10,3\n",
        encoding="utf-8",
    )
    doc = cli("import", str(sheet), "--replace", "--json", db=demo_db_url, lang="zh").json()
    (warning,) = doc["warnings"]
    assert CJK.search(warning) and "'prise'" in warning
    assert doc["warning_msgs"][0]["id"] == "{path}: ignored column(s) no header matches: {names}"
    text = _words(" \n".join(_texts(doc)), [str(sheet)])
    assert [w for w in stray_english(_TYPED.sub(" ", text)) if w not in MESSAGE_WORDS] == []
