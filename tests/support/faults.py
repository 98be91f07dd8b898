"""The standing fault suite: ``scripts/faults --cases N --seed S [--db sqlite|postgres] [--only KIND]``.

Fuzz kinds feed seeded, mutated inputs to the real readers, one case at a time, and judge each:

* ``csv``, ``tsv``, ``json``, ``xlsx`` (price sheets) and ``profile`` (provider TOML) are
  imported into a real catalog (a SQLite file, or a fresh PostgreSQL database);
* ``job`` files are loaded as ``suanli plan`` loads them; ``sources`` files as ``refresh`` does;
* ``dst``: a cron, a zone and an instant near one of its DST changes (or anywhere: a clock
  that jumped there); the current period must be found quickly and be the latest fire.

A case is *accepted* or *rejected* with a :class:`SuanliError`; anything else is a
*traceback*. A rejection must name the file in a short message and leave the database exactly
as it was (``db_changed`` otherwise). An accepted case is *accepted-wrong* when it stored a
signed zero, a JSON sheet had a key given twice, a sheet's free text is not what the bytes say
in the encoding they were written in (mis-decoded), a job's dates or hours are impossible, or a
sources file's secret shows. Each case's time is measured (``over_30s``).

Fault kinds run the fault scripts kept as tests, once per run (``--cases`` does not apply),
and count their tests: ``kill`` (SIGKILL during import and refresh, SIGTERM), ``concurrent``
(concurrent writers: imports, refreshes, workers and leases), ``http`` (hostile HTTP servers,
limits on every path), ``clock`` (DST and cron properties, a period that begins during a
catch-up). ``--db postgres`` runs their PostgreSQL tests too.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, is_dataclass, replace
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, create_engine, func, select, text
from sqlmodel import SQLModel

REPO = Path(__file__).resolve().parents[2]
SHANGHAI = ZoneInfo("Asia/Shanghai")
SLOW_CASE_S = 30.0
MESSAGE_LIMIT = 8_000  # no 2 MB cell echoed back
SECRET = "s3cret"  # the api_key of the fuzzed sources file's URL
SHEET_KINDS = ("csv", "tsv", "json", "xlsx")
FUZZ_KINDS = (*SHEET_KINDS, "profile", "job", "sources", "dst")
FAULT_TESTS: dict[str, tuple[str, ...]] = {
    "kill": (
        "tests/catalog/test_bulk_import.py::"
        "test_sigkill_during_a_postgres_copy_leaves_nothing_then_a_rerun_stores_all",
        "tests/refresh/test_refresh_concurrency.py::"
        "test_sigkill_in_the_middle_of_a_200k_row_sheet_leaves_all_or_nothing",
        "tests/refresh/test_worker_stop.py",
    ),
    "concurrent": (
        "tests/refresh/test_import_concurrency.py",
        "tests/refresh/test_refresh_concurrency.py::"
        "test_two_refreshes_started_together_make_one_run_per_source",
        "tests/refresh/test_worker.py",
    ),
    "http": (
        "tests/refresh/test_fetch_safety.py",
        "tests/refresh/test_refresh_fetch.py",
        "tests/refresh/test_refresh_redirect_public.py",
        "tests/refresh/test_limits_every_path.py",
    ),
    "clock": (
        "tests/refresh/test_schedule_dst.py",
        "tests/refresh/test_worker_stop.py::"
        "test_a_period_that_begins_during_a_catch_up_is_refreshed_right_after",
    ),
}
KINDS = (*FUZZ_KINDS, *FAULT_TESTS)
_CODECS = {"utf-8": "utf-8", "gb18030": "gb18030", "shift_jis": "cp932", "big5": "cp950"}


@dataclass
class Counts:
    kind: str
    cases: int = 0
    accepted: int = 0
    rejected: int = 0
    tracebacks: int = 0
    over_30s: int = 0
    accepted_wrong: int = 0
    db_changed: int = 0
    bad_messages: int = 0  # a rejection that does not name the file, or is too long
    slowest_s: float = 0.0
    slowest_cpu_s: float = 0.0  # CPU time of that process: what a busy machine disturbs less
    problems: list[str] = field(default_factory=list)  # replay lines

    COLUMNS = (
        "cases",
        "accepted",
        "rejected",
        "tracebacks",
        "over_30s",
        "accepted_wrong",
        "db_changed",
        "bad_messages",
    )

    def failed(self) -> bool:
        return any(
            getattr(self, name)
            for name in ("tracebacks", "over_30s", "accepted_wrong", "db_changed", "bad_messages")
        )

    def problem(self, column: str, replay: str, detail: str) -> None:
        setattr(self, column, getattr(self, column) + 1)
        self.problems.append(f"{column}: {replay}: {detail[:300]}")


@dataclass(frozen=True)
class Case:
    """One generated input: its bytes, where it was written, what it was written as."""

    path: Path
    content: bytes
    encoding: str | None  # the text encoding a CSV/TSV was written in
    replay: str


# --- what an accepted case may not have done ------------------------------------------------


def signed_zeros(value: object) -> list[str]:
    """Paths of every zero with a minus sign (Decimal or float) anywhere in ``value``."""
    found: list[str] = []
    stack: list[tuple[str, object]] = [("", value)]
    seen: set[int] = set()
    while stack:
        where, item = stack.pop()
        if isinstance(item, Decimal):
            if item.is_zero() and item.is_signed():
                found.append(where)
        elif isinstance(item, float):
            if item == 0 and math.copysign(1.0, item) < 0:
                found.append(where)
        elif isinstance(item, str | bytes | int | type(None)) or id(item) in seen:
            continue
        else:
            seen.add(id(item))
            stack.extend((f"{where}.{k}", v) for k, v in _children(item))
    return found


def _children(item: object) -> Iterator[tuple[str, object]]:
    if isinstance(item, dict):
        yield from ((str(k), v) for k, v in item.items())
    elif isinstance(item, list | tuple | set | frozenset):
        yield from ((str(i), v) for i, v in enumerate(item))
    elif is_dataclass(item) and not isinstance(item, type):
        yield from ((f.name, getattr(item, f.name)) for f in fields(item))
    elif hasattr(item, "__dict__"):
        yield from ((k, v) for k, v in vars(item).items() if not k.startswith("_"))


def json_key_twice(content: bytes) -> bool:
    """Whether any object of the JSON ``content`` gives a key twice (False if not JSON)."""
    twice = False

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal twice
        twice = twice or len({k for k, _ in pairs}) != len(pairs)
        return dict(pairs)

    try:
        json.loads(content.decode("utf-8-sig"), object_pairs_hook=pairs_hook)
    except (ValueError, RecursionError):
        return False
    return twice


def misdecoded(case: Case, texts: list[str]) -> list[str]:
    """The stored free texts that are not in the sheet's bytes as written (CSV, TSV, JSON)."""
    codec = _CODECS.get(case.encoding or "utf-8")
    wrong = []
    for value in texts:
        if codec is None:  # UTF-16 and other encodings a sheet is refused in
            wrong.append(value)
            continue
        try:
            forms = {value.encode(codec)}
        except UnicodeEncodeError:
            wrong.append(value)
            continue
        if case.path.suffix == ".json":
            for ascii_only in (True, False):
                written = json.dumps(value, ensure_ascii=ascii_only)[1:-1]
                forms.add(written.encode("utf-8", errors="surrogatepass"))
        if not any(form in case.content for form in forms):
            wrong.append(value)
    return wrong


