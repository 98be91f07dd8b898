"""The Chinese of the messages about price sheets, imports, sources files and fetching
(English text → Chinese; see :mod:`comparator.i18n.messages`)."""

from __future__ import annotations

_SHEET_ZH: dict[str, str] = {
    "one column for {column}, not two": "{column} 只能有一列，不能两列",
    "a data centre of {provider} ({choices})": "{provider} 的机房（{choices}）",
    "no time-of-use rule on a contract row": "包期行不设分时规则",
    "a column named {column} (or {aliases}); closest header found: {close!r}": (
        "名为 {column}（或 {aliases}）的列；最接近的表头：{close!r}"
    ),
    "a column named {column} (or {aliases})": "名为 {column}（或 {aliases}）的列",
    "{path}: too large to read": "{path}：文件太大，无法读取",
    "{path}: nested too deeply; expected a list of flat objects (one per offer)": (
        "{path}：嵌套过深；应为扁平对象的列表（每条报价一个）"
    ),
    "{path}: not a readable {kind} sheet ({reason})": "{path}：不是可读取的 {kind} 价格表（{reason}）",
    "{path}: {count} columns; expected at most {limit}": "{path}：{count} 列；最多 {limit} 列",
    "{path}: {count} rows; expected at most {limit}": "{path}：{count} 行；最多 {limit} 行",
    "{count} columns; expected at most {limit}": "{count} 列；最多 {limit} 列",
    "more than {limit} columns; expected at most {limit}": "超过 {limit} 列；最多 {limit} 列",
    "an object with {count} keys; expected at most {limit} (one key per column)": (
        "一个对象有 {count} 个键；最多 {limit} 个（每列一个键）"
    ),
    "{path}: more than {limit} bytes; expected a sheet of at most {limit} bytes": (
        "{path}：超过 {limit} 字节；价格表最多 {limit} 字节"
    ),
    "{path}: expected a JSON list of objects (one per offer)": "{path}：应为对象组成的 JSON 列表（每条报价一个）",
    '{path}: decimal: expected "." or ",", got {value!r}': (
        '{path}：decimal：应为 "." 或 ","，实为 {value!r}'
    ),
    "an empty file": "空文件",
    "{path}: expected an Excel workbook (.xlsx, a ZIP file as Excel or LibreOffice save it), "
    "got {what}; save it as .xlsx again, or rename a CSV to .csv": (
        "{path}：应为 Excel 工作簿（.xlsx，即 Excel 或 LibreOffice 保存的 ZIP 文件），实为{what}；"
        "请重新另存为 .xlsx，CSV 文件请改名为 .csv"
    ),
    "{path}: expected an Excel workbook (.xlsx), got a damaged or non-Excel ZIP file "
    "({reason}); save it as .xlsx again": (
        "{path}：应为 Excel 工作簿（.xlsx），实为损坏的或非 Excel 的 ZIP 文件（{reason}）；"
        "请重新另存为 .xlsx"
    ),
    "an old Excel 97-2003 .xls file (save it as .xlsx)": "旧版 Excel 97-2003 .xls 文件（请另存为 .xlsx）",
    "JSON text (rename it to .json)": " JSON 文本（请改名为 .json）",
    "a file that is neither a workbook nor text": "既不是工作簿也不是文本的文件",
    "plain text, probably CSV (rename it to .csv)": "纯文本，可能是 CSV（请改名为 .csv）",
    "{path}: {size} bytes once unzipped; expected at most {limit}": (
        "{path}：解压后 {size} 字节；最多 {limit} 字节"
    ),
    "{path}: the workbook has no sheet": "{path}：工作簿里没有工作表",
    "{path}: more than {limit} rows; expected at most {limit}": "{path}：超过 {limit} 行；最多 {limit} 行",
    "{path}: row {row} has a cell past column {limit}; expected at most {limit} columns": (
        "{path}：第 {row} 行在第 {limit} 列之后还有单元格；最多 {limit} 列"
    ),
    "{path}: {size} bytes; expected a sheet of at most {limit} bytes": (
        "{path}：{size} 字节；价格表最多 {limit} 字节"
    ),
    "{path}: {reason}": "{path}：{reason}",
    "{location}: record {row}: the key {key!r} is given twice; expected each key once (JSON "
    "would keep only the last value)": (
        "{location}：第 {row} 条记录：键 {key!r} 出现了两次；每个键只能出现一次（JSON 只会保留最后一个值）"
    ),
    "{path}: the key {key!r} is given twice in the top-level object; expected each key once "
    "(JSON would keep only the last value)": (
        "{path}：顶层对象中键 {key!r} 出现了两次；每个键只能出现一次（JSON 只会保留最后一个值）"
    ),
    "each key once per object, but this key is given twice (JSON would keep only the last "
    "value)": "每个对象中每个键只出现一次，但这个键出现了两次（JSON 只会保留最后一个值）",
    "{path}: not UTF-8 text, and no known text encoding fits it; save it again as UTF-8 (Excel: "
    "Save As, CSV UTF-8)": (
        "{path}：不是 UTF-8 文本，也不符合任何已知的文本编码；请另存为 UTF-8（Excel：另存为“CSV UTF-8”）"
    ),
    "{path}: not UTF-8 text; it looks like {names}, but the guess is not sure enough to store its "
    "names and regions; save it again as UTF-8 (Excel: Save As, CSV UTF-8)": (
        "{path}：不是 UTF-8 文本；看起来是 {names}，但判断不够确定，不能据此保存其中的名称和区域；"
        "请另存为 UTF-8（Excel：另存为“CSV UTF-8”）"
    ),
    "{path}: not UTF-8 text; it looks like {names}, but byte {byte} is not {names}; save it again "
    "as UTF-8 (Excel: Save As, CSV UTF-8)": (
        "{path}：不是 UTF-8 文本；看起来是 {names}，但第 {byte} 个字节不是 {names}；"
        "请另存为 UTF-8（Excel：另存为“CSV UTF-8”）"
    ),
    "{path}: not UTF-8; read as {encoding} (detected); if names look wrong, save the sheet as "
    "UTF-8": "{path}：不是 UTF-8；已按检测到的 {encoding} 读取；若名称显示有误，请将表格另存为 UTF-8",
    "{path}: XLSX needs openpyxl: pip install 'suanli[xlsx]'": (
        "{path}：读取 XLSX 需要 openpyxl：pip install 'suanli[xlsx]'"
    ),
    "a positive number up to {limit} with at most {places} decimal places": (
        "不超过 {limit}、最多 {places} 位小数的正数"
    ),
    "a billing mode: {names} (or 按量/包日/包周/包月/包年/竞价)": (
        "计费方式：{names}（或 按量/包日/包周/包月/包年/竞价）"
    ),
    "a GPU model known to the registry (did you mean {names}?)": "登记表中已知的 GPU 型号（是否想用 {names}？）",
    "a GPU model known to the registry": "登记表中已知的 GPU 型号",
    "a three-letter ISO 4217 currency code such as CNY or USD": "三个字母的 ISO 4217 货币代码，如 CNY 或 USD",
    "true or false (是/否)": " true 或 false（是/否）",
    "a tax rate between 0 and 1 (e.g. 0.06 or 6%)": "0 到 1 之间的税率（如 0.06 或 6%）",
    "a node network such as ib-400g, roce-200g or eth-25g": "节点网络，如 ib-400g、roce-200g 或 eth-25g",
    "time-of-use rules like '00:00-08:00*0.5; sat-sun*0.8' ({reason})": (
        "形如 '00:00-08:00*0.5; sat-sun*0.8' 的分时规则（{reason}）"
    ),
    "an ISO date or time such as 2026-11-28 or 2026-11-28T10:00+08:00": (
        " ISO 日期或时间，如 2026-11-28 或 2026-11-28T10:00+08:00"
    ),
    "a date between 1990 and 2199": "1990 到 2199 年之间的日期",
    "a provider id whose profile was imported (none imported yet)": "已导入档案的服务商 id（尚未导入任何档案）",
    "a provider id whose profile was imported (known: {names})": "已导入档案的服务商 id（已知：{names}）",
    "text without NUL bytes, unpaired surrogates or nested JSON values": (
        "不含 NUL 字节、孤立代理码位或嵌套 JSON 值的文本"
    ),
    "{what} (the cell is empty)": "{what}（单元格为空）",
    "{what} with a decimal point, such as 3.10 (a comma is read as the decimal mark only when "
    'the sheet declares decimal = ",")': (
        '{what}，用小数点书写，如 3.10（只有价格表声明 decimal = "," 时逗号才作小数点）'
    ),
    "at least one GPU instance": "至少一个 GPU 实例",
    "a price in USD per hour": "每小时美元价格",
    "a positive price in USD per hour": "每小时美元正价格",
    "a GpuInfo dict (Python literal or JSON)": " GpuInfo 字典（Python 字面量或 JSON）",
    "{location}: expected UTF-8 CSV ({reason})": "{location}：应为 UTF-8 CSV（{reason}）",
    "a SkyPilot v8 vms.csv column": " SkyPilot v8 vms.csv 的列",
    "a GPU known to the registry (add an alias to comparator/gpus.py)": (
        "登记表中已知的 GPU（在 comparator/gpus.py 中加别名）"
    ),
}

