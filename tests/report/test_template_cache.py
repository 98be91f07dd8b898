"""The report's templates compiled once: Jinja's bytecode cache in the user's cache folder.

The HTML is the same bytes whether the templates were compiled now or loaded from the cache;
an edited template compiles again; a cache folder that cannot be used (not a folder, open to
other users, unwritable, damaged files) costs time, never the report.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jinja2
import pytest
from jinja2.bccache import bc_magic

from comparator.report import render as report
from comparator.report.template_cache import TemplateBytecodeCache, cache_root, template_cache

DATA = Path(__file__).parents[1] / "data"
OPTIONS = {"autoescape": True, "trim_blocks": True}


@pytest.fixture
def document() -> dict[str, Any]:
    return json.loads((DATA / "quote_document.json").read_text(encoding="utf-8"))


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """XDG_CACHE_HOME in a fresh folder, and the environment made again under it."""
    home = tmp_path / "cache-home"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    report.environment.cache_clear()
    yield home
    report.environment.cache_clear()


def cached_files(home: Path) -> list[Path]:
    return sorted(home.glob("suanli/templates-*/*.cache"))


def test_the_cache_lives_in_xdg_cache_home(cache_home: Path) -> None:
    assert cache_root() == cache_home / "suanli"


def test_the_html_is_the_same_bytes_compiled_or_loaded(
    cache_home: Path, document: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = report.render_html(document)  # compiles, writes the cache
    files = cached_files(cache_home)
    assert len(files) >= 10  # the quote page, its base and partials
    report.environment.cache_clear()
    compiled: list[str] = []
    original = jinja2.Environment.compile

    def counting(self: jinja2.Environment, *args: Any, **kwargs: Any) -> Any:
        compiled.append(str(args[1] if len(args) > 1 else kwargs.get("name")))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    second = report.render_html(document)  # loads every template's code
    assert compiled == []
    assert second.encode() == first.encode()


def test_an_edited_template_compiles_again(tmp_path: Path) -> None:
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "page.j2").write_text("v1 {{ x }}\n", encoding="utf-8")
    root = tmp_path / "cache"

    def rendered() -> str:
        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(folder),
            bytecode_cache=template_cache(OPTIONS, root),
            **OPTIONS,  # type: ignore[arg-type]
        )
        return env.get_template("page.j2").render(x=1)

    assert rendered() == "v1 1"
    assert rendered() == "v1 1"  # from the cache
    (folder / "page.j2").write_text("v2 {{ x }}\n", encoding="utf-8")
    assert rendered() == "v2 1"


def test_options_that_change_the_code_get_their_own_folder(tmp_path: Path) -> None:
    one = template_cache(OPTIONS, tmp_path)
    other = template_cache({**OPTIONS, "trim_blocks": False}, tmp_path)
    assert one is not None and other is not None
    assert one.directory != other.directory


def test_no_cache_where_the_folder_cannot_be_made_or_is_not_private(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder", encoding="utf-8")
    assert template_cache(OPTIONS, blocked) is None
    shared = template_cache(OPTIONS, tmp_path / "shared")
    assert shared is not None
    Path(shared.directory).chmod(0o777)  # anyone could plant code there
    assert template_cache(OPTIONS, tmp_path / "shared") is None


def test_a_report_renders_when_the_cache_cannot_be_used(
    cache_home: Path, document: dict[str, Any]
) -> None:
    expected = report.render_html(document)
    shutil.rmtree(cache_home)
    cache_home.write_text("a file where the cache folder would be", encoding="utf-8")
    report.environment.cache_clear()
    assert report.render_html(document) == expected  # no cache at all


def test_unwritable_and_damaged_files_are_compiled_in_memory(tmp_path: Path) -> None:
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "page.j2").write_text("{{ x }}!\n", encoding="utf-8")

    def rendered(cache: TemplateBytecodeCache) -> str:
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(folder), bytecode_cache=cache)
        return env.get_template("page.j2").render(x=2)

    gone = TemplateBytecodeCache(str(tmp_path / "missing-folder"), "%s.cache")
    assert rendered(gone) == "2!"  # the write failed quietly
    cache = template_cache(OPTIONS, tmp_path / "cache")
    assert cache is not None
    assert rendered(cache) == "2!"
    (written,) = Path(cache.directory).glob("*.cache")
    written.write_bytes(written.read_bytes()[:12] + b"\xff damaged")
    assert rendered(cache) == "2!"
    written.write_bytes(b"")
    assert rendered(cache) == "2!"
    written.write_bytes(bc_magic + b"not a pickle")  # Jinja itself would raise here
    assert rendered(cache) == "2!"
