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
    "{path}: cannot read the profile ({reason})": "{path}：无法读取档案（{reason}）",
    "{path}: expected UTF-8 text, but byte {byte} is not UTF-8": (
        "{path}：应为 UTF-8 文本，但第 {byte} 个字节不是 UTF-8"
    ),
    "{path}: not valid TOML (arrays or tables nested too deep)": "{path}：不是有效的 TOML（数组或表嵌套过深）",
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
    "{path}: cannot read the holidays file ({reason})": "{path}：无法读取节假日文件（{reason}）",
    "{path}: [{key}]: expected a table per year, such as [2027]": "{path}：[{key}]：应为每年一个表，如 [2027]",
    "{path}: {field}: expected a list of dates": "{path}：{field}：应为日期列表",
    "{path}: {field}: {item!r} is not a range of days in {year}": (
        "{path}：{field}：{item!r} 不是 {year} 年内的日期范围"
    ),
    "{path}: {field}: expected YYYY-MM-DD, got {text!r}": (
        "{path}：{field}：应为 YYYY-MM-DD，实为 {text!r}"
    ),
}

INPUT_ZH: dict[str, str] = {**_COMMON_ZH, **_JOB_ZH, **_PROFILE_ZH, **_CALENDAR_ZH}
