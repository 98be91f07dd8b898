"""The Chinese of the messages of the catalog, settings, estimator, planner, quotes, reports,
checks and verification (English text → Chinese; see :mod:`comparator.i18n.messages`)."""

from __future__ import annotations

_CATALOG_ZH: dict[str, str] = {
    "--db: no driver for {drivername!r} ({reason}); for PostgreSQL install suanli[postgres] "
    "and use postgresql+psycopg://user:pass@host/db": (
        "--db：没有 {drivername!r} 的驱动（{reason}）；PostgreSQL 请安装 suanli[postgres]，并使用 "
        "postgresql+psycopg://user:pass@host/db"
    ),
    "cannot open the catalog database {url!r}: {reason}": "无法打开目录数据库 {url!r}：{reason}",
    "the catalog database {url} is busy: another process held its write lock for more than "
    "{wait_s:g} s (SUANLI_LOCK_TIMEOUT_S); nothing was written, try again": (
        "目录数据库 {url} 正忙：另一个进程持有写锁超过 {wait_s:g} s（SUANLI_LOCK_TIMEOUT_S）；"
        "未写入任何内容，请重试"
    ),
    "--db/SUANLI_DB: not a database URL: {url!r}": "--db/SUANLI_DB：不是数据库 URL：{url!r}",
    "--offer: expected an offer id (a number from `suanli offers`), got {offer_id!r}": (
        "--offer：应为报价 id（`suanli offers` 列出的数字），实为 {offer_id!r}"
    ),
    "--offer {offer_id}: no such offer in the catalog (see `suanli offers`)": (
        "--offer {offer_id}：目录中没有这条报价（见 `suanli offers`）"
    ),
    "`suanli init` creates it; point --db or SUANLI_DB at an existing catalog": (
        "`suanli init` 创建目录；用 --db 或 SUANLI_DB 指向已有的目录数据库"
    ),
    "no catalog database at {path}": "没有目录数据库 {path}",
    "the catalog database {url} has no schema yet": "目录数据库 {url} 还没有表结构",
    "no quote {number} in this catalog database": "这个目录数据库中没有报价 {number}",
    "quote number: expected Q-<year>-<6 digits> like Q-2026-000123, got {text!r}": (
        "报价单号：应为 Q-<年份>-<6 位数字>，如 Q-2026-000123，实为 {text!r}"
    ),
    "could not allocate a quote number for {year} after {attempts} attempts; is another "
    "process storing quotes?": (
        "尝试 {attempts} 次仍未能分配 {year} 年的报价单号；是否有另一个进程在保存报价？"
    ),
}

_CLI_ZH: dict[str, str] = {
    "--today: expected a date YYYY-MM-DD, got {text!r}": "--today：应为日期 YYYY-MM-DD，实为 {text!r}",
    "suanli import: give at least one price sheet or --profile PROFILE.toml": (
        "suanli import：至少给出一个价格表或 --profile PROFILE.toml"
    ),
    '--decimal: expected "." or ",", got {decimal!r}': '--decimal：应为 "." 或 ","，实为 {decimal!r}',
    "--billing: expected hourly, spot, daily, weekly, monthly, yearly; got {billing!r}": (
        "--billing：应为 hourly、spot、daily、weekly、monthly、yearly；实为 {billing!r}"
    ),
    "--province: expected a mainland province such as 广东 or 粤, got {province!r}": (
        "--province：应为大陆省份，如 广东 或 粤，实为 {province!r}"
    ),
    "`suanli quote --show {number} -o quote.html` renders it again": (
        "`suanli quote --show {number} -o quote.html` 可重新生成"
    ),
    "{reason} (quote {number} is saved; HTML written to {path})": (
        "{reason}（报价 {number} 已保存；HTML 已写入 {path}）"
    ),
    "{reason} (quote {number} is saved)": "{reason}（报价 {number} 已保存）",
    "suanli quote: give a job file (JOB.toml) or --show NUMBER": (
        "suanli quote：请给出任务文件（JOB.toml）或 --show 单号"
    ),
    "nvidia-smi is not on PATH here: on the rented machine run `nvidia-smi -q -x > smi.xml` "
    "(and `nvidia-smi topo -m > topo.txt`), then pass --nvidia-smi-xml smi.xml "
    "[--topo topo.txt]": (
        "本机 PATH 中没有 nvidia-smi：请在租用的机器上运行 `nvidia-smi -q -x > smi.xml`"
        "（以及 `nvidia-smi topo -m > topo.txt`），再传入 --nvidia-smi-xml smi.xml "
        "[--topo topo.txt]"
    ),
    "suanli check: unknown provider {unknown!r}; known: {known}": (
        "suanli check：未知服务商 {unknown!r}；已知：{known}"
    ),
    "--quote {quote_number}: no such quote (see `suanli quote`)": (
        "--quote {quote_number}：没有这份报价（见 `suanli quote`）"
    ),
}