# --- the catalog ------------------------------------------------------------------------------


def fingerprint(engine: Engine) -> dict[str, tuple[int, object]]:
    """Row count and highest key of every table: what any write would change."""
    result = {}
    with engine.connect() as conn:
        for name, table in SQLModel.metadata.tables.items():
            key = next(iter(table.primary_key.columns))
            row = conn.execute(select(func.count(), func.max(key)).select_from(table)).one()
            result[name] = (int(row[0]), row[1])
    return result


def still_lists(engine: Engine) -> None:
    """What `offers --json` and the table do with every current offer: rank, format, print."""
    from comparator.catalog import current_offers
    from comparator.catalog.listing import rank_offers
    from comparator.config import load_settings

    rows, _ = rank_offers(current_offers(engine), load_settings({}))
    for row in rows:
        json.dumps(row.to_json(SHANGHAI), ensure_ascii=False)
        row.cells()


@contextmanager
def catalog(database: str, folder: Path) -> Iterator[Engine]:
    """A fresh, migrated catalog: a SQLite file in ``folder`` or a new PostgreSQL database on
    the server ``SUANLI_TEST_PG_URL`` names (dropped afterwards)."""
    from comparator.catalog.db import make_engine, upgrade_schema

    if database == "sqlite":
        engine = make_engine(f"sqlite:///{folder / 'catalog.db'}")
        upgrade_schema(engine)
        try:
            yield engine
        finally:
            engine.dispose()
        return
    admin_url = os.environ.get("SUANLI_TEST_PG_URL")
    if not admin_url:
        raise SystemExit("--db postgres needs SUANLI_TEST_PG_URL (a server to create a db on)")
    name = f"suanli_faults_{uuid.uuid4().hex[:12]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    engine = make_engine(admin_url.rsplit("/", 1)[0] + f"/{name}")
    try:
        upgrade_schema(engine)
        yield engine
    finally:
        engine.dispose()
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