_IMPORT_ZH: dict[str, str] = {
    "{path}: ignored column(s) no header matches: {names}": "{path}：以下列没有对应的表头，已忽略：{names}",
    "{path}: the sheet has a header but no offers; nothing to import": (
        "{path}：价格表只有表头、没有报价；没有可导入的内容"
    ),
    "importing would remove offers from the current snapshot: {removals}": (
        "导入会删去当前快照中的报价：{removals}"
    ),
    "{file} → {provider}: {before} → {after} offers ({gone} gone)": (
        "{file} → {provider}：{before} → {after} 条报价（{gone} 条将下架）"
    ),
    "a sheet is the provider's whole price list; pass --replace to import it anyway (the "
    "removed offers stay in `suanli history`)": (
        "价格表即服务商的完整报价；确认无误请加 --replace（删去的报价仍可在 `suanli history` 中查到）"
    ),
    "{names}: the database refused a value ({reason}); nothing imported": (
        "{names}：数据库拒收了一个值（{reason}）；未导入任何内容"
    ),
    "COPY stored {copied} offers of {expected}; nothing imported": (
        "COPY 只写入了 {expected} 条报价中的 {copied} 条；未导入任何内容"
    ),
    "the summary found {copied} of {expected} cheapest offers; nothing imported": (
        "汇总只找到了 {expected} 条最低价报价中的 {copied} 条；未导入任何内容"
    ),
    "{path}: cannot read the sheet ({reason})": "{path}：无法读取价格表（{reason}）",
    "{path}: no such file": "{path}：没有这个文件",
    "{sheet}: expected a price sheet (.csv, .xlsx, .json) or a profile (.toml)": (
        "{sheet}：应为价格表（.csv、.xlsx、.json）或档案（.toml）"
    ),
}

