"""The sane range of a job's numbers and dates: beyond it a value is a typo, not a job.

Each bound is far above what any published training run has used, so a real job never meets
it, and far below what overflows the planner's arithmetic (whole-hour slots as C ints and
date-times before year 10000), so a typo (``tokens = "200T"`` for 200B, ``1e30``, a deadline
in 2020) is one clear error naming the key instead of a crash or a 2430 schedule.

Sources of the published figures (read 2026-12-03):

- Qwen3 was pre-trained on 36 trillion tokens (Qwen/Qwen3-4B-Base model card, README.md on
  huggingface.co, "Qwen3 Highlights"); Llama 3.1 on ~15 trillion (meta-llama/llama-models,
  models/llama3_1/MODEL_CARD.md, commit 1b28708f, "Training Data"). 10¹⁴ tokens (100T) is
  almost 3× the larger.
- Llama 3.1 405B took 30.84M H100-80GB GPU hours (the same model card, "Training Energy
  Use" table). 10⁹ card-hours is over 30× that.
"""

from __future__ import annotations

from datetime import date, datetime

from comparator.errors import JobFileError, Msg

#: training tokens of a whole job (per epoch × epochs): 100T, ~3× Qwen3's 36T pre-training
MAX_TRAINING_TOKENS = 10**14
#: card-hours of a [workload]: 10⁹, >30× Llama 3.1 405B's 30.84M H100 hours
MAX_CARD_HOURS = 10**9
#: cards of one job: the planner places at most 16 machines (plan/candidates.py MAX_NODES) of
#: at most 1,024 cards (a price sheet's node_cards limit, README "Price sheets")
MAX_JOB_CARDS = 16 * 1024
#: a schedule window (earliest_start → deadline) of at most two years (two yearly contracts):
#: the planner works hour by hour, so a window "until 2099" would be 640,000 slots
MAX_WINDOW_DAYS = 731
#: a job starts at most ten years after today (prices, licences and calendars are of today)
MAX_LEAD_DAYS = 3653
#: [data] dataset_gb and checkpoint_gb: 10⁹ GB (1 EB)
MAX_DATA_GB = 10**9
#: [schedule] restart_overhead_hours: a year
MAX_RESTART_OVERHEAD_HOURS = 8760


def check_window(earliest_start: datetime, deadline: datetime, today: date, source: str) -> None:
    """A :class:`JobFileError` when the job's window is not sane as of ``today`` (the planning
    day: ``--today`` or the real date): ``schedule.deadline`` when the window ended before
    today, ``schedule.earliest_start`` when it begins more than :data:`MAX_LEAD_DAYS` later."""
    if deadline.date() < today:
        raise JobFileError(
            "{path}: schedule.deadline: the window ended on {deadline}, before today {today}",
            path=source,
            deadline=deadline.isoformat(),
            today=today.isoformat(),
            hint=Msg(
                "move [schedule] earliest_start and deadline to dates to come, or plan as of "
                "an earlier day with --today YYYY-MM-DD"
            ),
        )
    if (earliest_start.date() - today).days > MAX_LEAD_DAYS:
        raise JobFileError(
            "{path}: schedule.earliest_start: {start} is more than {years} years after today "
            "{today}",
            path=source,
            start=earliest_start.isoformat(),
            years=MAX_LEAD_DAYS // 365,
            today=today.isoformat(),
            hint=Msg("prices, licences and calendars are of today: plan a job that starts sooner"),
        )
