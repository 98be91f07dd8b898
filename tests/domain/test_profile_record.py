"""The parsed profile's record (what the catalog keeps beside the document) reads back as the
very profile ``parse_profile`` built: every profile of the repository and random ones."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from comparator.domain.profile import (
    ProviderProfile,
    load_profile,
    loads_profile,
    parse_profile,
    profile_to_dict,
)
from comparator.domain.profile_plan import parse_provider_terms, terms_of
from comparator.domain.profile_record import (
    RECORD_VERSION,
    profile_from_record,
    profile_record,
    record_is_current,
    terms_from_record,
)
from comparator.errors import ProfileError
from tests.support.fuzz_inputs import toml_case
from tests.support.fuzz_profiles import parsed_profiles

ROOT = Path(__file__).resolve().parents[2]
PATHS = sorted(
    [*(ROOT / "providers" / "demo").glob("*.toml"), *(ROOT / "tests" / "data").rglob("*.toml")]
)


def _profiles_of_repository() -> list[ProviderProfile]:
    found = []
    for path in PATHS:
        if "[provider]" not in path.read_text(encoding="utf-8"):
            continue  # a job or a source list
        try:
            found.append(load_profile(path))
        except ProfileError:
            continue  # the malformed profiles of the error tests
    return found


def _fuzz_file_profiles(count: int, seed: int) -> list[ProviderProfile]:
    rng = random.Random(seed)
    found = []
    for n in range(count):
        try:
            found.append(loads_profile(toml_case(rng), f"fuzz-{n}.toml"))
        except ProfileError:
            continue
    return found


def assert_same_read(profile: ProviderProfile) -> None:
    """The record, the stored document and the profile agree, value and representation."""
    record = profile_record(profile)
    back = profile_from_record(record)
    stored = json.dumps(profile_to_dict(profile), ensure_ascii=False, sort_keys=True)  # as kept
    document = json.loads(stored)
    parsed = parse_profile(document, "catalog")
    assert back == profile == parsed
    assert repr(back) == repr(parsed)  # Decimal exponents and tuple types too
    assert profile_record(parsed) == record
    terms = terms_from_record(record)
    assert terms == terms_of(profile, profile.id) == parse_provider_terms(document, "catalog")
    assert repr(terms) == repr(parse_provider_terms(document, "catalog"))


def test_every_profile_of_the_repository_reads_back_as_parsed() -> None:
    profiles = _profiles_of_repository()
    assert len(profiles) >= 10
    for profile in profiles:
        assert_same_read(profile)


@pytest.mark.parametrize("seed", range(4))
def test_random_profiles_read_back_as_parsed(seed: int) -> None:
    profiles = parsed_profiles(150, seed)
    assert len(profiles) > 100  # most random documents parse
    assert any(p.discount is not None and p.datacenters for p in profiles)
    assert any(dc.network.latency_ms for p in profiles for dc in p.datacenters)
    assert any(f.claimed for p in profiles for f in p.filings)
    for profile in profiles:
        assert_same_read(profile)


def test_fuzzed_profile_files_that_parse_read_back_as_parsed() -> None:
    profiles = _fuzz_file_profiles(400, 29)
    assert len(profiles) > 20  # most fuzzed files are refused
    for profile in profiles:
        assert_same_read(profile)


def test_a_record_of_another_layout_is_not_read() -> None:
    profile = _profiles_of_repository()[0]
    record = profile_record(profile)
    stale = record.replace(RECORD_VERSION, "0:000000000000", 1)
    assert record_is_current(record) and not record_is_current(stale)
    assert profile_from_record(stale) is None and terms_from_record(stale) is None
    assert profile_from_record(None) is None and terms_from_record(None) is None


def test_the_record_layout_is_pinned() -> None:
    """A changed field of ProviderProfile (or of a dataclass it holds) changes the version, so
    stored records are parsed again instead of read: fine, but slow until re-derived. Add a
    migration that re-derives provider.profile_record (as 0010 does), then pin
    the new version here."""
    assert RECORD_VERSION == "1:691657f346b8"
