"""Report and CLI labels of the provider's facts, network latency and the bill's gaps (issue
24), in Chinese (``zh-CN``) and English; merged into :data:`comparator.i18n.labels.LABELS`."""

from __future__ import annotations

# key: (zh-CN, en)
FACT_LABELS: dict[str, tuple[str, str]] = {
    "service_facts": ("服务与公司情况", "Service and company facts"),
    "claimed_no_number": ("声称，未给出编号", "claimed, number not given"),
    "compliance_verdict": ("合规", "Compliance"),
    "cheapest_fail_hint": (
        "最便宜的报价未通过默认合规检查（✗）；加 --compliant 只列合规报价，原因见合规检查命令",
        "the cheapest offers fail the default compliance checks (✗); use --compliant to list "
        "compliant offers only, suanli check for the reasons",
    ),
    "no_data_note": (
        "未包含存储、上传与外网流量费用：请在任务中添加 [data]",
        "storage, upload and egress not included: add `[data]`",
    ),
    "free_trial_line": ("免费试用", "free trial"),
    "latency": ("网络延迟", "Latency"),
    "measured": ("实测", "measured"),
    "approximate": ("估算", "approximate"),
    "upload_time": ("上传时间", "upload time"),
    "own_datacenter": ("自有机房", "own data centre"),
    "elastic_scaling": ("合约内弹性增减卡", "elastic scaling"),
    "max_support_response_minutes": ("支持响应上限（分钟）", "max support response (min)"),
    "max_latency_ms": ("往返延迟上限（ms）", "max round trip (ms)"),
    "latency_from": ("延迟测自", "latency from"),
    "licences": ("许可证", "Licences"),
    "support_hours": ("技术支持", "support"),
    "nodes_running": (
        "正在测量机器间全归约带宽…",
        "Measuring all-reduce bandwidth across machines…",
    ),
}