_CONFIG_ZH: dict[str, str] = {
    "{env}: expected CODE=RATE items like USD=7.12, got {item!r}": (
        "{env}：应为 代码=汇率 项，如 USD=7.12，实为 {item!r}"
    ),
    "{env}: expected a number, got {text!r}": "{env}：应为数字，实为 {text!r}",
    "{env}: expected a non-negative number, got {text!r}": "{env}：应为非负数，实为 {text!r}",
    "SUANLI_TIMEZONE: unknown time zone {raw!r}": "SUANLI_TIMEZONE：未知时区 {raw!r}",
    "SUANLI_FX_DATE: expected YYYY-MM-DD, got {raw!r}": "SUANLI_FX_DATE：应为 YYYY-MM-DD，实为 {raw!r}",
    "SUANLI_HEADROOM must be < 1 and SUANLI_MULTI_NODE_EFFICIENCY in (0, 1]": (
        "SUANLI_HEADROOM 须小于 1，SUANLI_MULTI_NODE_EFFICIENCY 须在 (0, 1] 之内"
    ),
}

_ESTIMATE_ZH: dict[str, str] = {
    "{source}: expected a JSON object, got {kind}": "{source}：应为 JSON 对象，实为 {kind}",
    "{path}: no such config.json file": "{path}：没有这个 config.json 文件",
    "{path}: cannot read config.json ({reason})": "{path}：无法读取 config.json（{reason}）",
    "{path}: not valid JSON (line {lineno}, column {colno}: {msg})": (
        "{path}：不是有效的 JSON（第 {lineno} 行第 {colno} 列：{msg}）"
    ),
    "{source}: {message}": "{source}：{message}",
    "hidden size {hidden} is not a multiple of {heads} heads": "隐藏维度 {hidden} 不是注意力头数 {heads} 的倍数",
    "{heads} attention heads are not a multiple of {kv_heads} key/value heads": (
        "注意力头数 {heads} 不是键值头数 {kv_heads} 的倍数"
    ),
    "{active} active experts exceed {experts} experts": "激活专家数 {active} 超过专家总数 {experts}",
    "keys {keys} would change the parameter count but are not understood for model_type "
    "{family!r}; the estimator refuses to guess (a dense reading would be wrong)": (
        "键 {keys} 会改变参数量，但对 model_type {family!r} 无法理解；估算器不做猜测"
        "（按稠密模型读取会出错）"
    ),
    "key {key!r} must be a positive integer, got {value!r}": "键 {key!r} 应为正整数，实为 {value!r}",
    "key {key!r} must be a non-negative integer, got {value!r}": "键 {key!r} 应为非负整数，实为 {value!r}",
    "key {key!r} must be true or false, got {value!r}": "键 {key!r} 应为 true 或 false，实为 {value!r}",
    "key {key!r} must be a list of layer numbers, got {value!r}": "键 {key!r} 应为层号列表，实为 {value!r}",
    "missing key {wanted}; expected {expected}": "缺少键 {wanted}；应为{expected}",
    "a llama/qwen2/mistral/mixtral/deepseek-style config.json ({llama_keys}) or a "
    "gpt2/bloom-style one ({gpt2_keys})": (
        " llama/qwen2/mistral/mixtral/deepseek 式 config.json（{llama_keys}）或 gpt2/bloom 式"
        "（{gpt2_keys}）"
    ),
    "is not a known key; expected one of {names}": "不是已知的键；应为以下之一：{names}",
    "is not usable: {reason}": "无法使用：{reason}",
    "is not read here: put the GPU in [workload] gpu or [requirements] gpus": (
        "此处不读取：GPU 请写在 [workload] gpu 或 [requirements] gpus"
    ),
    "is not a known key; expected only name": "不是已知的键；只应有 name",
    "is required: a model name, a config.json path or a size such as 7B": (
        "必填：模型名、config.json 路径或规模，如 7B"
    ),
    "[training] {field} {message}": "[training] {field} {message}",
    "{path}: {problems}": "{path}：{problems}",
    "{source}: {where} {message}": "{source}：{where} {message}",
    "must be true or false, got {value!r}": "应为 true 或 false，实为 {value!r}",
    "must be true, false or one of {names}, got {value!r}": (
        "应为 true、false 或 {names} 之一，实为 {value!r}"
    ),
    "must be an integer, got {value!r}": "应为整数，实为 {value!r}",
    "must be a number, got {value!r}": "应为数字，实为 {value!r}",
    "must be a string, got {value!r}": "应为字符串，实为 {value!r}",
    "expected a token count such as 2T, 300M, 1.5e9 or 52k, got {text!r}": (
        "应为 token 数，如 2T、300M、1.5e9 或 52k，实为 {text!r}"
    ),
    "expected a token count such as 2T, 300M or 1.5e9, got {text!r}": (
        "应为 token 数，如 2T、300M 或 1.5e9，实为 {text!r}"
    ),
    "expected a non-negative token count, got {text!r}": "应为非负的 token 数，实为 {text!r}",
    "must be one of {names}, got {value!r}": "应为以下之一：{names}，实为 {value!r}",
    "must be a non-negative integer, got {value!r}": "应为非负整数，实为 {value!r}",
    "must be a positive integer, got {value!r}": "应为正整数，实为 {value!r}",
    "must be text, got {value!r}": "应为文本，实为 {value!r}",
    "key {key!r} = {value!r} is not understood (only {known!r})": (
        "键 {key!r} = {value!r} 无法理解（只认 {known!r}）"
    ),
    "key {key!r} must be an object, got {value!r}": "键 {key!r} 应为对象，实为 {value!r}",
    "keys {keys} of {section} would change the parameter count but are not understood; "
    "the estimator refuses to guess": "{section} 中的键 {keys} 会改变参数量但无法理解；估算器不做猜测",
    "attn_type {kind!r} is not understood": "无法理解 attn_type {kind!r}",
    "key 'word_embed_proj_dim' ({projected}) differs from hidden_size ({hidden}): "
    "projected OPT embeddings are not understood": (
        "键 'word_embed_proj_dim'（{projected}）与 hidden_size（{hidden}）不同：不支持投影式 OPT 词嵌入"
    ),
    "key 'attention_layers' must list 'global' or 'local' for each of the {layers} "
    "layers": "键 'attention_layers' 须为 {layers} 层各列出 'global' 或 'local'",
    "a whole number of hours 1–24": "1–24 之间的整数小时",
    "internal error: no closed segment leads to this pause": "内部错误：没有已结束的时段通向这次暂停",
    "internal error: a rebuilt contract runs no slot": "内部错误：重建的包期时段没有运行任何小时",
    "internal error: no hours run today lead to this segment": "内部错误：没有当日已运行小时数通向这个时段",
    "max_run_slots_per_day must be ≥ 0": "max_run_slots_per_day 应 ≥ 0",
    "h ({gb} GB at {gbps} Gbit/s)": "小时（{gb} GB，{gbps} Gbit/s）",
    "{gb} GB billable, upload start to finish, paused hours included": (
        "计费 {gb} GB，自上传开始至完成，含暂停时段"
    ),
    "not stated: the data centre states no storage price, billed at 0": (
        "未注明：数据中心未注明存储价格，按 0 计费"
    ),
    "not stated: the data centre states no egress price, billed at 0": (
        "未注明：数据中心未注明出网价格，按 0 计费"
    ),
    "before the first run hour, no GPU rented": "在首个运行小时之前，不租用 GPU",
    "before the first run hour, no GPU rented (assumed: the data centre states no upload "
    "bandwidth)": "在首个运行小时之前，不租用 GPU（假定值：数据中心未注明上传带宽）",
    "h": "小时",
    "GB": "GB",
    "must be in {bracket}{low:g}, {high:g}], got {value!r}": (
        "应在 {bracket}{low:g}, {high:g}] 之内，实为 {value!r}"
    ),
    "must be 0, 1, 2 or 3, got {value!r}": "应为 0、1、2 或 3，实为 {value!r}",
    "cannot be combined with tokens: give one of them": "不能与 tokens 同时给出：二选一",
    "is needed too: samples and avg_tokens go together": "也必须给出：samples 与 avg_tokens 需同时给出",
    "needs precision bf16 or fp16, not fp32": "需要 precision bf16 或 fp16，不能是 fp32",
    "must be at most {limit}, got {value}": "最多 {limit}，实为 {value}",
    "must name a model, a config.json or a size such as 7B": "须给出模型名、config.json 或规模，如 7B",
    "{flag} {message}": "{flag} {message}",
    "{problems}": "{problems}",
    "--lora-rank {lora_rank} must be smaller than the hidden size {hidden} of {name}": (
        "--lora-rank {lora_rank} 须小于 {name} 的隐藏维度 {hidden}"
    ),
    "--precision fp8: {name} has no FP8 tensor cores (Ada, Hopper or Blackwell cards have "
    "them); use bf16": (
        "--precision fp8：{name} 没有 FP8 张量核心（Ada、Hopper、Blackwell 架构的卡才有）；请用 bf16"
    ),
    "--gpu {name}: {card} has no known dense BF16/FP16 throughput, so it can be priced but not "
    "estimated; pick another GPU": (
        "--gpu {name}：{card} 没有已知的稠密 BF16/FP16 算力，只能比价、不能估算；请换一种 GPU"
    ),
    "--model is empty: expected a model name, config.json or size": (
        "--model 为空：应为模型名、config.json 或规模"
    ),
    "unknown model {text!r}: expected a built-in name (e.g. Llama-2-7b, Qwen2.5-7B; see "
    "`suanli estimate --list-models`), a Hugging Face config.json path, or a size such as 7B or "
    "350M{suggestion}": (
        "未知模型 {text!r}：应为内置模型名（如 Llama-2-7b、Qwen2.5-7B；见 "
        "`suanli estimate --list-models`）、Hugging Face config.json 路径，或规模，如 7B 或 350M{suggestion}"
    ),
    "; did you mean {names}?": "；是否想用 {names}？",
    "model size {spec!r} is too small: expected at least 1M": "模型规模 {spec!r} 太小：至少 1M",
}