# --- the fuzz kinds ---------------------------------------------------------------------------


def generate(kind: str, rng: random.Random) -> tuple[str, bytes, str | None]:
    """(file suffix, bytes, text encoding written in) of one case of ``kind``."""
    from tests.support import fuzz_inputs, fuzz_jobs, fuzz_sources

    if kind in ("csv", "tsv"):
        content, encoding = fuzz_inputs.csv_case_and_encoding(rng, "\t" if kind == "tsv" else None)
        return f".{kind}", content, encoding
    if kind == "dst":
        return ".txt", _schedule_case(rng).encode(), None
    makers: dict[str, tuple[str, Callable[[random.Random], bytes], str | None]] = {
        "json": (".json", fuzz_inputs.json_case, "utf-8"),
        "xlsx": (".xlsx", fuzz_inputs.xlsx_case, None),
        "profile": (".toml", fuzz_inputs.toml_case, None),
        "job": (".toml", fuzz_jobs.mutate, None),
        "sources": (".toml", fuzz_sources.sources_case, None),
    }
    suffix, make, encoding = makers[kind]
    return suffix, make(rng), encoding


def run_fuzz(kind: str, numbers: Iterable[int], seed: int, database: str, folder: Path) -> Counts:
    """Cases ``numbers`` of ``kind`` under ``seed`` (``range(N)``: a run of N cases)."""
    counts = Counts(kind)
    with _judge_context(kind, database, folder) as judge:
        for number in numbers:
            rng = random.Random(f"{seed}:{kind}:{number}")
            suffix, content, encoding = generate(kind, rng)
            path = folder / f"case-{number}{suffix}"
            path.write_bytes(content)
            replay = f"scripts/faults --seed {seed} --only {kind} --db {database}: case {number}"
            started, cpu = time.monotonic(), time.process_time()
            worked_s = judge(Case(path, content, encoding, replay), counts)
            elapsed, cpu_s = time.monotonic() - started, time.process_time() - cpu
            elapsed = elapsed if worked_s is None else worked_s
            counts.slowest_s = max(counts.slowest_s, elapsed)
            counts.slowest_cpu_s = max(counts.slowest_cpu_s, cpu_s)
            if elapsed > SLOW_CASE_S:
                counts.problem("over_30s", replay, f"{elapsed:.1f} s ({cpu_s:.1f} s CPU)")
            counts.cases += 1
            path.unlink()
    return counts


@contextmanager
def _judge_context(
    kind: str, database: str, folder: Path
) -> Iterator[Callable[[Case, Counts], float | None]]:
    """The judge of one case of ``kind``: it counts the case, and returns how long the work
    under test took when that is not the whole case (None: the whole case)."""
    if kind == "job":
        yield _judge_job
    elif kind == "dst":
        yield _judge_schedule
    elif kind == "sources":
        (folder / "fuzz-co.toml").write_text("", encoding="utf-8")
        yield _judge_sources
    else:
        from comparator.refresh.importer import import_files
        from tests.support.fuzz_inputs import PROFILE, PROVIDER

        with catalog(database, folder) as engine:
            profile = folder / "fuzz-co.toml"
            profile.write_text(PROFILE.format(id=PROVIDER), encoding="utf-8")
            import_files(engine, [], [profile], timezone=SHANGHAI)
            yield lambda case, counts: _judge_import(engine, kind, case, counts)


