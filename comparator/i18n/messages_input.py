"""The Chinese of the messages about what a user gives: job files, profiles, time-of-use rules,
holidays files (English text → Chinese; see :mod:`comparator.i18n.messages`)."""

from __future__ import annotations

# shared pieces: reasons, values expected
_COMMON_ZH: dict[str, str] = {
    "{reason}": "{reason}",
    "no such file or folder": "没有这个文件或文件夹",
    "permission denied": "没有权限",
    "is a folder": "这是一个文件夹",
    "a part of the path is not a folder": "路径中有一段不是文件夹",
    "no space left on the disk": "磁盘空间不足",
    "the disk is read-only": "磁盘只读",
    "at the end of the file": "文件末尾",
    "line {line}, column {column}": "第 {line} 行第 {column} 列",
    "row {row}, column {column}: expected {expected}": "第 {row} 行，{column} 列：应为{expected}",
    "row {row}, column {column}: expected {expected} (got {got!r})": (
        "第 {row} 行，{column} 列：应为{expected}（实为 {got!r}）"
    ),
    "{path}: {count} bad row(s), nothing imported:\n  {rows}": (
        "{path}：{count} 行有误，未导入任何内容：\n  {rows}"
    ),
    "… and {count} more": "… 另有 {count} 处",
    "unknown GPU {name!r}": "未知 GPU {name!r}",
    "unknown GPU {name!r}; did you mean {names}?": "未知 GPU {name!r}；是否想用 {names}？",
    "one of {names}": "以下之一：{names}",
    "a table": "一个表",
    "a non-empty string": "非空字符串",
    "a string": "字符串",
    "true or false": " true 或 false",
    "a whole number": "整数",
    "a whole number ≥ {low}": "不小于 {low} 的整数",
    "a whole number from {low} to {high}": "{low} 到 {high} 的整数",
    "a number": "数字",
    "a positive number": "正数",
    "a non-negative number": "非负数",
    "a list of strings": "字符串列表",
    "a date YYYY-MM-DD": "日期 YYYY-MM-DD",
    "an ISO date-time": "ISO 日期时间",
    "a date-time like 2026-12-01T00:00:00+08:00": "日期时间，如 2026-12-01T00:00:00+08:00",
}

_JOB_ZH: dict[str, str] = {
    "{path}: {key}: expected {expected}": "{path}：{key}：应为{expected}",
    "{path}: {key}: expected {expected} (got {got!r})": "{path}：{key}：应为{expected}（实为 {got!r}）",
    "{path}: {key}: {reason}": "{path}：{key}：{reason}",
    "{path}: no such job file": "{path}：没有这个任务文件",
    "{path}: no such calibration file": "{path}：没有这个校准文件",
    "calibration file": "校准文件",
    "a [calibration] table": "一个 [calibration] 表",
    "--calibration-out: this machine's GPUs ({names}) are not one known model": (
        "--calibration-out：本机的卡（{names}）不是同一种已知卡型"
    ),
    "--calibration-out needs --trial-tokens-per-s: the training tokens/s per card your trial "
    "run measured on this machine": (
        "--calibration-out 需要 --trial-tokens-per-s：你在本机试跑实测的每卡每秒训练词元数"
    ),
    "--calibration-out: cannot write {path} ({reason})": "--calibration-out：无法写入 {path}（{reason}）",
    "a date like 2026-11-20": "形如 2026-11-20 的日期",
    "micro_batch and seq_len beside step_time_s": "与 step_time_s 一起给出 micro_batch 和 seq_len",
    "the GPU the trial ran on, like A100-80G": "试跑所用的卡型，如 A100-80G",
    "the number of cards the trial ran on": "试跑所用的卡数",
    "tokens_per_s_per_card, or step_time_s with micro_batch and seq_len (one of them)": (
        "tokens_per_s_per_card，或 step_time_s 加 micro_batch 与 seq_len（二选一）"
    ),
    "--calibration plans one job; put a [calibration] table in each job file": (
        "--calibration 只用于单个任务；多个任务请在各自的任务文件中写 [calibration] 表"
    ),
    "{path}: expected UTF-8 text (TOML is UTF-8)": "{path}：应为 UTF-8 文本（TOML 使用 UTF-8）",
    "{path}: cannot read the calibration file ({reason})": "{path}：无法读取校准文件（{reason}）",
    "{path}: expected UTF-8 text (TOML is UTF-8), but byte {byte} is not UTF-8; if it was saved "
    "as GB18030/GBK, save it again as UTF-8": (
        "{path}：应为 UTF-8 文本（TOML 一律 UTF-8），但第 {byte} 个字节不是 UTF-8；若以 "
        "GB18030/GBK 保存，请另存为 UTF-8"
    ),
    "{path}: cannot read the job file ({reason})": "{path}：无法读取任务文件（{reason}）",
    "{path}: not valid TOML ({reason})": "{path}：不是有效的 TOML（{reason}）",
    "a time after earliest_start {start}": "晚于 earliest_start（{start}）的时间",
    "windows like 'mon-fri 09:00-18:00' ({reason})": "形如 'mon-fri 09:00-18:00' 的时段（{reason}）",
    "a mainland province name or 简称 (short name)": "大陆省份全称或简称",
    "a positive number of card-hours": "正的卡时数",
    "the reference GPU the card-hours were measured on": "测得卡时所用的参考 GPU",
    "a table with earliest_start and deadline": "含 earliest_start 和 deadline 的表",
    "a level from 1 to 5": "1 到 5 的等级",
    "either [workload] or [model]+[training], not both": (
        "[workload] 与 [model]+[training] 二选一，不能同时给出"
    ),
    "[workload] card_hours, or [model] and [training]": (
        "[workload] card_hours，或 [model] 与 [training]"
    ),
    "an ISO 4217 code like CNY": "ISO 4217 货币代码，如 CNY",
}

