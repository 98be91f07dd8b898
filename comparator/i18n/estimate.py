"""The estimator's words in Chinese: the parts of the memory table (its messages are in
:mod:`comparator.i18n.messages_estimate`)."""

from __future__ import annotations

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
