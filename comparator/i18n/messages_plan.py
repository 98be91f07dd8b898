"""The Chinese of the planner's reasons, its infeasible messages and its calendar warning
(English text → Chinese; see :mod:`comparator.i18n.messages`).

A reason starts with its kind (``stock:``, ``network:``, ``budget:`` …), the key the JSON
and the exclusion tables group by; the key stays as written in both languages.
"""

from __future__ import annotations

_REASONS_ZH: dict[str, str] = {
    "stock: {cards} cards need {units} units, {stock} available": (
        "stock: {cards} 卡需要 {units} 个单位，库存仅 {stock}"
    ),
    "network: {cards} cards span several {node_cards}-card nodes, which needs an IB/RoCE "
    "network (offer has {network})": (
        "network: {cards} 卡跨多台 {node_cards} 卡节点，需要 IB/RoCE 组网（该报价为 {network}）"
    ),
    "none": "无",
    "memory in use {memory} of each card (aim 85–95 %: {band}); each card at {compute} of one "
    "card's throughput (rule ≥ 60 %: {verdict})": (
        "每卡显存占用 {memory}（目标 85–95 %：{band}）；每卡算力为单卡的 {compute}"
        "（规则 ≥ 60 %：{verdict}）"
    ),
    "waste: below 70 %": "浪费：低于 70 %",
    "below the band": "低于目标区间",
    "in the band": "在目标区间内",
    "above the band": "高于目标区间",
    "OOM risk: above 98 %": "有 OOM 风险：高于 98 %",
    "met": "满足",
    "missed": "未满足",
    "a better fit: {cards} × {gpu} at {provider}, {cost} {currency} ({difference}), memory "
    "{memory}, each card at {compute}": (
        "更合适的方案：{provider} 的 {cards} × {gpu}，{cost} {currency}（{difference}），"
        "显存占用 {memory}，每卡算力 {compute}"
    ),
    "calibrated from a measured run on {cards} × {gpu} ({date}): {measured} tokens/s per card "
    "against {predicted} predicted (× {factor})": (
        "已按实测校准：{date} 在 {cards} × {gpu} 上实测每卡每秒 {measured} 个词元，模型预测 "
        "{predicted}（× {factor}）"
    ),
    "calibrated from a measured run on {cards} × {gpu}: {measured} tokens/s per card against "
    "{predicted} predicted (× {factor})": (
        "已按实测校准：在 {cards} × {gpu} 上实测每卡每秒 {measured} 个词元，模型预测 {predicted}"
        "（× {factor}）"
    ),
    "{path}: calibration: the estimator cannot place this job on {cards} × {gpu}, so the "
    "measurement cannot be compared; give a run on cards that hold the job": (
        "{path}：[calibration]：估算无法把该任务放到 {cards} × {gpu} 上，无法与实测比较；请给出能放下该任务的卡上的实测"
    ),
    "{path}: [calibration] needs a [model] job: a [workload] job's card-hours are already "
    "measured": "{path}：[calibration] 需要 [model] 任务；[workload] 任务的卡时本身就是实测值",
    "TP {tp} × CP {cp} × PP {pp} × DP {dp} on {cards} cards": (
        "{cards} 卡：张量并行 {tp} × 上下文并行 {cp} × 流水线并行 {pp} × 数据并行 {dp}"
    ),
    "memory: data parallelism cannot hold the job on {gpu}; the layout that fits "
    "({layout}) needs {group} cards in one machine, this offer's machines have {node_cards}": (
        "memory: 仅靠数据并行在 {gpu} 上放不下该任务；放得下的并行方式（{layout}）需要一台机器内 "
        "{group} 张卡，该报价每台机器只有 {node_cards} 张"
    ),
    "{nodes} × {node_cards}-card machines on one {network} network": (
        "{nodes} 台 {node_cards} 卡机器，同在一张 {network} 网络上"
    ),
    "{nodes} × {node_cards}-card machines on one {network} network ({gbps:g} Gb/s per machine)": (
        "{nodes} 台 {node_cards} 卡机器，同在一张 {network} 网络上（每台 {gbps:g} Gb/s）"
    ),
    "currency: no FX rate for {currency} → {target}": (
        "currency: 没有 {currency} → {target} 的汇率"
    ),
    "time of use: {reason}": "time-of-use: 分时规则有误：{reason}",
    "budget: {price} {currency} per card-hour, above [budget] max_price_per_card_hour "
    "{limit}": "budget: 每卡时 {price} {currency}，高于 [budget] max_price_per_card_hour {limit}",
    "requirements: GPU {gpu} is not among [requirements] gpus ({allowed})": (
        "requirements: 卡型 {gpu} 不在 [requirements] gpus（{allowed}）之内"
    ),
    "requirements: spot offers may be pre-empted; the job needs spot = true and "
    "interruptible = true to use them": (
        "requirements: 竞价实例可能被抢占；任务须设 spot = true 且 interruptible = true 才能使用"
    ),
    "location: data centre not in {where} ([requirements] provinces/cities)": (
        "location: 机房不在 {where}（[requirements] provinces/cities）"
    ),
    "requirements: GPU not among [requirements] gpus, or a spot offer the job does not "
    "allow": "requirements: 卡型不在 [requirements] gpus 之内，或为任务不允许的竞价实例",
    "stock: its stock cannot give the fewest cards the job takes on its GPU": (
        "stock: 库存不足以提供任务在该卡型上所需的最少卡数"
    ),
    "network: the job takes more cards on its GPU than one of its nodes holds, and it states "
    "no network (IB/RoCE needed)": (
        "network: 任务在该卡型上所需卡数超过单台节点，且该报价未注明组网（需要 IB/RoCE）"
    ),
    "deadline: no schedule on this offer finishes by {deadline}": (
        "deadline: 该报价无法在 {deadline} 之前完成"
    ),
    "throughput: no dense BF16 figure for {gpu} or {reference}, card-hours cannot be "
    "converted": "throughput: {gpu} 或 {reference} 没有稠密 BF16 算力数据，无法换算卡时",
    "estimate: {reason}": "estimate: {reason}",
    "memory: on {cards} × {gpu} the job needs {need_gib:.1f} GiB per card, {usable_gib:.1f} "
    "GiB usable ({memory_gib:g} GiB less headroom)": (
        "memory: 在 {cards} × {gpu} 上每卡需要 {need_gib:.1f} GiB，可用 {usable_gib:.1f} GiB"
        "（{memory_gib:g} GiB 扣除余量）"
    ),
    "memory: {gpu} ({memory_gib:g} GiB) cannot hold the job with any card count the "
    "estimator tries (still {need_gib:.1f} GiB per card at {cards} cards)": (
        "memory: {gpu}（{memory_gib:g} GiB）在估算器尝试的任何卡数下都放不下该任务"
        "（{cards} 卡时每卡仍需 {need_gib:.1f} GiB）"
    ),
    "{check}: {message}{evidence}": "{check}: {message}{evidence}",
}

