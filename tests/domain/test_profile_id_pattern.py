"""Provider and data-centre ids follow one pattern — ASCII letters, digits, '-', '_', '.';
no leading dot, no '..' — in profile import, sheet import and sources files, and the error
names the offending character (position and code point: an invisible one prints nothing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from comparator.domain.ids import id_problem
from comparator.domain.profile import loads_profile
from comparator.errors import InputError, ProfileError, SheetError
from comparator.refresh.sources import load_sources
from providers.sheet.parse import KnownCatalog, parse_sheet
from tests.conftest import DATA

REPO = Path(__file__).resolve().parents[2]
PROFILE = """[provider]
id = "{provider}"
name = "Acme"
country = "SG"

[[datacenters]]
id = "{datacenter}"
name = "Singapore"
country = "SG"
"""
GOOD = ["acme", "demo-qianhai", "a_b.c-1", "A1", "x.y", "us-east-1", "9"]
BAD = [
    ("аcme", 1, "U+0430 CYRILLIC SMALL LETTER A"),  # Cyrillic а
    ("ac\u200bme", 3, "U+200B (ZERO WIDTH SPACE)"),
    ("acme\x07", 5, "U+0007 (category Cc)"),
    ("a/b", 2, "U+002F SOLIDUS"),
    ("../x", 3, "'/' (U+002F SOLIDUS)"),
    ("a..b", 2, "has '..' at position 2"),
    (".hidden", None, "starts with '.'"),
    ("ａcme", 1, "FULLWIDTH LATIN SMALL LETTER A"),
    ("a:b", 2, "COLON"),
]


@pytest.mark.parametrize("value", GOOD)
def test_good_ids_pass(value: str) -> None:
    assert id_problem(value) is None


@pytest.mark.parametrize(("value", "position", "named"), BAD)
def test_bad_ids_name_the_character(value: str, position: int | None, named: str) -> None:
    problem = id_problem(value)
    assert problem is not None
    text = str(problem)
    assert named in text and "ASCII letters, digits" in text
    if position is not None and "'..'" not in named:
        assert f"character {position} is" in text


@pytest.mark.parametrize(("value", "position", "named"), BAD)
@pytest.mark.parametrize("field", ["provider", "datacenter"])
def test_profile_import_refuses_bad_ids(
    value: str, position: int | None, named: str, field: str
) -> None:
    escaped = "".join(c if " " < c < "\x7f" else f"\\u{ord(c):04X}" for c in value)
    ids = {"provider": "acme", "datacenter": "sg-1", field: escaped}  # TOML escapes
    with pytest.raises(ProfileError) as caught:
        loads_profile(PROFILE.format(**ids).encode(), "p.toml")
    assert named in str(caught.value) and "p.toml" in str(caught.value)


def test_sheet_import_names_a_look_alike_provider() -> None:
    known = KnownCatalog({"acme": {"sg-1": "sg-1"}})
    sheet = "provider,region,gpu,billing,price\nаcme,sg-1,H100,hourly,3\nacme,sg-1,H100,hourly,3\n"
    with pytest.raises(SheetError) as caught:
        parse_sheet(sheet.encode(), "p.csv", known)
    message = str(caught.value)
    assert "row 2, column provider" in message and "U+0430 CYRILLIC SMALL LETTER A" in message
    assert "row 3" not in message


def test_sources_file_refuses_a_path_like_provider(tmp_path: Path) -> None:
    path = tmp_path / "sources.toml"
    path.write_text(
        '[[source]]\nprovider = "../etc"\nadapter = "sheet"\npath = "p.csv"\n', encoding="utf-8"
    )
    with pytest.raises(InputError, match="provider: expected an id of ASCII letters") as caught:
        load_sources(path)
    assert "character 3 is '/' (U+002F SOLIDUS)" in str(caught.value)
    path.write_text(
        '[[source]]\nprovider = ".etc"\nadapter = "sheet"\npath = "p.csv"\n', encoding="utf-8"
    )
    with pytest.raises(InputError, match=r"starts with '\.'"):
        load_sources(path)


def test_the_shipped_sources_and_test_profiles_still_load() -> None:
    assert load_sources(REPO / "examples" / "sources.toml").sources
    for path in (DATA / "profiles").glob("*.toml"):
        if path.stem in ("acme", "overseas-minimal"):
            loads_profile(path.read_bytes(), str(path))


def test_the_demo_catalog_still_imports(cli: Any) -> None:
    result = cli("init", "--json")
    assert result.code == 0, result.out + result.err
    assert cli("providers", "--json").code == 0
