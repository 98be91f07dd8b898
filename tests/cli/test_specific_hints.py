"""Every content error ends with a specific hint: what to write instead, or which command
lists the valid values — never the generic "`suanli X --help` shows what each option and file
expects" (issue 25). The few places where a generic hint is right are listed with the reason.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from comparator.cli.failures import _DEFAULT_HINTS
from comparator.errors import InputError, OptionError
from tests.conftest import REPO

# the error classes whose default hint only points at `--help`
GENERIC = {cls.__name__: text for cls, text in _DEFAULT_HINTS if cls in (InputError, OptionError)}
# where a generic hint is right, and why (none today: keep the reason beside any entry).
# Usage errors of the parser keep `{path} --help` on purpose: an unknown option with no close
# name and a missing argument are answered by the command's list of options; a refused value
# (`--weeks 1`) names the option whose line of that list says what it accepts.
ALLOWED: dict[str, str] = {}


def _constructions() -> list[tuple[str, str]]:
    """(where, class) of every InputError/OptionError built without a `hint=`."""
    found = []
    for top in ("comparator", "providers"):
        for path in sorted((REPO / top).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                name = getattr(func, "id", None) or getattr(func, "attr", None)
                if name in GENERIC and not any(k.arg == "hint" for k in node.keywords):
                    message = node.args[0] if node.args else None
                    text = message.value if isinstance(message, ast.Constant) else "?"
                    found.append((f"{path.relative_to(REPO)}: {str(text)[:60]}", name))
    return found


def test_every_input_and_option_error_carries_its_own_hint() -> None:
    assert GENERIC, "the generic hints moved: update this test"
    missing = [where for where, _ in _constructions() if where.split(":")[0] not in ALLOWED]
    assert missing == []


def _generic_lines(lang: str) -> set[str]:
    from comparator.i18n import say

    return {say(lang, text, command=c) for text in GENERIC.values() for c in _COMMANDS}


_COMMANDS = ("suanli", "suanli offers", "suanli import", "suanli estimate", "suanli plan")


def test_bad_files_and_flags_end_with_a_specific_hint(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    """A sample of content errors through the CLI, in both languages."""
    sheet = tmp_path / "wide.json"
    sheet.write_text("{}", encoding="utf-8")
    plain = tmp_path / "prices.txt"
    plain.write_text("x", encoding="utf-8")
    broken = tmp_path / "broken-sources.toml"
    broken.write_text("[[source]]\nprovider = \n", encoding="utf-8")
    keyless = tmp_path / "keyless-sources.toml"
    keyless.write_text('[[source]]\nprovider = "x"\nadapter = "sheet"\n', encoding="utf-8")
    cases = [
        ("import", str(sheet)),
        ("import", str(plain)),
        ("import", str(tmp_path / "absent.csv")),
        ("import",),
        ("import", str(sheet), "--decimal", ";"),
        ("offers", "--billing", "sometimes"),
        ("offers", "--province", "Atlantis"),
        ("check", "nobody"),
        ("quote",),
        ("quote", "--show", "123"),
        ("estimate", "--model", "7B", "--tokens", "lots"),
        ("estimate", "--model", "7B", "--method", "dpo"),
        ("estimate", "--model", "7B", "--precision", "fp8", "--gpu", "A100-80G"),
        ("estimate", "--model", "7B", "--stack", "keras"),
        ("verify", "--nvidia-smi-xml", str(plain)),
        ("refresh", "--config", str(broken)),
        ("refresh", "--config", str(keyless)),
    ]
    for lang in ("en", "zh"):
        generic = _generic_lines(lang)
        for args in cases:
            result = cli(*args, db=demo_db_url, lang=lang)
            assert result.code in (1, 2), (args, result.out, result.err)
            hints = [line for line in result.err.splitlines() if line.startswith("hint:")]
            assert len(hints) == 1, (args, result.err)
            assert hints[0].removeprefix("hint: ") not in generic, (args, result.err)
    weeks = cli("report", "market", "--weeks", "1", db=demo_db_url, lang="en")
    assert weeks.code == 2
    assert "hint: `suanli report market --help` says what --weeks accepts" in weeks.err
