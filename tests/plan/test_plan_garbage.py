"""A streamed plan leaves no reference cycle behind: what it read goes by reference counting.

At 1M offers the planner's walk holds ~180,000 group summaries (and ~1M tuples and lists);
kept alive by one cycle (the reading ↔ the lazy candidates), all of them waited for the
cyclic collector, whose first pass after :func:`comparator.services.planning.collector_paused`
spent 0.45 s on them (the quote's "other" phase, benchmarks/scale.py --phases).
"""

from __future__ import annotations

import gc
from collections import Counter

from comparator.catalog import CatalogGroups, make_engine
from comparator.config import load_settings
from comparator.domain import load_job
from comparator.plan import plan_job_read
from comparator.services import context_from_settings

PLANNER_TYPES = {"GroupSummary", "LazyCandidates", "_Reading", "_Walk", "CandidateSet"}


def test_a_streamed_plan_leaves_no_cyclic_garbage(demo_db_url: str) -> None:
    engine = make_engine(demo_db_url)
    job = load_job("examples/lora-7b-guangdong.toml")
    context = context_from_settings(load_settings({}), today=None)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        result, read = plan_job_read(job, CatalogGroups(engine), None, context)
        assert result.best is not None and result.stats.get("groups_not_read") is not None
        del result, read
        gc.collect()
        left = Counter(type(o).__name__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
        engine.dispose()
    assert not {name: n for name, n in left.items() if name in PLANNER_TYPES}
