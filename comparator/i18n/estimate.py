"""The estimator's words in Chinese: advice, memory parts, notes, rules of thumb and units."""

from __future__ import annotations

ESTIMATE_ADVICE_ZH: dict[str, str] = {
    "grad_ckpt": "开启梯度检查点（完全重计算，约 +33% 计算量）",
    "micro_batch": "micro-batch 降为 1，用梯度累积保持全局 batch",
    "lora": "改用 LoRA 代替全参微调",
    "qlora": "改用 QLoRA（4-bit NF4 基座 + LoRA）",
    "zero3": "ZeRO-3 / FSDP 全分片（权重、梯度、优化器状态）",
    "offload_optimizer": "优化器状态卸载到 CPU 内存（ZeRO-Offload）",
    "flash_attn": "开启 FlashAttention（不保存 s² 注意力分数，且更快）",
    "parallelism": "模型并行：张量并行（节点内）× 流水线并行（跨节点）× 上下文并行 × 数据并行",
    "shorter_seq": "缩短序列长度",
    "more_cards": "增加卡数",
}
#: The memory table of `suanli estimate`: part, zh, en, and its detailed parts.
ESTIMATE_MEMORY_PARTS: tuple[tuple[str, str, str, tuple[tuple[str, str, str], ...]], ...] = (
    (
        "weights",
        "权重",
        "Weights",
        (("base_weights", "基座", "base"), ("adapter_weights", "LoRA 适配器", "LoRA adapters")),
    ),
    ("gradients", "梯度", "Gradients", ()),
    ("optimizer", "优化器状态", "Optimizer states", ()),
    (
        "activations",
        "激活",
        "Activations",
        (("layer_activations", "各层", "layers"), ("logits", "logits", "logits")),
    ),
    (
        "overhead",
        "开销",
        "Overhead",
        (
            ("cuda_context", "CUDA 上下文/框架", "CUDA context/framework"),
            ("zero3_gathered", "ZeRO-3 在途参数", "ZeRO-3 gathered params"),
            ("comm_buckets", "通信桶", "comm buckets"),
            ("dequant_workspace", "QLoRA 反量化缓冲", "QLoRA dequant buffer"),
        ),
    ),
)


ESTIMATE_NOTES_ZH: dict[str, str] = {
    "inferred_shape": "仅给出规模，结构为推断值（Llama 风格）",
    "moe": "MoE：显存按全部专家计，FLOPs 按激活专家计",
    "multi_node": "需要多机：节点间须 RDMA 网络（InfiniBand/RoCE），同一机房，勿跨地域",
    "pcie_only": "该卡无 NVLink，多卡通信走 PCIe，实际 MFU 会低于表中数值",
    "over_provisioned": "显存占用偏低，更小的卡可能就够",
    "no_tokens": "未给出 --tokens（或 --samples/--avg-tokens）：只估显存，时长为 0",
    "low_memory_utilisation": "每卡显存利用率低于 60%：可用更少的卡或更小的卡（见 JSON 的 `suggestion`）",
    "low_compute_utilisation": "每卡算力利用率低于 60%（PCIe 或跨节点通信）：更少的卡更划算",
    "unknown_interconnect": "卡间互联“{text}”无法识别：按该 GPU 型号的默认互联估算",
    "unknown_network": "节点网络“{text}”无法完全识别：按每节点 {gbps:g} Gb/s 估算",
}

RULE_OF_THUMB_ZH: dict[str, str] = {
    "18 bytes per parameter (full fine-tuning)": "每参数 18 字节（全参微调）",
    "20× the parameter count in GB (full fine-tuning)": "显存 GB ≈ 参数量（B）× 20（全参微调）",
    "7B full fine-tuning needs ≥ 70 GB (≈10 bytes per parameter)": "7B 全参微调至少 70 GB（约每参数 10 字节）",
    "LoRA ≈ 1/5 of full fine-tuning (18 bytes per parameter)": "LoRA ≈ 全参微调的 1/5（按每参数 18 字节）",
    "LoRA ≈ 30 % of full fine-tuning (18 bytes per parameter)": "LoRA ≈ 全参微调的 30%（按每参数 18 字节）",
    "6·Ψ·D training FLOPs": "训练 FLOPs ≈ 6·Ψ·D",
    "1.5× safety buffer on card-hours": "卡时留 1.5 倍余量",
}
ESTIMATE_UNITS_ZH: dict[str, str] = {
    "GiB (all cards)": "GiB（所有卡）",
    "FLOPs": "FLOPs",
    "card-hours": "卡时",
}