_PLAN_ZH: dict[str, str] = {
    "amounts: rate {key} adds up past what the planner computes exactly": (
        "amounts: 费率 {key} 的金额累计超出规划器可精确计算的范围"
    ),
    "amounts: up to {amount} over the horizon, past the {limit} the planner computes exactly": (
        "amounts: 整个规划期内金额最高可达 {amount}，超出规划器可精确计算的 {limit}"
    ),
    "no plan: {reason}; check the offers' prices (suanli offers --compliant-for JOB.toml) or "
    "shorten the job's horizon": (
        "没有方案：{reason}；请检查报价（suanli offers --compliant-for JOB.toml）或缩短任务的时间范围"
    ),
    "rate {what}: prices with {places} decimal places are too fine to plan": (
        "费率 {what}：价格有 {places} 位小数，精度过细，无法规划"
    ),
    "internal error: no closed segment leads to this start": "内部错误：没有已结束的时段通向这个开始",
    "internal error: a closed segment has no start": "内部错误：已结束的时段没有开始",
    "internal error: the rebuilt plan does not add up to its cost": "内部错误：重建的方案与其费用不符",
    "internal error: no plan rebuilt for finish slot {finish}": "内部错误：结束时段 {finish} 没有重建出方案",
    "internal error: the bill does not add up to the plan's cost": "内部错误：账单与方案费用不符",
    "this profile was solved without keeping its layers": "这个档案求解时没有保留各层",
    "no plan finishes at slot {work}": "没有在时段 {work} 结束的方案",
    "rate {key}: min_slots must be ≥ 1": "费率 {key}：min_slots 须不小于 1",
    "rate {key}: needs a period ≥ 1, min ≥ 1, cost > 0": "费率 {key}：周期须不小于 1、最少不小于 1、费用大于 0",
    "amount {value} has more than {places} decimal places": "金额 {value} 超过 {places} 位小数",
    "a schedule needs work_slots ≥ 1, deadline ≥ 0 and overhead ≥ 0": (
        "排程需要 work_slots 不小于 1、deadline 不小于 0、overhead 不小于 0"
    ),
    "storage per slot must be whole cents ≥ 0": "每时段存储费须为不小于 0 的整分",
    "jobs {names} cannot all be placed with the stock available: each fits alone, but not "
    "together before their deadlines. Plan them separately, move a deadline, or find more stock": (
        "任务 {names} 无法在现有库存下全部安排：每个单独都能放下，但不能在各自截止时间前同时完成。"
        "请分开规划、推迟截止时间，或寻找更多库存"
    ),
    "jobs {names} cannot all be placed: each fits alone, but several open on one provider's "
    "free trial, which goes to one of them only (one account); without it, or with the stock "
    "they share, a job misses its budget or deadline. Plan them separately, raise a budget, "
    "move a deadline, or find more stock": (
        "任务 {names} 无法全部安排：每个单独都能放下，但其中几个都以同一服务商的免费试用开场，"
        "而试用只归其中一个任务（同一账户）；没有试用或共用库存时，有任务超出预算或截止时间。"
        "请分开规划、提高预算、推迟截止时间，或寻找更多库存"
    ),
    "--objective time plans one job at a time; plan the jobs separately": (
        "--objective time 一次只规划一个任务；请分别规划"
    ),
    "--objective: expected cost or time, got {objective!r}": (
        "--objective：应为 cost 或 time，实为 {objective!r}"
    ),
}

