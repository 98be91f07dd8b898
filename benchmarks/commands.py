"""Every command of the README at national scale: wall seconds and peak RSS of each.

    .venv/bin/python benchmarks/commands.py --build DIR [--size 1000000:10000] [--db sqlite,postgres]
    .venv/bin/python benchmarks/commands.py DIR [--db sqlite,postgres] [--baseline TREE] [--runs 1]

``--build`` writes the generated catalog of ``benchmarks/scale_catalog.py`` (profiles and
sheets) into DIR and imports it by ``suanli import``'s code path into ``DIR/catalog.db`` and,
with SUANLI_TEST_PG_URL (an admin URL), into a kept PostgreSQL database ``suanli_commands``
(dropped and made again): building a 1M catalog takes minutes, measuring it seconds per
command, so it is built once and reused.

Then each command runs as a child process (``python -m comparator --db URL --lang en …``,
stdout to a file); the figures are its wall seconds and its peak resident memory, the child's
own ``ru_maxrss`` from ``wait4`` (the kernel's VmHWM of that process). ``--baseline TREE``
runs the same commands from another checkout (``PYTHONPATH=TREE``, e.g. the main branch)
in the same run, alternating, and prints the ratio; ``--compare`` checks that both trees print
the same bytes (the table's stdout, and the JSON documents); ``--baseline-folder DIR`` and
``--baseline-pg-database NAME`` give the baseline its own copies of the catalog (a tree at another
migration: each tree opens a catalog at its own head), ``--pg-database NAME`` measures a kept
PostgreSQL copy. The scale catalog has no H100,
so ``offers --gpu H100 --billing monthly`` is the empty listing with its hint (read from a
``DISTINCT`` of the GPU models), and a GPU model is 1/8 of the offers (``--gpu 4090 --json``:
~125k).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
JOB = ROOT / "examples" / "lora-7b-guangdong.toml"
TODAY = "2026-11-29"
PG_NAME = "suanli_commands"
TIMEOUT_S = 180.0
LAYOUT_COLUMNS = "200"  # "": plain lines, as to a pipe (--piped)

# (label, arguments after `suanli --db URL --lang en`)
COMMANDS: list[tuple[str, list[str]]] = [
    ("offers (first 30 of all)", ["offers"]),
    ("offers --gpu A100-80G --province Guangdong", ["offers", "--gpu", "A100-80G",
                                                    "--province", "Guangdong"]),
    ("offers --gpu H100 --billing monthly (empty)", ["offers", "--gpu", "H100", "--billing", "monthly"]),
    ("offers --compliant-for lora-7b", ["offers", "--compliant-for", str(JOB)]),
    ("offers --gpu 4090 --json (~125k)", ["offers", "--gpu", "4090", "--json"]),
    ("offers --compliant (first 30)", ["offers", "--compliant"]),
    ("providers", ["providers"]),
    ("providers --json", ["providers", "--json"]),
    ("history --provider scale-00042", ["history", "--provider", "scale-00042"]),
    ("history (first 30 of all)", ["history"]),
    ("check scale-00042 --job lora-7b", ["check", "scale-00042", "--job", str(JOB)]),
    ("check (every provider)", ["check", "--today", TODAY]),
    ("estimate --model Qwen2.5-7B --method lora", ["estimate", "--model", "Qwen2.5-7B",
                                                   "--method", "lora", "--tokens", "300M"]),
    ("plan lora-7b", ["plan", str(JOB), "--today", TODAY]),
    ("quote lora-7b --json", ["quote", str(JOB), "--today", TODAY, "--json"]),
]  # fmt: skip


def build(folder: Path, offers: int, providers: int, kinds: list[str]) -> None:
    """Write the catalog into ``folder`` and import it into each database of ``kinds``."""
    from scale_catalog import write_catalog

    from comparator.catalog.db import make_engine, upgrade_schema
    from comparator.config import load_settings
    from comparator.refresh.importer import import_files

    folder.mkdir(parents=True, exist_ok=True)
    sheets, profiles = write_catalog(folder, offers, providers)
    zone = load_settings({}).timezone
    for kind in kinds:
        url = _fresh_url(kind, folder)
        engine = make_engine(url)
        upgrade_schema(engine)
        started = time.perf_counter()
        import_files(engine, [], profiles, timezone=zone)
        result = import_files(engine, sheets, [], timezone=zone)
        rows = sum(r.offers for _, r in result.snapshots)
        print(f"{kind}: {rows:,} offers imported in {time.perf_counter() - started:.1f} s")
        engine.dispose()


def _fresh_url(kind: str, folder: Path) -> str:
    if kind == "sqlite":
        path = folder / "catalog.db"
        path.unlink(missing_ok=True)
        return f"sqlite:///{path}"
    from sqlalchemy import create_engine, text

    admin = create_engine(_admin_url(), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{PG_NAME}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{PG_NAME}"'))
    admin.dispose()
    return _url(kind, folder)


def _admin_url() -> str:
    admin_url = os.environ.get("SUANLI_TEST_PG_URL")
    if not admin_url:
        raise SystemExit("--db postgres needs SUANLI_TEST_PG_URL")
    return admin_url


def _url(kind: str, folder: Path, pg_name: str = PG_NAME) -> str:
    if kind == "sqlite":
        return f"sqlite:///{folder / 'catalog.db'}"
    from sqlalchemy.engine import make_url

    return make_url(_admin_url()).set(database=pg_name).render_as_string(hide_password=False)


def measured(
    argv: list[str], tree: Path | None, out: Path, timeout_s: float = TIMEOUT_S
) -> tuple[float, float, int, float]:
    """(wall s, peak RSS MiB, exit status, CPU s) of ``argv`` run from ``tree`` (None: this one);
    stdout goes to ``out``. The peak is the child's own ``ru_maxrss`` from ``wait4``; a child
    still running after ``timeout_s`` is killed (exit status -9, wall = the timeout)."""
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    if LAYOUT_COLUMNS:  # the terminal layout at that width; --piped: plain lines
        env["COLUMNS"] = LAYOUT_COLUMNS
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    with out.open("wb") as sink, tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        child = subprocess.Popen(argv, stdout=sink, stderr=errors, env=env, cwd=tree or ROOT)
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - started > timeout_s:
                child.kill()
            time.sleep(0.02)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode not in (0, 4):
            errors.seek(0)
            print(f"  ! exit {child.returncode}: {errors.read().decode()[-600:]}", flush=True)
    return wall, usage.ru_maxrss / 1024, child.returncode, usage.ru_utime + usage.ru_stime


@dataclass(frozen=True)
class Catalogs:
    """Where each tree's catalog is: a baseline checkout whose schema is older (a migration
    not yet merged) reads its own copy (``--baseline-folder``, ``--baseline-pg-database``)."""

    folder: Path
    pg_name: str = PG_NAME
    baseline_folder: Path | None = None
    baseline_pg_name: str | None = None

    def url(self, kind: str, baseline: bool = False) -> str:
        if baseline:
            folder = self.baseline_folder or self.folder
            return _url(kind, folder, self.baseline_pg_name or self.pg_name)
        return _url(kind, self.folder, self.pg_name)


def run_all(
    catalogs: Catalogs, kinds: list[str], baseline: Path | None, runs: int, compare: bool
) -> None:
    folder = catalogs.folder
    uptime = Path("/proc/loadavg").read_text().split()[:3]
    print(f"load average at start: {' '.join(uptime)}")
    for kind in kinds:
        url, base_url = catalogs.url(kind), catalogs.url(kind, baseline=True)
        print(
            f"\n{kind}: {'command':46} {'wall s':>7} {'CPU s':>6} {'peak MiB':>9}"
            + (f" | {'baseline wall s':>15} {'CPU s':>6} {'MiB':>6}" if baseline else "")
        )
        for label, args in COMMANDS:
            argv = [sys.executable, "-m", "comparator", "--db", url, "--lang", "en", *args]
            mine = [measured(argv, None, folder / "out-new.txt") for _ in range(runs)]
            wall = min(m[0] for m in mine)
            rss = max(m[1] for m in mine)
            cpu = min(m[3] for m in mine)
            line = f"{kind}: {label:46} {wall:7.2f} {cpu:6.2f} {rss:9.0f}"
            if baseline is not None:
                base_argv = [*argv[:3], "--db", base_url, *argv[5:]]
                base = [measured(base_argv, baseline, folder / "out-base.txt") for _ in range(runs)]
                b_wall = min(b[0] for b in base)
                b_rss = max(b[1] for b in base)
                b_cpu = min(b[3] for b in base)
                line += f" | {b_wall:15.2f} {b_cpu:6.2f} {b_rss:6.0f}"
                if compare and "quote" not in args:
                    same = (folder / "out-new.txt").read_bytes() == (
                        folder / "out-base.txt"
                    ).read_bytes()
                    line += " same output" if same else " OUTPUT DIFFERS"
            print(line, flush=True)
    uptime = Path("/proc/loadavg").read_text().split()[:3]
    print(f"\nload average at end: {' '.join(uptime)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--build", action="store_true", help="Write and import the catalog.")
    parser.add_argument("--size", default="1000000:10000", help="offers:providers (--build)")
    parser.add_argument("--db", default="sqlite,postgres")
    parser.add_argument("--baseline", type=Path, help="Another checkout to run beside this one.")
    parser.add_argument("--compare", action="store_true", help="Check both trees' stdout.")
    parser.add_argument("--runs", type=int, default=1, help="Runs per command (best wall).")
    parser.add_argument("--only", help="Run only commands whose label contains this text.")
    parser.add_argument(
        "--piped", action="store_true", help="No COLUMNS: output as to a pipe (plain lines)."
    )
    parser.add_argument("--pg-database", default=PG_NAME, help="The PostgreSQL catalog's name.")
    parser.add_argument("--baseline-folder", type=Path, help="The baseline's SQLite catalog.")
    parser.add_argument("--baseline-pg-database", help="The baseline's PostgreSQL catalog.")
    args = parser.parse_args()
    kinds = args.db.split(",")
    if args.build:
        offers, providers = (int(x) for x in args.size.split(":"))
        build(args.folder, offers, providers, kinds)
        return
    if args.only:
        COMMANDS[:] = [c for c in COMMANDS if args.only in c[0]]
    if args.piped:
        global LAYOUT_COLUMNS
        LAYOUT_COLUMNS = ""
    catalogs = Catalogs(
        args.folder, args.pg_database, args.baseline_folder, args.baseline_pg_database
    )
    run_all(catalogs, kinds, args.baseline, args.runs, args.compare)


if __name__ == "__main__":
    main()