_SOURCES_ZH: dict[str, str] = {
    "{where}: {reason} (got {text!r})": "{where}：{reason}（实为 {text!r}）",
    "{where}: {text!r} names a date that never comes (such as 31 11)": (
        "{where}：{text!r} 指向一个永远不会到来的日期（如 31 11）"
    ),
    '{where}: expected "mon 03:00", "daily 03:00" or a crontab line "0 3 * * mon", got {text!r}': (
        '{where}：应为 "mon 03:00"、"daily 03:00" 或 crontab 行 "0 3 * * mon"，实为 {text!r}'
    ),
    # what a key of the sources file expects (comparator.refresh.sources_model)
    "a name without spaces": "不含空格的名称",
    "an http(s) URL": "http(s) 网址",
    "a path or URL": "路径或网址",
    "a number ≥ {minimum:g} (seconds)": "不小于 {minimum:g} 的数（秒）",
    "a list of host names": "主机名列表",
    'a table of text, e.g. { Accept = "text/csv" }': '文本组成的表，如 { Accept = "text/csv" }',
    "the name of an environment variable": "环境变量名",
    'a list of query parameter names, e.g. ["page", "region"]': (
        '查询参数名列表，如 ["page", "region"]'
    ),
    'text like "mon 03:00" or "0 3 * * mon"': '形如 "mon 03:00" 或 "0 3 * * mon" 的文本',
    'exactly one of url = "https://…" or path = "…"': (
        'url = "https://…" 与 path = "…" 必须且只能给一个'
    ),
    "one [[source]] per provider ({provider!r} has one already)": (
        "每个服务商只能有一个 [[source]]（{provider!r} 已有一个）"
    ),
    "at least one [[source]] table": "至少一个 [[source]] 表",
    "provider id the offers belong to": "报价所属服务商的 id",
    "adapter name (sheet, skypilot, http_json)": "适配器名称（'sheet'、'skypilot'、'http_json'）",
    "{where}: unknown key {key!r}; expected one of {allowed}": (
        "{where}：未知键 {key!r}；应为以下之一：{allowed}"
    ),
    "{where}: expected a table": "{where}：应为一个表",
    "{path}: no [[source]] for provider(s) {unknown}; known: {names}": (
        "{path}：没有服务商 {unknown} 的 [[source]]；已知：{names}"
    ),
    "{file}: no such sources file (try --config examples/sources.toml)": (
        "{file}：没有这个来源文件（试试 --config examples/sources.toml）"
    ),
    "{where}: adapter: expected one of {known}, got {name!r}": (
        "{where}：adapter：应为以下之一：{known}，实为 {name!r}"
    ),
    "{where}: parsing took longer than parse_timeout_s = {limit:g} s": (
        "{where}：解析超过了 parse_timeout_s = {limit:g} s"
    ),
    '{where}: expected spot = true|false and a region_countries table of region = "CC"': (
        '{where}：应为 spot = true|false 以及 region = "CC" 组成的 region_countries 表'
    ),
    "{location}: not JSON ({reason})": "{location}：不是 JSON（{reason}）",
    "{location}: records = {records!r}: expected a list of objects there": (
        "{location}：records = {records!r}：该处应为对象列表"
    ),
    "{where}: values: expected tables [source.values.<column>]": (
        "{where}：values：应为 [source.values.<column>] 表"
    ),
    '{where}: records: expected a dotted path such as "data.items"': (
        '{where}：records：应为以点分隔的路径，如 "data.items"'
    ),
    '{where}: {name}: expected a table [source.{name}] of column = "…"': (
        '{where}：{name}：应为 column = "…" 组成的 [source.{name}] 表'
    ),
    "{where}: {table}: unknown column(s) {unknown}; expected price-sheet columns ({columns})": (
        "{where}：{table}：未知列 {unknown}；应为价格表的列（{columns}）"
    ),
    '{where}: provider {provider!r} has no profile; give `profile = "….toml"` in the source or '
    "import one first": (
        '{where}：服务商 {provider!r} 没有档案；在来源中给出 `profile = "….toml"`，或先导入档案'
    ),
    "{where}: the profile is for provider {id!r}, but the source says provider = {provider!r}": (
        "{where}：档案属于服务商 {id!r}，但来源写的是 provider = {provider!r}"
    ),
    "{where}: format: expected one of {names}, got {fmt!r}": (
        "{where}：format：应为以下之一：{names}，实为 {fmt!r}"
    ),
    '{where}: decimal: expected "." or ",", got {value!r}': (
        '{where}：decimal：应为 "." 或 ","，实为 {value!r}'
    ),
}