_REPORT_ZH: dict[str, str] = {
    "--pdf needs Pango: apt-get install libpango-1.0-0 libpangoft2-1.0-0 fonts-noto-cjk "
    "({reason})": (
        "--pdf 需要 Pango：apt-get install libpango-1.0-0 libpangoft2-1.0-0 fonts-noto-cjk"
        "（{reason}）"
    ),
    "--pdf needs WeasyPrint: pip install 'suanli[pdf]'": (
        "--pdf 需要 WeasyPrint：pip install 'suanli[pdf]'"
    ),
    "{path}: is the catalog database; choose another output file": "{path}：这是目录数据库；请换一个输出文件",
    "{path}: given for both -o and --pdf; choose two files": "{path}：-o 与 --pdf 给了同一个文件；请用两个文件",
    "{path}: is a folder; expected a file name": "{path}：这是文件夹；应为文件名",
    "{path}: cannot write the report ({reason}); nothing was written": (
        "{path}：无法写入报告（{reason}）；未写入任何内容"
    ),
}

_VERIFY_ZH: dict[str, str] = {
    "{source}: XML entity declarations are not accepted": "{source}：不接受 XML 实体声明",
    "{source}: not XML ({reason}); expected the output of `nvidia-smi -q -x`": (
        "{source}：不是 XML（{reason}）；应为 `nvidia-smi -q -x` 的输出"
    ),
    "{source}: root element is <{tag}>, expected <nvidia_smi_log> (the output of "
    "`nvidia-smi -q -x`)": (
        "{source}：根元素是 <{tag}>，应为 <nvidia_smi_log>（`nvidia-smi -q -x` 的输出）"
    ),
    "{source}: no GPU0 column header; expected `nvidia-smi topo -m` output": (
        "{source}：没有 GPU0 列标题；应为 `nvidia-smi topo -m` 的输出"
    ),
    "`{command}` could not run: {reason}": "`{command}` 无法运行：{reason}",
    "`{command}` failed (exit {returncode}): {value}": "`{command}` 失败（退出码 {returncode}）：{value}",
}

WORK_ZH: dict[str, str] = {
    **_CATALOG_ZH,
    **_CLI_ZH,
    **_CONFIG_ZH,
    **_ESTIMATE_ZH,
    **_PLAN_ZH,
    **_REPORT_ZH,
    **_VERIFY_ZH,
}
