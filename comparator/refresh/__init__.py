"""Keeping the catalog current: imported sheets and the weekly refresh of provider sources.

:mod:`.importer` is ``suanli import``; :mod:`.sources` reads ``sources.toml``; :mod:`.run` runs
every source's adapter (:mod:`providers`) and stores what came back through :mod:`.source_store`;
:mod:`.runs` records each (provider, period) run; :mod:`.schedule` is the cron arithmetic;
:mod:`.lease` and :mod:`.worker` make the long-running weekly job.
"""

from comparator.refresh.importer import ImportResult, import_files, load_demo, split_files
from comparator.refresh.run import RefreshReport, SourceOutcome, run_refresh
from comparator.refresh.sources import SourcesFile, load_sources
from comparator.refresh.sources_model import sources_schema
from comparator.refresh.worker import ZonedFormatter, run_worker

__all__ = [
    "ImportResult",
    "RefreshReport",
    "SourceOutcome",
    "SourcesFile",
    "ZonedFormatter",
    "import_files",
    "load_demo",
    "load_sources",
    "run_refresh",
    "run_worker",
    "sources_schema",
    "split_files",
]