_DIAGNOSES_ZH: dict[str, str] = {
    "{reason} (×{count})": "{reason}（×{count}）",
    "the catalog has no current offers: run `suanli init` (demo catalog) or `suanli import` "
    "price sheets": (
        "目录里没有当前报价：请运行 `suanli init`（演示目录）或 `suanli import` 导入价目表"
    ),
    "all {count} offers fail compliance for this job: {reasons}. Relax [requirements] or "
    "import providers that satisfy them": (
        "全部 {count} 个报价都不满足本任务的合规要求：{reasons}。请放宽 [requirements]，"
        "或导入满足要求的服务商"
    ),
    "no offer can take the job: {reasons}. {advice}": "没有报价能承接该任务：{reasons}。{advice}",
    "use LoRA/QLoRA, ZeRO-3, a smaller model, or allow GPUs with more memory": (
        "改用 LoRA/QLoRA、ZeRO-3、更小的模型，或允许显存更大的卡型"
    ),
    "widen [requirements] gpus, or allow spot offers (spot = true with interruptible = true)": (
        "放宽 [requirements] gpus，或允许竞价实例（spot = true 且 interruptible = true）"
    ),
    "fix fewer cards, or wait for stock": "减少卡数，或等待库存",
    "raise [budget] max_price_per_card_hour": "提高 [budget] max_price_per_card_hour",
    "choose offers with an IB/RoCE network, or fewer cards (one node)": (
        "选择带 IB/RoCE 组网的报价，或减少卡数（单机）"
    ),
    "give card-hours on a GPU with a known throughput": "改用有吞吐数据的参考卡型给出卡时",
    "set an FX rate for the offer's currency (SUANLI_FX_RATES)": (
        "为该币种设置汇率（SUANLI_FX_RATES）"
    ),
    "fix the offer's time-of-use rules or update chinesecalendar": (
        "修正报价的闲时规则，或升级 chinesecalendar"
    ),
    "relax [requirements]": "放宽 [requirements]",
    "no placement finishes by the deadline {deadline}: the fastest one ({where}) needs "
    "{run_hours} h of run time and the window holds {window} whole hours. Move the deadline "
    "to {earliest_finish} or later, start earlier, or allow more cards / more GPU "
    "models{limits}": (
        "没有方案能在截止时间 {deadline} 前完成：最快的方案（{where}）需要运行 {run_hours} "
        "小时，而时间窗只有 {window} 个整小时。请把截止时间推迟到 {earliest_finish} 或更晚、"
        "提前开始，或允许更多卡数/更多卡型{limits}"
    ),
    "; the job's own limits ({limits}) leave fewer hours to run in: loosen them too": (
        "；任务自身的限制（{limits}）减少了可运行的小时，也可放宽它们"
    ),
    "the cheapest plan that meets the deadline costs {cost} {currency} ({where}, finishing "
    "{finish}), above [budget] max_cost {limit}. Raise max_cost to at least {cost}, or move "
    "the deadline later (a later deadline never costs more)": (
        "能按时完成的最便宜方案要 {cost} {currency}（{where}，{finish} 完成），超出 [budget] "
        "max_cost {limit}。请把 max_cost 提高到至少 {cost}，或推迟截止时间（截止时间越晚，"
        "费用不会更高）"
    ),
    "the cheapest plan that meets the deadline costs {cost} {currency} ({where}), above "
    "[budget] max_cost {limit}. Raise max_cost to at least {cost}, or move the deadline later "
    "(a later deadline never costs more)": (
        "能按时完成的最便宜方案要 {cost} {currency}（{where}），超出 [budget] max_cost "
        "{limit}。请把 max_cost 提高到至少 {cost}，或推迟截止时间（截止时间越晚，费用不会更高）"
    ),
    "the holiday calendar of {years} is provisional: statutory holidays computed by the "
    "holidays package, no 调休 make-up workdays until the State Council notice is known; "
    "prices with workday/holiday rules may change. Give the notice in SUANLI_HOLIDAYS_FILE": (
        "{years} 年的节假日安排为暂定：法定节假日按 holidays 库计算，国务院通知发布前没有调休"
        "补班日；含 workday/holiday 规则的价格可能变化。通知发布后在 SUANLI_HOLIDAYS_FILE "
        "中给出即可"
    ),
}

_NOTES_ZH: dict[str, str] = {
    "storage, upload and egress not included: add `[data]`": (
        "未包含存储、上传与外网流量费用：请在任务中添加 [data]"
    ),
}

_TIMELINE_ZH: dict[str, str] = {
    "{hourly} running (hourly)  {contract} running (contract)  {paid} paid, not running  "
    "{idle} idle": "{hourly} 按量运行  {contract} 包期运行  {paid} 已付费未运行  {idle} 空闲",
    "weekday names\x04Mon Tue Wed Thu Fri Sat Sun": "周一 周二 周三 周四 周五 周六 周日",
    "{weekday} {date}": "{date} {weekday}",
    "… {skipped} days …": "… {skipped} 天 …",
}

PLAN_ZH: dict[str, str] = {**_REASONS_ZH, **_DIAGNOSES_ZH, **_NOTES_ZH, **_TIMELINE_ZH}