_PROFILE_ZH: dict[str, str] = {
    "{path}: {place}: expected {expected}": "{path}：{place}：应为{expected}",
    "{path}: {place}: expected {expected} (got {got})": "{path}：{place}：应为{expected}（实为 {got}）",
    "{path}: {place}: unknown field; expected one of {names}": (
        "{path}：{place}：未知字段；应为以下之一：{names}"
    ),
    "a [{key}] table": "一个 [{key}] 表",
    "an array of tables [[{key}]]": "表数组 [[{key}]]",
    "text of at most {count} characters": "不超过 {count} 个字符的文本",
    "text without NUL bytes or unpaired surrogates": "不含 NUL 字节或孤立代理码位的文本",
    "an id without spaces": "不含空格的 id",
    "an id of ASCII letters, digits, '-', '_' and '.' (no leading '.', no '..')": (
        "只含 ASCII 字母、数字、'-'、'_' 和 '.' 的 id（不以 '.' 开头，不含 '..'）"
    ),
    "{rule}; it starts with '.'": "{rule}；它以 '.' 开头",
    "{rule}; it has '..' at position {position}": "{rule}；第 {position} 个字符处有 '..'",
    "{rule}; character {position} is {character}": "{rule}；第 {position} 个字符是 {character}",
    "an id of at most {count} characters": "不超过 {count} 个字符的 id",
    "a number written with a decimal point, such as 1000000.50": "用小数点书写的数字，如 1000000.50",
    "an ISO 3166 two-letter country code such as CN or US": "ISO 3166 两字母国家代码，如 CN 或 US",
    "a mainland province name or 简称 (short name, e.g. 广东 or 粤)": "大陆省份全称或简称（如 广东 或 粤）",
    "service codes such as B11, B12, B14": "业务代码，如 B11、B12、B14",
    "provinces or province-city entries such as 广东 or 江苏-常州": "省份或“省-市”，如 广东 或 江苏-常州",
    "{path}: missing the [provider] table (with id and name)": (
        "{path}：缺少 [provider] 表（含 id 与 name）"
    ),
    "a factor above 0 and at most 1 (0.9 = 10% off)": "大于 0、不大于 1 的系数（0.9 即九折）",
    "{wanted}, but this is {found}": "{wanted}，但这是{found}",
    "a telecom licence number ([[licenses]] number)": "电信业务经营许可证编号（[[licenses]] number）",
    "an ICP licence number ([[licenses]] number or [[filings]] kind icp_license)": (
        "ICP 许可证编号（[[licenses]] number 或 [[filings]] kind icp_license）"
    ),
    "an ICP filing ([[filings]] kind icp_filing)": "ICP 备案号（[[filings]] kind icp_filing）",
    "a 公安备案 (public security filing) number ([[filings]] kind gongan)": (
        "公安备案号（[[filings]] kind gongan）"
    ),
    "a USCC ([provider] uscc)": "统一社会信用代码（[provider] uscc）",
    "a licence number such as B1-20190123": "许可证编号，如 B1-20190123",
    "an MLPS (等保, classified protection) level 1–5": "等保级别 1–5",
    "the {kind} number": "{kind} 编号",
    "a data-centre id unique within the profile": "在档案内唯一的机房 id",
    "a province (name or 简称, short name) for a data centre in mainland China": (
        "大陆机房所在省份（全称或简称）"
    ),
    "no Chinese province for a data centre in country {country}": "国家为 {country} 的机房不填中国省份",
    "either storage_price_gb_month or _gb_day, not both": "storage_price_gb_month 与 _gb_day 二选一",
    "a positive bandwidth in Gbit/s": "正的带宽（Gbit/s）",
    "an IANA time zone such as Asia/Shanghai": "IANA 时区，如 Asia/Shanghai",
    "{path}: not valid TOML (arrays or tables nested too deep)": "{path}：不是有效的 TOML（数组或表嵌套过深）",
    # the keys of a profile file (descriptions in its JSON Schema)
    "a [provider] table with id and name": "[provider] 表（含 id 和 name）",
    "IANA time zone (default Asia/Shanghai)": "IANA 时区（默认 Asia/Shanghai）",
    "ISO 3166 two-letter code (default CN)": "ISO 3166 两字母国家代码（默认 CN）",
    "ISO 3166 two-letter code (default: the provider's)": "ISO 3166 两字母国家代码（默认与服务商相同）",
    "MLPS level (kind = 'mlps')": "等保级别（kind = 'mlps' 时）",
    "a deposit in CNY": "押金（人民币）",
    "a member of CNNIC": "CNNIC 会员",
    "a rented machine may change billing mode in place": "租用中的机器可原地转换计费方式",
    "availability promised, percent": "承诺的可用性（百分比）",
    "cards may be added or released within a contract": "合同期内可增减卡数",
    "factor on every price, 0 < d ≤ 1": "所有价格的折扣系数，0 < d ≤ 1",
    "free text": "自由文本",
    "held as the provider claims, without a number (never passes a rule)": (
        "服务商声称持有、未给编号（不会通过任何规则）"
    ),
    "maintenance and machine replacement at no charge": "免费维护和换机",
    "one of 'icp_filing', 'icp_license', 'gongan', 'mlps'": (
        "'icp_filing'、'icp_license'、'gongan'、'mlps' 之一"
    ),
    "unified social credit code (USCC), 18 characters": "统一社会信用代码（18 位）",
    "unused contract time is refunded by the hour": "未用完的合同时长按小时退费",
    "what a claimed licence is called": "所声称许可证的名称",
    "what must be paid before the rental": "租用前须预付的款项",
    "where the facts of this table were read": "本表信息的出处",
}

