"""The Chinese of ``suanli verify``'s findings (English message id → Chinese; see
:mod:`comparator.i18n.messages`).

A finding is said where it is found, ``say(lang, "{label}: MIG is on, …", label=…)``; a part
of a finding (``", as offered"``) is a message of its own.
"""

from __future__ import annotations

VERIFY_ZH: dict[str, str] = {
    "nvidia-smi lists no GPU": "nvidia-smi 未列出任何 GPU",
    "{found} card(s) found": "找到 {found} 张卡",
    ", as offered": "，与报价一致",
    ", as expected": "，与预期一致",
    "only {found} card(s) found, the offer has {cards}": "只找到 {found} 张卡，报价为 {cards} 张",
    "{found} cards visible, more than the {cards} offered: the machine may be shared": (
        "找到 {found} 张卡，多于报价的 {cards} 张：机器可能与他人共用"
    ),
    "{label}: {name!r} is not in the GPU registry, compare by hand": (
        "{label} 型号 {name!r} 不在卡型库中，请人工核对"
    ),
    "{label}: {name} ({canonical}), but the offer sells {offered}": (
        "{label} 是 {name}（{canonical}），报价卖的是 {offered}"
    ),
    "{label}: MIG is on, you may get a slice": "{label} 开启了 MIG：可能只分到一个切片",
    "{label}: a virtual GPU (vGPU), time-shared": "{label} 是虚拟 GPU（vGPU），与他人分时共享",
    "mixed models: {summary}": "混装了不同型号：{summary}",
    "{label}: no memory total reported": "{label} 未报告显存总量",
    "{label}: unknown model, memory not compared": "{label} 型号未知，无法核对显存",
    "{label}: {gib:.1f} GiB, but {canonical} has {spec_gib:g} GiB ({ratio:.0%})": (
        "{label} 显存 {gib:.1f} GiB，{canonical} 应有 {spec_gib:g} GiB（{ratio:.0%}）"
    ),
    "memory {shown}": "显存 {shown}",
    "{label}: {used} MiB already in use ({share:.0%})": "{label} 已占用 {used} MiB（{share:.0%}）",
    ", by no process you can see (another container?)": "，且看不到占用它的进程（另一容器？）",
    "memory free (at most {most} MiB in use per card)": "显存空闲（每卡占用 ≤ {most} MiB）",
    "processes already on the cards (if not yours, someone else is using them): ": (
        "卡上已有进程（若不是你的，机器被他人占用）："
    ),
    "no process on the cards": "卡上没有进程",
    "{label}: {count} uncorrectable ECC error(s) since the driver loaded": (
        "{label} 本次开机后有 {count} 个不可纠正 ECC 错误"
    ),
    "{label}: row remapping failed": "{label} 行重映射失败",
    "{label}: memory that no repair can fix (nvidia-smi: unrepairable_memory)": (
        "{label} 有无法修复的显存（nvidia-smi：unrepairable_memory）"
    ),
    "{label}: the driver asks for a recovery before use: {action}": (
        "{label} 驱动要求先恢复才能使用：{action}"
    ),
    "{label}: SRAM errors past the threshold for field diagnostics": (
        "{label} SRAM 错误已超过现场诊断阈值"
    ),
    "{label}: a TPC or memory-channel repair is pending, reset the GPU": (
        "{label} 有待生效的 TPC 或显存通道修复：需重置 GPU"
    ),
    "{label}: {count} uncorrectable ECC error(s) on record": (
        "{label} 历史上有 {count} 个不可纠正 ECC 错误"
    ),
    "{label}: correctable ECC errors ({volatile} volatile, {aggregate} aggregate)": (
        "{label} 有可纠正 ECC 错误（本次 {volatile}，累计 {aggregate}）"
    ),
    "{label}: a row remap is pending, reset the GPU": "{label} 有待生效的行重映射：需重置 GPU",
    "{label}: a page retirement is pending, reset the GPU": "{label} 有待退役的显存页：需重置 GPU",
    "{label}: {count} retired memory page(s)": "{label} 已退役 {count} 个显存页",
    "{label}: ECC is disabled, errors go uncounted": "{label} 关闭了 ECC，错误无法计数",
    "no ECC errors, remapped rows or retired pages": "没有 ECC 错误、重映射或退役页",
    " ({cards}: no ECC support)": "（{cards} 不支持 ECC）",
    "{label}: PCIe link runs at x{current} of x{max}": (
        "{label} PCIe 链路降为 x{current}（应为 x{max}）"
    ),
    "{label}: PCIe gen {host} slot, the card does gen {device}": (
        "{label} 插槽仅支持 PCIe {host}.0，卡支持 {device}.0"
    ),
    "PCIe links at full width ({widths})": "PCIe 链路完整（{widths}）",
    "; {cards} run a lower PCIe generation, normal when idle": (
        "；{cards} 空闲时降低了 PCIe 代数，属正常"
    ),
    "not reported": "未报告",
    "one card: no NVLink needed": "单卡，无需 NVLink",
    "{label}: NVSwitch fabric not ready ({state}/{status})": (
        "{label} 的 NVSwitch fabric 未就绪（{state}/{status}）"
    ),
    "the offer promises NVLink but there is no `nvidia-smi topo -m` output to check (pass --topo "
    "FILE)": ("报价承诺 NVLink，但没有 `nvidia-smi topo -m` 输出可核对（用 --topo FILE 提供）"),
    "the offer promises NVLink; the GPUs are joined over PCIe only ({links})": (
        "报价承诺 NVLink，但卡间只有 PCIe 连接（{links}）"
    ),
    "GPU pairs without NVLink: {pairs}": "以下卡对之间没有 NVLink：{pairs}",
    "no topology given, not checked": "未提供拓扑，未检查",
    "{label}: clocks held down now by {reasons}": "{label} 正在降频：{reasons}",
    "{label}: {seconds} s of hardware slowdown since the driver loaded": (
        "{label} 自驱动加载以来硬件降频 {seconds} 秒"
    ),
    "no thermal or power slowdown of the clocks, no power cap": "没有因温度或供电降频，功耗未受限",
    "{label}: power limited to {limit} W of the board's {default} W": (
        "{label} 功耗上限被设为 {limit} W（默认 {default} W）"
    ),
    "`nvidia-smi topo -m` could not be read: {reason}": "无法读取 `nvidia-smi topo -m`：{reason}",
    "GPU links: {links}": "卡间连接：{links}",
    "driver {driver}, CUDA {cuda}; persistence mode on {enabled}/{cards} cards": (
        "驱动 {driver}，CUDA {cuda}；{enabled}/{cards} 张卡开启持久模式"
    ),
    "; … and {count} more": "；另有 {count} 项",
    "{what}: {values}, spec {spec}": "{what}：{values}，规格 {spec}",
    "{what} {value}, only {ratio:.0%} of the spec {spec}": "{what} {value}，只有规格 {spec} 的 {ratio:.0%}",
    "all-reduce bus bandwidth across {count} machines ({collective})": (
        "{count} 台机器间 all-reduce 总线带宽（{collective}）"
    ),
    "inter-node all-reduce failed: {error}": "机器间 all-reduce 失败：{error}",
    "{what}: the sums came out wrong; the network or the software is broken": (
        "{what}：求和结果不对，网络或程序有误"
    ),
    "{label}: {what} {value}, only {ratio:.0%} of the spec {spec}": (
        "{label} {what} {value}，只有规格 {spec} 的 {ratio:.0%}"
    ),
    "{label}: measurement failed: {error}": "{label} 测量失败：{error}",
    "{what}: {values} (no registry spec to compare)": "{what}：{values}（卡型库无规格可比）",
    "bf16 matmul": "BF16 矩阵乘",
    "memory bandwidth": "显存带宽",
    "NCCL all-reduce bus bandwidth": "NCCL all-reduce 总线带宽",
    "not measured (run on the rented machine with --measure)": (
        "未测量（在租用的机器上加 --measure 运行）"
    ),
    "not measured: PyTorch is not installed (pip install torch, then retry with --measure)": (
        "未测量：没有安装 PyTorch（pip install torch 后加 --measure 重试）"
    ),
    "not measured: PyTorch sees no CUDA device (no GPU, or the driver is unavailable)": (
        "未测量：PyTorch 看不到 CUDA 设备（没有 GPU 或驱动不可用）"
    ),
    "measured on {count} card(s)": "已在 {count} 张卡上测量",
}
