"""Reading the sources file: defaults, relative paths, and one clear error per mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from comparator.errors import InputError
from comparator.refresh.sources import load_sources
from providers.fetch import FetchPolicy
from tests.support.refresh_helpers import EXAMPLES


def write(folder: Path, text: str) -> Path:
    path = folder / "sources.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_relative_paths_and_fetch_policy(tmp_path: Path) -> None:
    (tmp_path / "sheets").mkdir()
    sources = load_sources(
        write(
            tmp_path,
            """
[[source]]
provider = "acme"
adapter = "sheet"
path = "sheets/acme.csv"
profile = "acme.toml"

[[source]]
provider = "lambda"
adapter = "skypilot"
url = "https://example.org/catalogs/v8/lambda/vms.csv"
timeout_s = 5
retries = 0
spot = false
""",
        )
    )
    assert (sources.worker.cron, sources.worker.timezone.key) == ("mon 03:00", "Asia/Shanghai")
    acme, lambda_ = sources.sources
    assert acme.location == str(tmp_path / "sheets" / "acme.csv")
    assert acme.profile == str(tmp_path / "acme.toml") and acme.policy == FetchPolicy()
    assert lambda_.policy.deadline_s == 5 and lambda_.policy.retries == 0
    assert dict(lambda_.options) == {"spot": False}
    assert [s.provider for s in sources.select(["lambda"])] == ["lambda"]
    with pytest.raises(InputError, match="no \\[\\[source\\]\\] for provider\\(s\\) nobody"):
        sources.select(["nobody"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[[source]]\nprovider = "a"\nadapter = "excel"\npath = "a.csv"\n',
            r"\[\[source\]\] #1 \(a\) adapter: expected one of http_json, sheet, skypilot "
            r"\(got 'excel'\)",
        ),
        (
            '[[source]]\nprovider = "a"\nadapter = "sheet"\npath = "a.csv"\nspto = 1\n',
            r"\[\[source\]\] #1 \(a\) spto: expected one of provider, adapter, .*, format, "
            r"decimal \(got 'spto'\)",
        ),
        (
            '[[source]]\nprovider = "a"\nadapter = "sheet"\n',
            r"\[\[source\]\] #1 \(a\) url: expected exactly one of url",
        ),
        (
            '[[source]]\nprovider = "a"\nadapter = "sheet"\nurl = "ftp://x/a.csv"\n',
            r"url: expected an http\(s\) URL",
        ),
        (
            '[[source]]\nprovider = "a"\nadapter = "sheet"\npath = "a.csv"\ntimeout_s = 0\n',
            r"#1 \(a\) timeout_s: expected a number ≥ 0.001 \(seconds\) \(got 0\)",
        ),
        (
            '[[source]]\nprovider = "a"\nadapter = "sheet"\npath = "a.csv"\n' * 2,
            r"#2 \(a\) provider: expected one \[\[source\]\] per provider \('a' has one",
        ),
        (
            '[[source]]\nprovider = "a"\nadapter = "http_json"\nurl = "https://x/p"\n',
            r"fields: expected a table \[source.fields\]",
        ),
        (
            '[worker]\ncron = "monday at three"\n[[source]]\nprovider = "a"\nadapter = "sheet"\n'
            'path = "a.csv"\n',
            r"\[worker\] cron: expected \"mon 03:00\"",
        ),
        ('[worker]\ntimezone = "Mars/Olympus"\n', r"worker\.timezone: expected an IANA time zone"),
        ('[worker]\ncron = "mon 03:00"\n', r"expected at least one \[\[source\]\] table"),
        (
            '[[source]]\nprovider = "a b"\nadapter = "sheet"\npath = "a.csv"\n',
            r"provider: expected a name without spaces",
        ),
    ],
)
def test_mistakes_are_named_with_file_entry_and_key(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(InputError, match=message) as info:
        load_sources(write(tmp_path, text))
    assert str(tmp_path / "sources.toml") in str(info.value)


def test_missing_and_broken_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no such sources file .*examples/sources\.toml"):
        load_sources(tmp_path / "nope.toml")
    with pytest.raises(InputError, match="not valid TOML"):
        load_sources(write(tmp_path, "[[source]\n"))


def test_examples_file_reads_and_uses_the_public_skypilot_urls() -> None:
    sources = load_sources(EXAMPLES)
    by_provider = {s.provider: s for s in sources.sources}
    for cloud in ("lambda", "vast", "shadeform", "nebius", "verda"):
        assert by_provider[cloud].location == (
            "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/"
            f"v8/{cloud}/vms.csv"
        )
    demo = [s for s in sources.sources if s.adapter == "sheet"]
    assert demo and all(
        Path(s.location).is_file() and Path(s.profile or "").is_file() for s in demo
    )