_CALENDAR_ZH: dict[str, str] = {
    "no Chinese holiday calendar for {year} (neither chinesecalendar nor the holidays package "
    "has it); give that year's official schedule in SUANLI_HOLIDAYS_FILE, or drop "
    "workday/holiday rules for that period": (
        "没有 {year} 年的中国节假日日历（chinesecalendar 和 holidays 包都没有）；请在 "
        "SUANLI_HOLIDAYS_FILE 中给出当年的官方安排，或去掉该时段的工作日/节假日规则"
    ),
    "{where}: rule {index} {rule!r}: expected {expected}": (
        "{where}：第 {index} 条规则 {rule!r}：应为{expected}"
    ),
    "a day among {names}, got {name!r}": "以下日子之一：{names}，实为 {name!r}",
    "day names separated by commas": "以逗号分隔的日子名称",
    "a time HH:MM from 00:00 to {latest}, got {text!r}": "00:00 到 {latest} 之间的时间 HH:MM，实为 {text!r}",
    "a range whose start and end differ": "起止不同的时间段",
    "a positive decimal factor after '*', got {text!r}": "'*' 后的正小数系数，实为 {text!r}",
    "[DAYS] [HH:MM-HH:MM] *FACTOR, e.g. 'sat-sun 00:00-08:00*0.5'": (
        "[日子] [HH:MM-HH:MM] *系数，如 'sat-sun 00:00-08:00*0.5'"
    ),
    "{path}: [{key}]: expected a table per year, such as [2027]": "{path}：[{key}]：应为每年一个表，如 [2027]",
    "{path}: {field}: expected a list of dates": "{path}：{field}：应为日期列表",
    "{path}: {field}: {item!r} is not a range of days in {year}": (
        "{path}：{field}：{item!r} 不是 {year} 年内的日期范围"
    ),
    "{path}: {field}: expected YYYY-MM-DD, got {text!r}": (
        "{path}：{field}：应为 YYYY-MM-DD，实为 {text!r}"
    ),
}

