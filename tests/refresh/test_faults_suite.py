"""The standing fault suite (``scripts/faults``, docs/faults.md): a small seeded sample of every
fuzz kind here, a larger one marked slow; and its judges catch what they are there to catch."""

from __future__ import annotations

import subprocess
from decimal import Decimal
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support.faults import (
    FUZZ_KINDS,
    Case,
    Counts,
    json_key_twice,
    misdecoded,
    run,
    signed_zeros,
)

SAMPLE_SEED = 27  # a fixed sample; the long runs' seeds are in docs/faults.md


def test_the_judges_see_signed_zeros_keys_twice_and_mis_decoded_text() -> None:
    assert signed_zeros({"a": [Decimal("1"), Decimal("-0")], "b": -0.0}) == [".b", ".a.1"]
    assert signed_zeros({"a": Decimal("0"), "b": 0.0, "c": -1.5}) == []
    assert json_key_twice(b'[{"price": "8.5", "price": "85"}]')
    assert not json_key_twice(b'[{"price": "8.5"}, {"price": "85"}]')
    text = "gpu,sku\nH100,台北算力\n"
    big5 = Case(Path("p.csv"), text.encode("big5"), "big5", "")
    assert misdecoded(big5, ["台北算力"]) == []
    assert misdecoded(big5, [text.encode("big5").decode("gb18030").split("\n")[1][5:]]) != []
    json_case = Case(Path("p.json"), b'[{"sku": "\\u53f0"}]', "utf-8", "")
    assert misdecoded(json_case, ["台"]) == []


@pytest.mark.parametrize("kind", FUZZ_KINDS)
def test_a_seeded_sample_of_each_kind_is_clean(kind: str) -> None:
    counts = run(kind, 3, SAMPLE_SEED, "sqlite")
    assert counts.cases == 3 and not counts.failed(), counts.problems


@pytest.mark.slow
@pytest.mark.parametrize("kind", FUZZ_KINDS)
def test_a_larger_sample_of_each_kind_is_clean_on_both_databases(kind: str, pg_url: str) -> None:
    for database in ("sqlite", "postgres"):
        counts = run(kind, 60, SAMPLE_SEED + 1, database)
        assert counts.cases == 60 and not counts.failed(), (database, counts.problems)


def test_the_script_prints_the_figures_per_kind() -> None:
    proc = subprocess.run(
        [str(REPO / "scripts" / "faults"), "--cases", "2", "--seed", "3", "--only", "job"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    header, row = proc.stdout.strip().splitlines()[-2:]
    assert header.split() == ["kind", *Counts.COLUMNS, "slowest_s", "slowest_cpu_s"]
    assert row.split()[:2] == ["job", "2"]


# (kind, seed, case number): what the long runs of docs/faults.md found, replayed
FOUND = [
    ("csv", 90417, 871),  # a 5 MB header cell: 116 s in difflib
    ("sources", 90417, 395),  # max_body_mb = nan: a traceback
    ("sources", 90417, 481),  # a 300-character time zone: OSError, a traceback
    ("sources", 90417, 950),  # stop_grace_s = -0.0 kept its sign
    ("sources", 90417, 1381),
    ("sources", 90418, 219),  # profile = "a\u0000b": ValueError from the path, a traceback
]


@pytest.mark.parametrize(("kind", "seed", "number"), FOUND)
def test_what_the_long_runs_found_stays_fixed(kind: str, seed: int, number: int) -> None:
    counts = run(kind, [number], seed, "sqlite")
    assert counts.cases == 1 and not counts.failed(), counts.problems
    assert counts.slowest_cpu_s < 10