def _judge_import(engine: Engine, kind: str, case: Case, counts: Counts) -> None:
    from comparator.catalog import current_offers
    from comparator.catalog.queries import load_profiles
    from comparator.errors import SuanliError
    from comparator.refresh.importer import import_files

    before = fingerprint(engine)
    sheets, profiles = ([], [case.path]) if kind == "profile" else ([case.path], [])
    try:
        import_files(engine, sheets, profiles, timezone=SHANGHAI)
    except SuanliError as exc:
        counts.rejected += 1
        _judge_message(case, str(exc), counts)
        if fingerprint(engine) != before:
            counts.problem("db_changed", case.replay, "a rejected import wrote")
        return
    except Exception as exc:
        counts.problem("tracebacks", case.replay, f"{type(exc).__name__}: {exc}")
        return
    counts.accepted += 1
    still_lists(engine)
    offers = current_offers(engine)
    wrong = signed_zeros(offers)
    wrong += [f"profile{w}" for w in signed_zeros(load_profiles(engine))]
    if kind == "json" and json_key_twice(case.content):
        wrong.append("a key given twice")
    if kind in ("csv", "tsv", "json"):
        mine = [o.sku for o in offers if o.source == case.path.name and o.sku]
        wrong += [f"mis-decoded {t!r}" for t in misdecoded(case, mine)]
    if wrong:
        counts.problem("accepted_wrong", case.replay, ", ".join(wrong))


def _judge_message(case: Case, message: str, counts: Counts) -> None:
    if str(case.path) not in message and case.path.name not in message:
        counts.problem("bad_messages", case.replay, f"does not name the file: {message}")
    elif len(message) > MESSAGE_LIMIT:
        counts.problem("bad_messages", case.replay, f"{len(message)} characters")
    elif SECRET in message:
        counts.problem("accepted_wrong", case.replay, f"a secret in the message: {message}")


def _judge_job(case: Case, counts: Counts) -> None:
    from comparator.domain.job import load_job
    from comparator.errors import JobFileError

    try:
        job = load_job(case.path)
    except JobFileError as exc:
        counts.rejected += 1
        _judge_message(case, str(exc), counts)
        return
    except Exception as exc:
        counts.problem("tracebacks", case.replay, f"{type(exc).__name__}: {exc}")
        return
    counts.accepted += 1
    wrong = signed_zeros(job)
    if job.schedule.deadline <= job.schedule.earliest_start:
        wrong.append("deadline before start")
    if job.workload.card_hours is not None and job.workload.card_hours <= 0:
        wrong.append("card_hours not positive")
    if wrong:
        counts.problem("accepted_wrong", case.replay, ", ".join(wrong))


def _judge_sources(case: Case, counts: Counts) -> None:
    from comparator.errors import SuanliError
    from comparator.refresh.sources import load_sources

    try:
        sources = load_sources(case.path)
    except SuanliError as exc:
        counts.rejected += 1
        _judge_message(case, str(exc), counts)
        return
    except Exception as exc:
        counts.problem("tracebacks", case.replay, f"{type(exc).__name__}: {exc}")
        return
    counts.accepted += 1
    # the adapter options are the file's values as written (a [source.defaults] number is
    # sheet text to the adapter, checked as a sheet's cell is): not walked for signed zeros
    wrong = signed_zeros([replace(s, options={}) for s in sources.sources])
    wrong += signed_zeros(sources.worker)
    wrong += [f"secret shown in {s.shown}" for s in sources.sources if SECRET in s.shown]
    if wrong:
        counts.problem("accepted_wrong", case.replay, ", ".join(wrong))


def _schedule_case(rng: random.Random) -> str:
    """``cron|zone|ISO instant`` (UTC) of one schedule case."""
    from tests.refresh.test_schedule_dst import transitions
    from tests.support.fuzz_schedule import DST_ZONES, cron_case, instant_near

    zone = rng.choice(DST_ZONES)
    changes = transitions(ZoneInfo(zone), rng.randint(2024, 2028))
    return f"{cron_case(rng)}|{zone}|{instant_near(rng, changes).isoformat()}"


