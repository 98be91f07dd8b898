"""The Chinese of the command line's own words: titles, table headers, lines and hints
(English message id → Chinese; see :mod:`comparator.i18n.messages`).

A CLI text is written where it is said as ``say(lang, "English {param}", param=…)``; its Chinese
is here. An id with a context (``"advice\x04Change"``) is one English word that needs two
translations. A hint of :mod:`comparator.cli.failures` that keeps click's ``{0}``, ``{1}`` is
filled with ``str.format`` positions after the lookup.
"""

from __future__ import annotations

CLI_ZH: dict[str, str] = {
    "a bug in suanli: run again with --debug for the traceback and report it": (
        "这是 suanli 的缺陷：加 --debug 重新运行可看到调用栈，请报告它"
    ),
    "aborted": "已中止",
    "unexpected {__name__}: ": "意外错误 {__name__}：",
    "Offers ({currency}/card-hour, cheapest first)": "报价（每卡时 {currency}，最便宜在前）",
    "ID": "编号",
    "Name": "名称",
    "Licences": "许可证",
    "Certifications": "认证",
    "Data centres": "机房",
    "Loading the demo catalog…": "正在载入演示目录…",
    "Catalog database ready: ": "目录数据库已就绪：",
    "Importing {names} …": "正在导入 {names} …",
    "provider {pid}: {status}": "服务商 {pid}：{status}",
    "{name} → {provider}: snapshot {snapshot_id} ({status}, {offers} offers)": (
        "{name} → {provider}：快照 {snapshot_id}（{status}，{offers} 条报价）"
    ),
    "Providers": "服务商",
    "Reading offers…": "正在读取报价…",
    "warning: no FX rate for {currency}; set SUANLI_FX_RATES. Listed last.": (
        "warning: 没有 {currency} 的汇率（设置 SUANLI_FX_RATES），排在最后。"
    ),
    "No offers match.": "没有符合条件的报价。",
    "{total} offers, {limit} shown; use --limit for more.": (
        "共 {total} 条，显示 {limit} 条；用 --limit 查看更多。"
    ),
    "Compliance checks ({day})": "合规检查（{day}）",
    "✓ pass  ! warn  ✗ fail  — not applicable; reasons and evidence below": (
        "✓ 通过  ! 警告  ✗ 不通过  — 不适用；原因与证据见下"
    ),
    "Provider / DC": "服务商 / 机房",
    "Verdict": "结论",
    "Checking compliance…": "正在检查合规…",
    "Memory per card (GiB) · {name} × {cards} · ZeRO-{zero}": (
        "每卡显存（GiB）· {name} × {cards} · ZeRO-{zero}"
    ),
    "Model": "模型",
    "Params": "参数量",
    "Part": "部分",
    "usable ({memory_gib:g} GiB less {headroom:.0%} headroom)": (
        "可用（{memory_gib:g} GiB 留 {headroom:.0%} 余量）"
    ),
    "single card": "单卡",
    "[green]fits[/]": "[green]放得下[/]",
    "[bold red]does not fit[/]": "[bold red]放不下[/]",
    "none (≤ 512)": "无（512 卡内）",
    "user": "用户指定",
    "fit": "拟合",
    "Rule": "经验法则",
    "Rule says": "法则",
    "Ours": "本估算",
    "Unit": "单位",
    "Cards": "卡数",
    "GiB/card": "每卡 GiB",
    "Fits": "放得下",
    "Hours": "小时",
    "Card-hours": "卡时",
    "Built-in models": "内置模型",
    "full fine-tuning": "全参微调",
    "recompute": "重计算",
    "Compute and time": "计算量与时长",
    "Training tokens (total)": "训练 token（总）",
    "Training FLOPs": "训练 FLOPs",
    "Peak dense BF16": "峰值算力",
    "Safety factor": "安全系数",
    "Wall-clock hours": "墙钟小时",
    "Layout": "并行",
    "Rules of thumb vs this estimate": "经验法则 vs 本估算",
    "Alternatives that change the fit": "放不下时的替代方案",
    "Total": "合计",
    "strategy": "策略",
    "min cards": "最少卡数",
    "Trainable params": "可训练参数",
    "assumed": "假定",
    "as offered": "报价所写",
    "GPU registry, assumed": "按 GPU 型号假定",
    "assumed: the fit's published clusters": "假定：拟合所用公开多机训练的集群",
    "on": "开",
    "off": "关",
    "chosen": "估算",
    "Links": "互联",
    "cards": "卡间",
    "network": "节点网络",
    "per node": "每节点",
    "network time factor": "网络时间系数",
    "Memory savers": "省显存选项",
    "`{path} --help` lists every option": "`{path} --help` 列出全部选项",
    "unknown option {option}": "未知选项 {option}",
    "missing {what}": "缺少 {what}",
    "{what}: {detail}": "{what}：{detail}",
    "unknown command {command}": "未知命令 {command}",
    "`suanli --help` lists every command": "`suanli --help` 列出全部命令",
    "global options go before the command: suanli {option} … {removeprefix}": (
        "全局选项放在命令之前：suanli {option} … {removeprefix}"
    ),
    "did you mean {close}?": "是否想用 {close}？",
    "no provider {provider}; known providers: {listed}": (
        "没有服务商 {provider}；已知服务商：{listed}"
    ),
    "{gpu} means {name} ({memory_gib:g} GB), with no matching offer; the same family has {names}: "
    "try --gpu {value}": (
        "{gpu} 指 {name}（{memory_gib:g} GB），没有符合条件的报价；同系列有 {names}：试试 --gpu "
        "{value}"
    ),
    "no offer matches; drop one of the filters (--gpu, --province, --billing, --provider)": (
        "没有符合条件的报价；去掉一个筛选条件（--gpu、--province、--billing、--provider）再试"
    ),
    "no provider {provider}; did you mean {value}? Known providers: {listed}": (
        "没有服务商 {provider}；是否想用 {value}？已知服务商：{listed}"
    ),
    "Planning…": "正在规划…",
    "cheapest": "成本最低",
    "earliest finish": "最早完成",
    "Offer": "报价",
    "Billing": "计费",
    "Start": "开始",
    "End": "结束",
    "Units": "数量",
    "Periods": "周期",
    "Unit price": "单价",
    "Avg paid": "实付均价",
    "Cost": "费用",
    "runs {run_hours}/{paid_hours} h": "运行 {run_hours}/{paid_hours} 小时",
    "Provider": "服务商",
    "Region": "机房",
    "Billing mix": "计费组合",
    "Finish": "完成",
    "Δ": "差额",
    "Offers not loaded": "未载入的报价",
    "Offers": "报价数",
    "Reason": "原因",
    "[yellow]Note: a contract pays for more than 3× the hours it runs; still the cheapest[/]": (
        "[yellow]注意：合约付费时长超过实际运行时长的 3 倍，但仍是最便宜的方案[/]"
    ),
    "Alternatives (best per provider and GPU)": "备选（每个服务商与卡型的最优）",
    "… {hidden} more reasons, see --json": "…另有 {hidden} 类原因，用 --json 查看全部",
    "Plan": "计划",
    "The cheapest plan without the budget:": "不限预算时的最便宜方案：",
    "Best": "最优",
    "finish": "完成",
    "run": "运行",
    "restart overhead": "其中重启开销",
    "Compute hours low/expected/high": "计算时长 低/预期/高",
    "card-hours": "卡时",
    "The range is the 5th–95th percentile of the throughput fit's error on published runs; the "
    "price uses the expected value.": (
        "区间取吞吐模型在公开训练记录上误差的 5%–95% 分位；报价按预期值计。"
    ),
    "Excluded offers": "排除的报价",
    "Assumptions": "假设",
    "FX": "汇率",
    "multi-node efficiency": "多机效率",
    "tax-inclusive": "含税价比较",
    "proven optimal": "已证明最优",
    "Jobs sharing stock": "多任务共享库存",
    ", ": "、",
    "{name}: the MILP does not model {why}; planned by the exact per-job DP on the stock the other "
    "jobs leave": ("{name}：混合整数规划不计 {why}，改用单任务精确规划（在其他任务剩余库存上）"),
    "Warning": "注意",
    "No feasible plan": "没有可行方案",
    "Rendering the report…": "正在生成报告…",
    "Quote [bold]{number}[/] saved": "报价单 [bold]{number}[/] 已保存",
    "Quote [bold]{number}[/] (created {created})": "报价单 [bold]{number}[/]（生成于 {created}）",
    "Render it with: suanli quote --show {number} -o quote.html": (
        "用 suanli quote --show {number} -o quote.html 生成报告"
    ),
    "Planning and saving the quote…": "正在规划并保存报价…",
    "first snapshot": "首个快照",
    "refreshing": "刷新价格",
    "Refresh {period} ({seconds:.1f} s)": "刷新 {period}（{seconds:.1f} 秒）",
    "Price changes": "价格变化",
    "{value} more changes (all of them with --json)": "另有 {value} 项变化（--json 查看全部）",
    "Reading price history…": "正在读取价格历史…",
    "No price history matches.": "没有符合条件的价格历史。",
    "Price history (biggest drops first)": "价格历史（降幅最大在前）",
    "{value} more (--limit / --json)": "另有 {value} 条（--limit / --json）",
    "Machine acceptance check: offer {offer_id} ({bought})": (
        "机器验收：报价 {offer_id}（{bought}）"
    ),
    "Check": "检查",
    "Result": "结果",
    "Details": "说明",
    "Machine acceptance check (no offer given)": "机器验收（未指定报价）",
    "Reading this machine…": "正在读取这台机器…",
    "GPUs": "GPU",
    "Checks": "检查项",
    "Verdict: ": "结论：",
    "Attached to quote {number} (verification #{stored_id})": (
        "已记入报价 {number}（验收记录 #{stored_id}）"
    ),
    "Measuring compute and bandwidth…": "正在实测算力与带宽…",
    "Provider/region": "服务商/机房",
    "Location": "地区",
    "GPU×cards": "GPU×卡",
    "Price": "单价",
    "Card-hour": "卡时价",
    "Time of use": "闲时",
    "Stock": "库存",
    "chunked loss": "分块损失",
    "CPU offload": "优化器卸载到 CPU",
    "selective": "选择性",
    "full": "完整",
    "`suanli offers` lists the catalog's GPUs; A100 is the 40 GB card, write A100-80G for 80 GB": (
        "`suanli offers` 列出目录里的卡型；A100 指 40 GB 卡，80 GB 请写 A100-80G"
    ),
    "`suanli init` creates the catalog; `--db` or SUANLI_DB chooses the database": (
        "`suanli init` 创建目录数据库；`--db` 或 SUANLI_DB 选择数据库"
    ),
    "check the SUANLI_* settings (README, section Settings)": (
        "检查 SUANLI_* 环境变量（README 的 Settings 一节）"
    ),
    "the source's last good snapshot stays current; `suanli refresh --provider ID` retries it alone": (
        "该来源上一次成功的快照仍然有效；`suanli refresh --provider ID` 可单独重试"
    ),
    "loosen the job's requirements or deadline; `suanli offers --compliant-for JOB.toml` lists the "
    "eligible offers": (
        "放宽任务要求或截止时间；`suanli offers --compliant-for JOB.toml` 列出可用报价"
    ),
    "PDF needs the pdf extra and Pango (README, section Install)": (
        "PDF 需要 pdf 附加包和 Pango（README 的 Install 一节）"
    ),
    "`{command} --help` shows what each option and file expects": (
        "`{command} --help` 说明每个选项和文件的格式"
    ),
    "`{command} --help` lists what each option accepts": "`{command} --help` 列出每个选项接受的值",
    "`suanli estimate --list-models` lists the built-in models; a size such as 7B or a "
    "Hugging Face config.json works too": (
        "`suanli estimate --list-models` 列出内置模型；也可写规模（如 7B）或 Hugging Face 的 config.json"
    ),
    "`suanli schema job` prints every key a job file takes; examples/ holds job files to "
    "start from": "`suanli schema job` 列出任务文件的全部键；examples/ 中有可参照的任务文件",
    "`suanli schema profile` prints every key a provider profile takes": (
        "`suanli schema profile` 列出服务商资料的全部键"
    ),
    "fix the rows listed and import the sheet again (README, section Price sheets)": (
        "改正列出的各行后重新导入（README 的 `Price sheets` 一节）"
    ),
    "SUANLI_HOLIDAYS_FILE names the holiday file (README, section Settings)": (
        "SUANLI_HOLIDAYS_FILE 指定节假日文件（README 的 Settings 一节）"
    ),
    "expected a whole number": "应为整数",
    "expected a number": "应为数字",
    "Status": "结果",
    "Snapshot": "快照",
    "Changes": "变化",
    "SKU": "规格",
    "Old": "原价",
    "New": "现价",
    "%": "幅度",
    "First → last": "最早 → 最新",
    "Change %": "幅度 %",
    "Points": "快照数",
    "Current": "在售",
    "Memory used/total MiB": "显存 已用/总 MiB",
    "ECC errors": "ECC 错误",
    "Procs": "进程",
    "price\x04Change": "变化",
    "GPU\x04Model": "型号",
    "chooser\x04user": "用户",
    "excluded\x04compliance": "合规",
    "excluded\x04requirements": "任务要求",
    "excluded\x04memory": "显存不足",
    "excluded\x04stock": "库存不足",
    "excluded\x04network": "组网",
    "excluded\x04throughput": "无吞吐数据",
    "excluded\x04currency": "无汇率",
    "excluded\x04time of use": "闲时规则",
    "advice\x04Change": "方案",
    "together: {changes}": "组合：{changes}",
    "not proven optimal": "未证明最优",
    "recompute\x04none": "不重算",
    "expected {low} or more": "应不小于 {low}",
    "expected {high} or less": "应不大于 {high}",
    "expected a whole number, got {value}": "应为整数，实为 {value}",
    "expected a number, got {value}": "应为数字，实为 {value}",
    "expected true or false, got {value}": "应为 true 或 false，实为 {value}",
    "{value} is out of range ({range})": "{value} 超出范围（{range}）",
    "no such file {path}": "文件 {path} 不存在",
    "{path} is a folder, expected a file": "{path} 是文件夹，应为文件",
    "is required (or use {option})": "必须给出（或用 {option}）",
    "unexpected extra argument(s): {args!r}": "多余的参数：{args!r}",
    "option {option} needs a value": "选项 {option} 需要一个值",
    "option {option} needs {count} values": "选项 {option} 需要 {count} 个值",
    "option {option} takes no value": "选项 {option} 不接受值",
    "expected zh or en": "应为 zh 或 en",
    "got {lang!r}": "实为 {lang!r}",
    "offer\x04ID": "ID",
    "op-level selective": "算子级选择性",
    "Service and company facts": "服务与公司情况",
    "Compliance": "合规",
    "demo": "演示",
    "{verdict}, gap {gap}": "{verdict}，差距 {gap}",
    "Active": "激活",
    "choose another output file: -o/--pdf name a new file in a writable folder": (
        "请换一个输出文件：-o/--pdf 应指向可写文件夹中的新文件"
    ),
    "{path}: the folder {folder} does not exist": "{path}：文件夹 {folder} 不存在",
    "{path}: the folder {folder} is not writable": "{path}：文件夹 {folder} 不可写",
    "--objective cost plans the cheapest schedule, --objective time the earliest finish": (
        "--objective cost 规划最便宜的方案，--objective time 规划最早完成的方案"
    ),
    "`suanli help` lists every command": "`suanli help` 列出全部命令",
    "sequence": "序列",
    "micro-batch": "微批",
    "Attention (recommended provider)": "注意（推荐的服务商）",
    "interrupted: quote {number} is saved, its report is not written": (
        "已中断：报价单 {number} 已保存，报告未写出"
    ),
    "interrupted (Ctrl-C): the step that was running is not saved": (
        "已中断（Ctrl-C）：正在进行的步骤未保存"
    ),
    "run the same command again to finish it": "再次运行同一命令即可完成",
    "--db or SUANLI_DB names the catalog: `sqlite:///path/catalog.db` or "
    "`postgresql+psycopg://user@host/db`; `suanli init` creates it": (
        "--db 或 SUANLI_DB 指定目录数据库：`sqlite:///path/catalog.db` 或 "
        "`postgresql+psycopg://user@host/db`；`suanli init` 可创建"
    ),
    "the host name cannot be resolved": "主机名无法解析",
    "the server refused the connection (is it running on that port?)": (
        "服务器拒绝连接（该端口上有服务在运行吗？）"
    ),
    "the user name or password is wrong": "用户名或密码错误",
    "the database does not exist on the server": "服务器上没有这个数据库",
    "the file is not a SQLite database": "该文件不是 SQLite 数据库",
    "the file cannot be opened": "无法打开该文件",
    "the database is locked by another suanli": "数据库被另一个 suanli 锁定",
    "the server did not answer in time": "服务器未及时响应",
    "--db: no driver for {drivername!r}; for PostgreSQL install "
    "suanli[postgres] and use postgresql+psycopg://user:pass@host/db": (
        "--db：没有 {drivername!r} 的驱动；PostgreSQL 请安装 suanli[postgres]，"
        "并使用 postgresql+psycopg://user:pass@host/db"
    ),
}
