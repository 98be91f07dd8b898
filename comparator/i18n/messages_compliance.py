"""The Chinese of the compliance checks' verdicts (English message id → Chinese; see
:mod:`comparator.i18n.messages`).

A check says its reason as ``check(id, status, Msg("English {param}", param=…), evidence)``;
official terms stay glossed in the English (``公安备案``) as they are written in the rules.
"""

from __future__ import annotations

COMPLIANCE_ZH: dict[str, str] = {
    "no data centre in mainland China; no Chinese telecom licence needed": (
        "无中国大陆机房，无需中国电信业务经营许可证"
    ),
    "MLPS level {level} filing meets level {level2}": "等保 {level} 级备案满足要求（≥{level2}）",
    "MLPS assessed {assessed_on}, within 365 days": "等保测评于 {assessed_on}，一年内有效",
    "{name} valid until {valid_until}": "{name} 有效至 {valid_until}",
    "job requires a data centre in {allowed}; this one is in {where}": (
        "任务要求机房位于 {allowed}，此机房在 {where}"
    ),
    "training data holds personal information and the data centre is outside mainland China "
    "({country}); the job declares no legal basis for exporting it": (
        "训练数据含个人信息，机房在境外（{country}），任务未声明数据出境依据"
    ),
    "prices observed {age_days} days ago": "价格 {age_days} 天内更新",
    "MLPS level 3+ is re-assessed yearly; assessment date not recorded": (
        "等保三级及以上须每年测评，未登记测评日期"
    ),
    "MLPS assessment of {assessed_on} is over 365 days before the job's last day {last_day}": (
        "等保测评日期 {assessed_on} 距任务最后一天 {last_day} 超过 365 天"
    ),
    "job requires {name}; provider has none on file": "任务要求 {name} 认证，服务商未登记",
    "{name} validity not recorded": "{name} 有效期未登记",
    "{name} expires {valid_until}, before the job's last day {last_day}": (
        "{name} 于 {valid_until} 到期，早于任务最后一天 {last_day}"
    ),
    "data centre in {province}": "机房位于{province}",
    "data centre in {city}": "机房位于{city}",
    "personal information stays in mainland China": "个人信息留在中国大陆境内",
    "personal information leaves mainland China for {country} under export basis {export_basis}": (
        "个人信息出境至 {country}，出境依据：{export_basis}"
    ),
    "prices are {age_days} days old (over {freshness_days})": (
        "价格已 {age_days} 天未更新（超过 {freshness_days} 天）"
    ),
    "licence valid until {valid_until}": "许可证有效至 {valid_until}",
    "licence includes category B1 and service B11 (IDC)": "许可证含 B1 类及 B11 互联网数据中心业务",
    "IDC service item: {item}": "IDC 服务项：{item}",
    "annual report two or more years behind (last {last}, due {required}); the licensee may be on "
    "the list of operators in breach (不良名单)": (
        "年报落后两年以上（最近一次为 {last} 年，应为 {required} 年），可能被列入不良名单"
    ),
    "“{number}” is not a telecom business licence number": (
        "“{number}”不是有效的电信业务经营许可证编号"
    ),
    "{number} is a website number under licence {licence_text}, not the licence itself": (
        "{number} 是许可证 {licence_text} 下的网站编号，不是许可证本身"
    ),
    "licence validity not recorded": "许可证有效期未登记",
    "licence expired on {valid_until}": "许可证已于 {valid_until} 过期",
    "licence expires {valid_until}, before the job's last day {last_day}": (
        "许可证于 {valid_until} 到期，早于任务最后一天 {last_day}"
    ),
    "an old-style ICP licence (B25 information service) does not cover IDC (needs B1)": (
        "旧式 ICP 证（B25 信息服务）不含第一类增值电信业务，不能经营 IDC"
    ),
    "licence categories {cats} lack B1; a B2 licence alone does not cover IDC (B11)": (
        "许可证类别 {cats} 不含 B1；仅有 B2 不能经营 IDC（B11）"
    ),
    "licensed services {services} do not include B11 internet data centre": (
        "许可业务 {services} 不含 B11 互联网数据中心业务"
    ),
    "licence excludes 互联网资源协作服务 (Internet resource collaboration services): self-service "
    "cloud instances are not covered": (
        "许可证不含互联网资源协作服务，自助开通的云服务器不在许可范围内"
    ),
    "IDC service item not recorded (taken as including resource collaboration)": (
        "未登记 IDC 服务项（按含互联网资源协作服务处理）"
    ),
    "no licence covers {where}": "没有许可证覆盖 {where}",
    "annual report not recorded ({required} is due)": "未登记年报（应已报送 {required} 年度）",
    "annual report {last} filed": "已报送 {last} 年年报",
    "annual report {required} missing (last filed {last})": (
        "缺少 {required} 年年报（最近一次为 {last} 年）"
    ),
    "licence covers {where}": "许可证覆盖 {where}",
    "USCC well-formed with a correct check digit (registered in {where})": (
        "统一社会信用代码格式与校验位正确（登记地 {where}）"
    ),
    "public-security filing well-formed, code matches its province ({province})": (
        "公安备案格式正确，代码与省份一致（{province}）"
    ),
    "no unified social credit code (USCC) on file": "未登记统一社会信用代码",
    "malformed USCC (expected 18 characters without I, O, Z, S, V)": (
        "统一社会信用代码格式错误（应为 18 位，不含 I/O/Z/S/V）"
    ),
    "USCC check digit wrong: expected {expected_check_digit}, got {check_digit}": (
        "统一社会信用代码校验位错误：应为 {expected_check_digit}，实为 {check_digit}"
    ),
    "recorded as a filing but it is an ICP licence ({province})": (
        "登记为备案，实为 ICP 证（{province}）"
    ),
    "the public-security filing (公安备案) prefix is {province} but the code's first two digits "
    "{value} belong to {shown}": ("公安备案前缀为{province}，但代码前两位 {value} 属于{shown}"),
    "no website ICP filing or ICP licence on file": "未登记网站 ICP 备案或 ICP 证",
    "no 公安备案 (public security filing) on file": "未登记公安备案",
    "job needs MLPS level {level}; provider's filing: {best}": (
        "任务要求等保 {level} 级，服务商备案：{best}"
    ),
    "level {level}": "{level} 级",
    "none": "无",
    "licence expires {valid_until}, {days_left} days after {reference} {last_day} (under "
    "{renewal_days}); renewal should be filed": (
        "许可证 {valid_until} 到期，距{reference} {last_day} 仅 {days_left} 天（不足 "
        "{renewal_days} 天），应已申请续期"
    ),
    "the job's last day": "任务最后一天",
    "today": "今天",
    "no telecom business licence on file (IDC in mainland China needs a B1 licence)": (
        "未登记电信业务经营许可证（在中国大陆提供 IDC 需 B1 许可证）"
    ),
    "{number} is not a usable licence number, so it cannot cover {where}": (
        "{number} 不是可用的许可证编号，无法覆盖 {where}"
    ),
    "{number} is a provincial licence of {province}, valid only there; it does not cover {where}": (
        "{number} 是{province}省级许可证，只在{province}有效，不覆盖 {where}"
    ),
    "the licence covers only some cities of {province} and the data centre's city is not recorded": (
        "许可证在{province}只覆盖部分城市，而机房未登记城市"
    ),
    "licence coverage does not include {where}": "许可证覆盖范围不含 {where}",
    "{kind} well-formed ({province})": "{kind}格式正确（{province}）",
    "{kind} issued in {province}, but the USCC is registered in {home}": (
        "{kind}在{province}，而统一社会信用代码登记地为{home}"
    ),
    "ICP filing": "ICP 备案",
    "ICP licence": "ICP 证",
    "malformed ICP filing number (expected e.g. {example})": "ICP 备案号格式错误（应如 {example}）",
    "malformed 公安备案 number (expected e.g. {example})": "公安备案号格式错误（应如 {example}）",
    "issues {invoice}": "可开具{invoice}",
    "job needs {invoice}; provider issues: {offered}": "任务要求{invoice}，服务商只开具：{offered}",
    "special VAT invoices (专票)": "专票",
    "ordinary VAT invoices (普票)": "普票",
    "{word} invoices": "{word} 发票",
    # the provider's service and company facts, claimed credentials, latency (#24)
    "yes": "是",
    "no": "否",
    "unknown (the profile does not say)": "未说明",
    "not offered": "不提供",
    "own data centre": "自有机房",
    "elastic scaling within a contract": "合约内弹性增减卡",
    "job requires {what}; provider: {reason}": "任务要求{what}，服务商{reason}",
    "{what}: {answer}": "{what}：{answer}",
    "support {hours}, response {minutes}": "技术支持 {hours}，响应 {minutes}",
    "{minutes} min": "{minutes} 分钟",
    "job requires {hours} support": "任务要求 {hours} 支持",
    "job requires a response within {limit} min": "任务要求 {limit} 分钟内响应",
    "{first}; {second}": "{first}，{second}",
    "{problems}; provider: {said}": "{problems}；服务商：{said}",
    "registered capital {capital}; CNNIC member: {cnnic}": "注册资本 {capital}；CNNIC 会员：{cnnic}",
    "hourly refund: {refund}; free maintenance/replacement: {maintenance}; "
    "prepayment: {prepayment}; deposit: {deposit}; SLA: {sla}": (
        "按小时退费：{refund}；免费维护/换机：{maintenance}；预付：{prepayment}；押金：{deposit}；"
        "SLA：{sla}"
    ),
    "claimed, number not given (unverified): {items}": "声称持有 {items}：未给出编号，未核实",
    "licence only claimed ({names}), number not given; no rule that needs a number passes": (
        "许可证仅为声称（{names}），未给出编号，不能满足需要编号的规则"
    ),
    "job requires {name}; provider only claims it, number not given": (
        "任务要求 {name} 认证，服务商仅声称持有，未给出证书编号"
    ),
    "job requires ≤ {limit} ms round trip from {origin}; this data centre's latency "
    "is unknown (no measured figure, no place to estimate from)": (
        "任务要求距{origin}往返延迟 ≤ {limit} ms；此机房延迟未知（未给出实测值，位置无法估算）"
    ),
    "round trip from {origin} {sign}{rtt} ms ({kind})": "距{origin}往返延迟 {sign}{rtt} ms（{kind}）",
    "measured": "实测",
    "approximate": "估算",
    "job requires ≤ {limit} ms; {said}": "任务要求 ≤ {limit} ms；{said}",
    "{said}, ≤ {limit} ms": "{said}，≤ {limit} ms",
}
