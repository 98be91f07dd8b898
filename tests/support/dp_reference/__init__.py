"""The exact DP as it was before issue #26's speed-up (commit 0c1e896), kept unchanged as a
test-only reference for ``tests/plan/test_plan_dp_reference.py`` and ``benchmarks/dp_replay.py``."""
