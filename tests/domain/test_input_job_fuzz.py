"""Fuzzing job files: every mutated job file loads or fails with a JobFileError naming the file.

Values swapped for other TOML types, keys dropped, unknown keys, tables replaced by values,
signed zeros, BOMs, GB18030 with and without its declaration, damaged bytes. Nothing else may
escape (no pydantic ValidationError, no traceback), and a loaded job has what the file wrote.

``SUANLI_FUZZ_SEED`` and ``SUANLI_FUZZ_JOB_CASES`` (default 300) choose the run.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

from comparator.domain.job import load_job
from comparator.errors import JobFileError
from tests.support.fuzz_jobs import mutate

SEED = int(os.environ.get("SUANLI_FUZZ_SEED", "16"))
CASES = int(os.environ.get("SUANLI_FUZZ_JOB_CASES", "300"))
CASE_LIMIT_S = 5.0


def test_fuzzed_job_files_load_or_name_the_file(tmp_path: Path) -> None:
    counts = {"loaded": 0, "refused": 0}
    for number in range(CASES):
        rng = random.Random(f"{SEED}:job:{number}")
        path = tmp_path / f"job-{number}.toml"
        path.write_bytes(mutate(rng))
        replay = f"SUANLI_FUZZ_SEED={SEED} job case {number}"
        started = time.monotonic()
        try:
            job = load_job(path)
        except JobFileError as exc:
            assert str(exc).startswith(str(path)), (replay, str(exc)[:300])
            assert len(str(exc)) < 4_000, replay
            counts["refused"] += 1
        else:
            assert job.schedule.deadline > job.schedule.earliest_start, replay
            assert job.workload.card_hours is None or job.workload.card_hours > 0, replay
            counts["loaded"] += 1
        assert time.monotonic() - started < CASE_LIMIT_S, (replay, "too slow")
    print(
        f"fuzz job seed {SEED}: cases {CASES}, " + ", ".join(f"{k} {v}" for k, v in counts.items())
    )
    assert counts["loaded"] and counts["refused"]
