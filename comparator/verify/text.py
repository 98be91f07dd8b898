"""The messages of ``suanli verify`` in Chinese (default) and English: one table, one lookup.

``say(lang, key, **values)`` formats the template; a missing key is a bug (``KeyError``).
"""

from __future__ import annotations

from comparator.i18n import is_en

# key: (zh, en)
MESSAGES: dict[str, tuple[str, str]] = {
    # gpu_count
    "no_gpu": ("nvidia-smi 未列出任何 GPU", "nvidia-smi lists no GPU"),
    "cards_found": ("找到 {found} 张卡", "{found} card(s) found"),
    "as_offered": ("，与报价一致", ", as offered"),
    "as_expected": ("，与预期一致", ", as expected"),
    "too_few_cards": (
        "只找到 {found} 张卡，报价为 {cards} 张",
        "only {found} card(s) found, the offer has {cards}",
    ),
    "too_many_cards": (
        "找到 {found} 张卡，多于报价的 {cards} 张：机器可能与他人共用",
        "{found} cards visible, more than the {cards} offered: the machine may be shared",
    ),
    # gpu_model
    "unknown_model": (
        "{label} 型号 {name!r} 不在卡型库中，请人工核对",
        "{label}: {name!r} is not in the GPU registry, compare by hand",
    ),
    "wrong_model": (
        "{label} 是 {name}（{canonical}），报价卖的是 {offered}",
        "{label}: {name} ({canonical}), but the offer sells {offered}",
    ),
    "mig_on": ("{label} 开启了 MIG：可能只分到一个切片", "{label}: MIG is on, you may get a slice"),
    "vgpu": (
        "{label} 是虚拟 GPU（vGPU），与他人分时共享",
        "{label}: a virtual GPU (vGPU), time-shared",
    ),
    "mixed_models": ("混装了不同型号：{summary}", "mixed models: {summary}"),
    # memory_total
    "no_memory_total": ("{label} 未报告显存总量", "{label}: no memory total reported"),
    "memory_not_compared": (
        "{label} 型号未知，无法核对显存",
        "{label}: unknown model, memory not compared",
    ),
    "memory_short": (
        "{label} 显存 {gib:.1f} GiB，{canonical} 应有 {spec_gib:g} GiB（{ratio:.0%}）",
        "{label}: {gib:.1f} GiB, but {canonical} has {spec_gib:g} GiB ({ratio:.0%})",
    ),
    "memory_ok": ("显存 {shown}", "memory {shown}"),
    # memory_in_use
    "memory_used": (
        "{label} 已占用 {used} MiB（{share:.0%}）",
        "{label}: {used} MiB already in use ({share:.0%})",
    ),
    "memory_used_unseen": (
        "，且看不到占用它的进程（另一容器？）",
        ", by no process you can see (another container?)",
    ),
    "memory_free": (
        "显存空闲（每卡占用 ≤ {most} MiB）",
        "memory free (at most {most} MiB in use per card)",
    ),
    # processes
    "processes_lead": (
        "卡上已有进程（若不是你的，机器被他人占用）：",
        "processes already on the cards (if not yours, someone else is using them): ",
    ),
    "no_process": ("卡上没有进程", "no process on the cards"),
    # ecc
    "ecc_volatile_unc": (
        "{label} 本次开机后有 {count} 个不可纠正 ECC 错误",
        "{label}: {count} uncorrectable ECC error(s) since the driver loaded",
    ),
    "remap_failure": ("{label} 行重映射失败", "{label}: row remapping failed"),
    "ecc_aggregate_unc": (
        "{label} 历史上有 {count} 个不可纠正 ECC 错误",
        "{label}: {count} uncorrectable ECC error(s) on record",
    ),
    "ecc_correctable": (
        "{label} 有可纠正 ECC 错误（本次 {volatile}，累计 {aggregate}）",
        "{label}: correctable ECC errors ({volatile} volatile, {aggregate} aggregate)",
    ),
    "remap_pending": (
        "{label} 有待生效的行重映射：需重置 GPU",
        "{label}: a row remap is pending, reset the GPU",
    ),
    "retirement_pending": (
        "{label} 有待退役的显存页：需重置 GPU",
        "{label}: a page retirement is pending, reset the GPU",
    ),
    "retired_pages": (
        "{label} 已退役 {count} 个显存页",
        "{label}: {count} retired memory page(s)",
    ),
    "ecc_disabled": (
        "{label} 关闭了 ECC，错误无法计数",
        "{label}: ECC is disabled, errors go uncounted",
    ),
    "ecc_ok": ("没有 ECC 错误、重映射或退役页", "no ECC errors, remapped rows or retired pages"),
    "ecc_unsupported": ("（{cards} 不支持 ECC）", " ({cards}: no ECC support)"),
    # pcie_link
    "pcie_narrow": (
        "{label} PCIe 链路降为 x{current}（应为 x{max}）",
        "{label}: PCIe link runs at x{current} of x{max}",
    ),
    "pcie_old_slot": (
        "{label} 插槽仅支持 PCIe {host}.0，卡支持 {device}.0",
        "{label}: PCIe gen {host} slot, the card does gen {device}",
    ),
    "pcie_ok": ("PCIe 链路完整（{widths}）", "PCIe links at full width ({widths})"),
    "pcie_idle": (
        "；{cards} 空闲时降低了 PCIe 代数，属正常",
        "; {cards} run a lower PCIe generation, normal when idle",
    ),
    "not_reported": ("未报告", "not reported"),
    # nvlink
    "single_card": ("单卡，无需 NVLink", "one card: no NVLink needed"),
    "fabric_not_ready": (
        "{label} 的 NVSwitch fabric 未就绪（{state}/{status}）",
        "{label}: NVSwitch fabric not ready ({state}/{status})",
    ),
    "nvlink_unchecked": (
        "报价承诺 NVLink，但没有 `nvidia-smi topo -m` 输出可核对（用 --topo FILE 提供）",
        "the offer promises NVLink but there is no `nvidia-smi topo -m` output to check "
        "(pass --topo FILE)",
    ),
    "nvlink_none": (
        "报价承诺 NVLink，但卡间只有 PCIe 连接（{links}）",
        "the offer promises NVLink; the GPUs are joined over PCIe only ({links})",
    ),
    "nvlink_partial": ("以下卡对之间没有 NVLink：{pairs}", "GPU pairs without NVLink: {pairs}"),
    "no_topology": ("未提供拓扑，未检查", "no topology given, not checked"),
    "links": ("卡间连接：{links}", "GPU links: {links}"),
    # driver
    "driver": (
        "驱动 {driver}，CUDA {cuda}；{enabled}/{cards} 张卡开启持久模式",
        "driver {driver}, CUDA {cuda}; persistence mode on {enabled}/{cards} cards",
    ),
    # measurements
    "more": ("；另有 {count} 项", "; … and {count} more"),
    "measured_ok": ("{what}：{values}，规格 {spec}", "{what}: {values}, spec {spec}"),
    "measured_low": (
        "{label} {what} {value}，只有规格 {spec} 的 {ratio:.0%}",
        "{label}: {what} {value}, only {ratio:.0%} of the spec {spec}",
    ),
    "measure_failed": ("{label} 测量失败：{error}", "{label}: measurement failed: {error}"),
    "no_spec": (
        "{what}：{values}（卡型库无规格可比）",
        "{what}: {values} (no registry spec to compare)",
    ),
    "bf16_tflops": ("BF16 矩阵乘", "bf16 matmul"),
    "memory_bandwidth": ("显存带宽", "memory bandwidth"),
    "allreduce": ("NCCL all-reduce 总线带宽", "NCCL all-reduce bus bandwidth"),
    "skip_not_requested": (
        "未测量（在租用的机器上加 --measure 运行）",
        "not measured (run on the rented machine with --measure)",
    ),
    "skip_no_torch": (
        "未测量：没有安装 PyTorch（pip install torch 后加 --measure 重试）",
        "not measured: PyTorch is not installed (pip install torch, then retry with --measure)",
    ),
    "skip_no_cuda": (
        "未测量：PyTorch 看不到 CUDA 设备（没有 GPU 或驱动不可用）",
        "not measured: PyTorch sees no CUDA device (no GPU, or the driver is unavailable)",
    ),
    "measured": ("已在 {count} 张卡上测量", "measured on {count} card(s)"),
    # inter-node all-reduce (verify --nodes)
    "nodes_allreduce": (
        "{count} 台机器间 all-reduce 总线带宽（{collective}）",
        "all-reduce bus bandwidth across {count} machines ({collective})",
    ),
    "nodes_failed": ("机器间 all-reduce 失败：{error}", "inter-node all-reduce failed: {error}"),
    "nodes_wrong_sum": (
        "{what}：求和结果不对，网络或程序有误",
        "{what}: the sums came out wrong; the network or the software is broken",
    ),
}


def say(lang: str, key: str, **values: object) -> str:
    """The message ``key`` in ``lang`` (``zh`` or ``en``) with ``values`` filled in."""
    zh, en = MESSAGES[key]
    return (en if is_en(lang) else zh).format(**values)