def _judge_schedule(case: Case, counts: Counts) -> float | None:
    """The period's search is what is timed; the check then walks every fire within six
    hours either side (720 for a cron of every minute), which takes longer."""
    from datetime import datetime

    from comparator.errors import InputError
    from comparator.refresh.schedule import current_period, parse_cron
    from tests.refresh.test_schedule_dst import check

    cron, zone, instant = case.content.decode().split("|")
    tz = ZoneInfo(zone)
    now = datetime.fromisoformat(instant).astimezone(tz)
    started = time.monotonic()
    try:
        current_period(parse_cron(cron, tz), now)
        worked_s = time.monotonic() - started
        check(cron, tz, now)
    except InputError:
        counts.rejected += 1  # a cron that never comes, such as 31 November
        return time.monotonic() - started
    except AssertionError as exc:
        counts.problem("accepted_wrong", case.replay, f"{cron} {zone} {now}: {exc}")
        return None
    except Exception as exc:
        counts.problem("tracebacks", case.replay, f"{cron} {zone} {now}: {exc!r}")
        return None
    counts.accepted += 1
    return worked_s


# --- the fault kinds: the fault scripts kept as tests -----------------------------------------


def run_fault_tests(kind: str, seed: int, database: str, folder: Path) -> Counts:
    """Run the kind's tests (slow ones included) and count them from pytest's JUnit XML.

    A test is a whole scenario (a 200,000-row sheet written, a worker started and killed) and
    asserts its own time bounds, so its duration is shown (``slowest_s``), not judged."""
    report = folder / f"{kind}.xml"
    marks = "not browser and not terminal" + (" and not postgres" if database == "sqlite" else "")
    command = [
        *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0"),
        *("-m", marks, f"--junitxml={report}", f"--hypothesis-seed={seed}"),
        *FAULT_TESTS[kind],
    ]
    env = {**os.environ, "SUANLI_REQUIRE_PG": "1" if database == "postgres" else "0"}
    proc = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    counts = Counts(kind)
    if not report.exists():
        counts.problem("tracebacks", " ".join(command), proc.stdout[-300:] + proc.stderr[-300:])
        return counts
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        seconds = float(case.get("time") or 0)
        if case.find("skipped") is not None:
            continue
        counts.cases += 1
        counts.slowest_s = max(counts.slowest_s, seconds)
        broken = case.find("failure") if case.find("failure") is not None else case.find("error")
        if broken is not None:
            counts.problem("tracebacks", name, broken.get("message") or "failed")
        else:
            counts.accepted += 1
    return counts


# --- the command ------------------------------------------------------------------------------


def run(kind: str, cases: int | Iterable[int], seed: int, database: str) -> Counts:
    """``cases`` cases of ``kind`` (or the cases numbered so: a replay) in a fresh folder."""
    numbers = range(cases) if isinstance(cases, int) else cases
    with tempfile.TemporaryDirectory(prefix=f"suanli-faults-{kind}-") as tmp:
        folder = Path(tmp)
        if kind in FAULT_TESTS:
            return run_fault_tests(kind, seed, database, folder)
        return run_fuzz(kind, numbers, seed, database, folder)


def table(results: list[Counts]) -> str:
    header = ["kind", *Counts.COLUMNS, "slowest_s", "slowest_cpu_s"]
    lines = [" ".join(f"{h:>14}" for h in header)]
    for counts in results:
        cells = [counts.kind, *(str(getattr(counts, c)) for c in Counts.COLUMNS)]
        slowest = [f"{counts.slowest_s:.2f}", f"{counts.slowest_cpu_s:.2f}"]
        lines.append(" ".join(f"{c:>14}" for c in [*cells, *slowest]))
    return "\n".join(lines)


def _quiet_openpyxl() -> None:
    """openpyxl warns about damaged workbooks it reads anyway; the counts say what matters."""
    import warnings

    warnings.filterwarnings("ignore", category=UserWarning, module="openpyxl")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/faults", description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=50, help="cases per fuzz kind (50)")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (1)")
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--only", action="append", choices=KINDS, help="a kind (repeatable)")
    args = parser.parse_args(argv)
    _quiet_openpyxl()
    print(f"scripts/faults --cases {args.cases} --seed {args.seed} --db {args.db}", flush=True)
    results = []
    for kind in args.only or KINDS:
        started = time.monotonic()
        counts = run(kind, args.cases, args.seed, args.db)
        results.append(counts)
        print(f"{kind}: {counts.cases} cases in {time.monotonic() - started:.0f} s", flush=True)
        for line in counts.problems[:20]:
            print(f"  {line}", flush=True)
    print(table(results))
    return 1 if any(c.failed() for c in results) else 0


if __name__ == "__main__":
    sys.exit(main())