# the training stack (comparator.estimate.stacks) and where an efficiency figure comes from
_STACK_ZH: dict[str, str] = {
    "--stack {value!r}: unknown training stack; expected one of {names}": (
        "--stack {value!r}：未知的训练框架；应为 {names} 之一"
    ),
    "{value!r} is not offered by the {stack} stack (it trains {methods}); choose another --stack": (
        "{stack} 不支持 {value!r}（它支持 {methods}）；请换一个 --stack"
    ),
    "{value!r} recomputation is not offered by the {stack} stack; it offers {modes} "
    "(op-level selective: --stack {op_stack}; selective: {sel_stack})": (
        "{stack} 不提供 {value!r} 重计算；它提供 {modes}（算子级选择性：--stack {op_stack}；"
        "选择性：{sel_stack}）"
    ),
    "is not offered by the {stack} stack": "{stack} 不支持此项",
    "is not offered by the {stack} stack (its loss is plain)": (
        "{stack} 不支持此项（其损失为普通交叉熵）"
    ),
    "stage {value} is not offered by the {stack} stack (it shards with {stages})": (
        "{stack} 不提供 ZeRO-{value}（它的分片方式为 {stages}）"
    ),
    "needs ZeRO stage {floor} or higher under {stack} (optimizer offload shards the states "
    "first; DDP cannot offload them), got --zero {value}": (
        "在 {stack} 下需要 ZeRO {floor} 或更高（优化器卸载要先分片优化器状态；DDP 无法卸载），"
        "实为 --zero {value}"
    ),
    "Stack: {name} (assumed: none given; the hours range covers every stack)": (
        "训练框架：{name}（未指定，按默认估算；时长区间覆盖所有框架）"
    ),
    "Stack: {name}": "训练框架：{name}",
    "loss {loss}": "损失 {loss}",
    "efficiency: --mfu as given": "效率：用户给定的 --mfu",
    "{source}: key {key!r} is not understood ({why}); the estimator refuses to drop it "
    "silently — give the language model's own config.json, or a size such as 7B": (
        "{source}：无法识别键 {key!r}（{why}）；估算器不会悄悄忽略它——请给出语言模型本身的 "
        "config.json，或 7B 这样的规模"
    ),
    "a vision or audio tower of an unknown kind": "未知类型的视觉或音频编码器",
    "a vision tower other than Llama 4's": "Llama 4 以外的视觉编码器",
    "a NAS model whose layers differ one by one, such as Llama-3.1-Nemotron-51B": (
        "逐层结构不同的 NAS 模型，如 Llama-3.1-Nemotron-51B"
    ),
    "key 'pixel_shuffle_ratio' must be a number in (0, 1], got {value!r}": (
        "键 'pixel_shuffle_ratio' 应为 (0, 1] 之间的数，实为 {value!r}"
    ),
    "efficiency: fitted to {runs} cited runs on {gpu}": "效率：拟合自 {gpu} 上 {runs} 个有出处的公开训练",
    "efficiency: no cited run on {gpu}; bounded by the roofline of its memory bandwidth "
    "({gbs} GB/s)": ("效率：{gpu} 无有出处的公开训练；受其显存带宽（{gbs} GB/s）的屋顶线限制"),
    "efficiency: no cited run on {gpu}; capped at what {sibling} delivers (faster on both "
    "peak and bandwidth)": (
        "效率：{gpu} 无有出处的公开训练；不高于 {sibling} 的实际算力（后者峰值与带宽都更高）"
    ),
    "efficiency: no cited run on {gpu}; its card class's fit": (
        "效率：{gpu} 无有出处的公开训练；按同类卡的拟合"
    ),
}