_FETCH_ZH: dict[str, str] = {
    "already refreshed in period {period} (attempt {attempt}, {status})": (
        "本周期 {period} 已刷新（第 {attempt} 次，{status}）"
    ),
    "being refreshed by {holder} since {since}": "{holder} 自 {since} 起正在刷新",
    "another worker is claiming period {period} at this moment": "另一个进程此刻正在认领周期 {period}",
    "another process claimed period {period} at the same moment": "另一个进程同时认领了周期 {period}",
    "{location}: no complete answer within the {deadline_s:g} s deadline ({attempts} "
    "attempt(s), {body_bytes} body bytes received)": (
        "{location}：在 {deadline_s:g} s 时限内没有完整应答（尝试 {attempts} 次，收到 {body_bytes} 字节）"
    ),
    "{location}: the server sent an empty body (HTTP 200, 0 bytes)": (
        "{location}：服务器返回了空内容（HTTP 200，0 字节）"
    ),
    "{location}: {size} bytes; the limit is {max_bytes} bytes (max_body_mb)": (
        "{location}：{size} 字节；上限为 {max_bytes} 字节（max_body_mb）"
    ),
    "{location}: cannot read the file ({reason})": "{location}：无法读取文件（{reason}）",
    "{location}: the file is empty": "{location}：文件为空",
    "{reason} after {attempts} attempt(s)": "{reason}（尝试 {attempts} 次后）",
    "{url}: {reason} after {attempts} attempt(s) ({body_bytes} body bytes received)": (
        "{url}：尝试 {attempts} 次后 {reason}（收到 {body_bytes} 字节）"
    ),
    "{url}: more than {limit} redirects": "{url}：重定向超过 {limit} 次",
    "{url}: body too large ({what}); the limit is {limit} MiB (max_body_mb)": (
        "{url}：内容过大（{what}）；上限为 {limit} MiB（max_body_mb）"
    ),
    "{url}: body too large ({what}); the limit is {limit} bytes (max_body_mb)": (
        "{url}：内容过大（{what}）；上限为 {limit} 字节（max_body_mb）"
    ),
    "{url}: the server sent Content-Encoding {encoding}, which was not asked for; expected "
    "{accepted} or none": "{url}：服务器发送了未请求的 Content-Encoding {encoding}；应为 {accepted} 或不压缩",
    "{location}: not a regular file; expected a file (a pipe or a device has no end to "
    "limit)": "{location}：不是普通文件；应为文件（管道或设备没有可以限定的结尾）",
    "{url}: HTTP {status} {reason_phrase}; expected 200": (
        "{url}：HTTP {status} {reason_phrase}；应为 200"
    ),
    "{url}: HTTP {status}": "{url}：HTTP {status}",
    "{location}: token_env: the environment variable {token_env} is not set": (
        "{location}：token_env：环境变量 {token_env} 未设置"
    ),
    "Content-Length says {size} bytes": "Content-Length 为 {size} 字节",
    "more than {limit} bytes arrived": "收到超过 {limit} 字节",
    "more than {limit} bytes once decompressed": "解压后超过 {limit} 字节",
    "connect timeout ({detail})": "连接超时（{detail}）",
    "read timeout (no byte within the read timeout) ({detail})": "读取超时（读取时限内没有收到任何字节）（{detail}）",
    "cannot connect ({detail})": "无法连接（{detail}）",
    "connection closed mid-answer ({detail})": "应答中途连接被关闭（{detail}）",
    "connection reset while reading ({detail})": "读取时连接被重置（{detail}）",
    # the refresh slots' transport (providers/h11_transport.py), the detail of the two above
    "Server disconnected without sending a response.": "服务器未发送应答即断开了连接。",
    "the connection is closed": "连接已关闭",
    "{shown}: not an http(s) URL": "{shown}：不是 http(s) 网址",
    "{shown}: from https to plain http": "{shown}：从 https 降到了明文 http",
    "{shown}: another host or port than the source's; list it in redirect_hosts to allow it": (
        "{shown}：主机或端口与来源不同；如要允许，请列入 redirect_hosts"
    ),
    "{shown}: not a public address (loopback, private, link-local, shared, multicast or "
    "reserved)": "{shown}：不是公网地址（回环、私有、链路本地、共享、组播或保留地址）",
}

REFRESH_ZH: dict[str, str] = {**_SHEET_ZH, **_IMPORT_ZH, **_SOURCES_ZH, **_FETCH_ZH}
