"""Chinese of the messages of sane input: a job's range (:mod:`comparator.domain.limits`:
values past any published run, windows in the past, work too large to schedule) and a
``--db`` file that is not a catalog."""

from __future__ import annotations

LIMITS_ZH: dict[str, str] = {
    "{path}: {key}": "{path}：{key}",
    "{path}: schedule.deadline: the window ended on {deadline}, before today {today}": (
        "{path}：schedule.deadline：时间窗已于 {deadline} 结束，早于今天 {today}"
    ),
    "move [schedule] earliest_start and deadline to dates to come, or plan as of an earlier "
    "day with --today YYYY-MM-DD": (
        "把 [schedule] earliest_start 和 deadline 改到今后的日期，或用 --today YYYY-MM-DD "
        "按更早的日期规划"
    ),
    "{path}: schedule.earliest_start: {start} is more than {years} years after today "
    "{today}": "{path}：schedule.earliest_start：{start} 比今天 {today} 晚 {years} 年以上",
    "prices, licences and calendars are of today: plan a job that starts sooner": (
        "价格、许可证和日历都是今天的：请规划更早开始的任务"
    ),
    "a positive number up to {high:,}": "不超过 {high:,} 的正数",
    "10^9 card-hours is over 30 times the largest published training run (Llama 3.1 405B: "
    "30.84M H100 hours); check the unit": (
        "10^9 卡时是已公开的最大训练（Llama 3.1 405B：3084 万 H100 卡时）的 30 倍以上；请检查单位"
    ),
    "sizes are in GB (1 TB = 1000 GB); check the unit": "大小以 GB 计（1 TB = 1000 GB）；请检查单位",
    "a time at most {days} days after earliest_start {start}": (
        "不晚于 earliest_start {start} 之后 {days} 天的时间"
    ),
    "the planner works hour by hour over the window: give the real deadline, or plan the job "
    "in parts": "规划器按小时遍历整个时间窗：请给出真实的截止时间，或把任务分段规划",
    "expected a token count of at most 100T (10^14), got {text!r}": (
        "应为不超过 100T（10^14）的 token 数，实为 {text!r}"
    ),
    "no published training run used more than about 36T tokens (Qwen3); 100T is the limit: "
    "did you mean B (10^9) rather than T (10^12)?": (
        "已公开的训练最多用了约 36T token（Qwen3）；上限是 100T：是否想写 B（10^9）而不是 T（10^12）？"
    ),
    "makes {total:,} training tokens in all (× {epochs:g} epochs), past 100T (10^14)": (
        "合计 {total:,} 个训练 token（× {epochs:g} 轮），超过 100T（10^14）"
    ),
    "{places}: the work is too large to schedule (its run would end after the year 9999)": (
        "{places}：工作量太大，无法排期（运行会延续到 9999 年之后）"
    ),
    "check the size of the work and its unit (tokens, epochs, card-hours), and the "
    "[calibration] speed": "请检查工作量及其单位（token 数、轮数、卡时）以及 [calibration] 的速度",
    "{path}: currency: no exchange rate for {code} (known: {codes})": (
        "{path}：currency：没有 {code} 的汇率（已知：{codes}）"
    ),
    "SUANLI_FX_RATES adds a rate: CODE=RATE, the CNY price of one unit": (
        "在 SUANLI_FX_RATES 中加上汇率：CODE=RATE，即一单位该货币的人民币价格"
    ),
    "{path}: not a SQLite database (its first bytes are {start!r}); left untouched": (
        "{path}：不是 SQLite 数据库（开头的字节是 {start!r}）；未做任何改动"
    ),
    "point --db or SUANLI_DB at the catalog, e.g. sqlite:///path/to/suanli.db; "
    "`suanli init` creates one": (
        "把 --db 或 SUANLI_DB 指向目录数据库（SQLite 文件的 URL）；`suanli init` 可以新建一个"
    ),
    "{path}: an empty file, not a catalog database; left untouched": (
        "{path}：是空文件，不是目录数据库；未做任何改动"
    ),
    "`suanli --db URL init` makes it a catalog; or point --db at the catalog": (
        "`suanli --db URL init` 会把它建成目录数据库；或把 --db 指向已有的目录数据库"
    ),
    "[bold]Total of {planned} of {count} jobs[/]: [bold green]{total}[/]": (
        "[bold]{count} 个任务中 {planned} 个有方案，合计[/]：[bold green]{total}[/]"
    ),
    "{path}: calibration: {measured} tokens/s per card is {factor:.3g} × the estimator's "
    "{predicted:.0f} on {cards} × {gpu}; more than {limit}× off is not a measurement of this "
    "job": (
        "{path}：[calibration]：每卡每秒 {measured} 个 token 是估算值 {predicted:.0f}（{cards} × {gpu}）"
        "的 {factor:.3g} 倍；相差超过 {limit} 倍就不是这个任务的实测"
    ),
    "give the training tokens per second of one card (not of the machine, not per step), "
    "measured on this job's model and settings": (
        "请给出单卡每秒训练 token 数（不是整机的，也不是每步的），且在本任务的模型与设置下实测"
    ),
    "SUANLI_TODAY: expected YYYY-MM-DD, got {raw!r}": "SUANLI_TODAY：应为 YYYY-MM-DD，实为 {raw!r}",
    "{path}: {key} = {cards}: more than any offer the job may use can rent; "
    "the most is {most} ({provider}/{region}, {gpu}, offer {offer_id})": (
        "{path}：{key} = {cards}：超过了本作业可用的任何报价能租到的卡数；最多为 {most}"
        "（{provider}/{region}，{gpu}，报价 {offer_id}）"
    ),
    "set {key} to {most} or fewer, or leave it out so that the planner "
    "chooses the count; `suanli offers --gpu {gpu}` lists each offer's stock": (
        "把 {key} 改为 {most} 或更少，或删去该项由规划器选择卡数；"
        "`suanli offers --gpu {gpu}` 列出每条报价的库存"
    ),
    "either days or earliest_start and deadline, not both": (
        "`days` 与 earliest_start、deadline 只能二选一"
    ),
    "a date-time like 2026-12-01T00:00:00+08:00 (or days = N instead)": (
        "形如 2026-12-01T00:00:00+08:00 的日期时间（或改写 `days = N`）"
    ),
    "keep days = N for a window that starts on the planning day, or the two dates for a "
    "fixed one": "要从规划日起算的时间窗请保留 `days = N`，要固定的时间窗请保留两个日期",
    "give earliest_start and deadline, or days = 7 for a week from the planning day "
    "(--today)": "请给出 earliest_start 与 deadline，或写 `days = 7` 表示从规划日（--today）起一周",
    "a date-time like 2026-12-01T00:00:00+08:00 (or give days)": (
        "形如 2026-12-01T00:00:00+08:00 的日期时间（或给出 `days`）"
    ),
    "a window of this many days from the planning day (instead of earliest_start and "
    "deadline)": "从规划日起算的时间窗天数（代替 earliest_start 与 deadline）",
}