_READING_ZH: dict[str, str] = {
    # descriptions of a file model's keys (what a missing key was expected to be)
    "a whole number ≥ 0": "不小于 0 的整数",
    "a whole number ≥ 1": "不小于 1 的整数",
    "windows like 'mon-fri 09:00-18:00'": "形如 'mon-fri 09:00-18:00' 的时段",
    "one of 'exempt', 'standard_contract', 'certified', 'cac_assessed'": (
        "以下之一：'exempt'、'standard_contract'、'certified'、'cac_assessed'"
    ),
    "a value of the right kind": "类型正确的值",
    "{path}: cannot read the {kind} ({reason})": "{path}：无法读取{kind}（{reason}）",
    "{path}: more than {limit} bytes; expected a {kind} of at most {limit} bytes": (
        "{path}：超过 {limit} 字节；{kind}最多 {limit} 字节"
    ),
    "job file": "任务文件",
    "profile": "档案",
    "sources file": "来源文件",
    "holidays file": "节假日文件",
    "{path}: line 1 declares the encoding {name!r}; expected utf-8 or gb18030 (or save the file "
    "as UTF-8 and drop the coding line)": (
        "{path}：第 1 行声明编码为 {name!r}；应为 utf-8 或 gb18030（或另存为 UTF-8 并删去该编码行）"
    ),
    "{path}: line {line}, column {column}: byte {byte} is not GB18030, though line 1 declares "
    "it": "{path}：第 {line} 行第 {column} 列：第 {byte} 个字节不是 GB18030，但第 1 行声明了 GB18030",
    "{path}: line {line}, column {column}: expected UTF-8 text (TOML is UTF-8), but byte {byte} "
    "is not UTF-8; save the file again as UTF-8, or, if it is GB18030/GBK, say so on its first "
    "line: '# -*- coding: gb18030 -*-'": (
        "{path}：第 {line} 行第 {column} 列：应为 UTF-8 文本（TOML 一律 UTF-8），但第 {byte} 个字节"
        "不是 UTF-8；请另存为 UTF-8，若文件是 GB18030/GBK，请在第一行写明：'# -*- coding: gb18030 -*-'"
    ),
    "{where}: {what}": "{where}：{what}",
    "expected a key = value, a [table] or a comment": "应为 键 = 值、[表] 或注释",
    "expected '=' after a key": "键后应为 '='",
    "a key given twice": "同一个键出现了两次",
    "a table given twice": "同一个表出现了两次",
    "expected a value (a quoted string, number, date, true/false)": (
        "应为一个值（带引号的字符串、数字、日期、true/false）"
    ),
    "expected ']' to close the array": "数组缺少结尾的 ']'",
    "expected a closing brace to end the inline table": "内联表缺少结尾的花括号",
    "expected the closing quote of the string": "字符串缺少结尾的引号",
    "a control character inside a string": "字符串中有控制字符",
    "expected a date or date-time such as 2027-01-31": "应为日期或日期时间，如 2027-01-31",
    "expected ']' at the end of the table name": "表名结尾应为 ']'",
    "expected ']]' at the end of the name": "名称结尾应为 ']]'",
    "expected a key": "应为一个键",
}

_FACTS_ZH: dict[str, str] = {
    "--collective: expected auto, ring, gloo or nccl; got {value!r}": (
        "--collective：应为 'auto'、'ring'、'gloo' 或 'nccl'，实为 {value!r}"
    ),
    '"7x24" (round-the-clock support)': '"7x24"（全天候技术支持）',
    "a city such as {names}": "城市，如 {names}",
    "a known city name": "已知的城市名",
    "the city max_latency_ms is measured from": "max_latency_ms 的测量起点城市",
    "a licence number such as B1-20190123 (or claimed = true)": (
        '许可证编号，如 B1-20190123（或 "claimed = true" 表示仅声称持有）'
    ),
    "an availability in percent above 0 and at most 100": "可用性百分比，大于 0 且不超过 100",
    "a table of city = round-trip milliseconds": "城市 = 往返毫秒数 的表",
    "carriers among telecom, unicom, mobile and BGP": "运营商：电信、联通、移动或 BGP",
    "a positive round-trip time in milliseconds": "正的往返时间（毫秒）",
    "--nodes {path}: expected at least two hosts, one per line (got {count})": (
        "--nodes {path}：应至少有两台主机，每行一台（实为 {count} 台）"
    ),
    "--nodes {path}: cannot read the host file ({reason})": (
        "--nodes {path}：无法读取主机文件（{reason}）"
    ),
}

INPUT_ZH: dict[str, str] = {
    **_COMMON_ZH,
    **_JOB_ZH,
    **_PROFILE_ZH,
    **_CALENDAR_ZH,
    **_STACK_ZH,
    **_READING_ZH,
    **_FACTS_ZH,
}
