"""Chinese of the estimator's messages: why each memory saver was chosen, the strategy line,
the alternatives when a job does not fit, the notes, the rules of thumb and the assumptions
(``suanli estimate``'s text and the ``<key>_msg``/``<key>_text`` pairs of its ``--json``)."""

from __future__ import annotations

ESTIMATE_ZH: dict[str, str] = {
    "{size} (inferred shape)": "{size}（推断结构）",
    # memory savers (memory_choices[].reason)
    "fits without recomputation: no extra compute": "不重计算也放得下：无额外计算",
    "attention scores do not fit without FlashAttention: recompute them "
    "(selective recomputation, Korthikanti et al. 2022)": (
        "不用 FlashAttention 时注意力分数放不下：重算注意力分数（选择性重计算，Korthikanti 等 2022）"
    ),
    "activations do not fit: keep the attention output and every other matmul output, "
    "recompute the rest (op-level selective checkpointing, torchtitan)": (
        "激活放不下：保留注意力输出和每隔一个矩阵乘的输出，其余重算（算子级选择性检查点，torchtitan）"
    ),
    "activations do not fit: keep only each layer's input and recompute the rest "
    "(full recomputation / gradient checkpointing)": (
        "激活放不下：只保留每层的输入，其余重算（完全重计算 / 梯度检查点）"
    ),
    "the full logits fit: plain cross-entropy": "完整 logits 放得下：普通交叉熵",
    "the logits do not fit at once: chunked cross-entropy (8 chunks)": (
        "logits 无法一次放下：分块交叉熵（8 块）"
    ),
    "the optimizer states fit on the cards": "优化器状态放得进显存",
    "nothing else fits the cards: optimizer states offloaded to CPU memory "
    "(ZeRO-Offload; needs about {host_gib:.0f} GiB host RAM per node)": (
        "其他办法都放不下：优化器状态卸载到 CPU 内存（ZeRO-Offload；每台约需 {host_gib:.0f} GiB 主机内存）"
    ),
    "the smallest power-of-two micro-batch past which a larger one saves no time "
    "(roofline of the matmuls, gradient traffic between nodes): {tokens} tokens per card "
    "per step; a larger one would only hold memory": (
        "再加大也不省时间的最小 2 的幂微批（按矩阵乘的 roofline 与节点间梯度通信）：每卡每步 "
        "{tokens} 个 token；更大只会多占显存"
    ),
    "the largest power-of-two micro-batch that fits the placement ({tokens} tokens "
    "per card per step)": "该部署放得下的最大 2 的幂微批（每卡每步 {tokens} 个 token）",
    "the largest power-of-two micro-batch considered, up to {cap} ({tokens} tokens "
    "per card per step)": "考虑范围内最大的 2 的幂微批，至多 {cap}（每卡每步 {tokens} 个 token）",
    "{reason}; {steps}× gradient accumulation keeps the global batch {global_batch}": (
        "{reason}；{steps} 步梯度累积保持全局批 {global_batch}"
    ),
    "set by the user": "由用户指定",
    # the strategy line
    "data parallel over {cards} cards, ZeRO-{zero}": "{cards} 卡数据并行，ZeRO-{zero}",
    "data parallel over {cards} cards, DDP (no sharding)": "{cards} 卡数据并行，DDP（不分片）",
    "{strategy}, optimizer states offloaded to CPU": "{strategy}，优化器状态卸载到 CPU",
    "{strategy}, {nodes} nodes × {per_node} cards (needs RDMA: IB/RoCE)": (
        "{strategy}，{nodes} 台 × {per_node} 卡（需 RDMA：IB/RoCE）"
    ),
    "fits with data parallelism ({strategy})": "数据并行即可放下（{strategy}）",
    "data parallelism alone cannot hold the activations or model states per card": (
        "仅靠数据并行，每卡放不下激活或模型状态"
    ),
    # alternatives when a job does not fit (advice[].description)
    "turn on gradient checkpointing (full recomputation, ≈ +33 % compute)": (
        "开启梯度检查点（完全重计算，约 +33% 计算量）"
    ),
    "micro-batch 1 with {steps}× gradient accumulation (same global batch)": (
        "微批降为 1，{steps} 步梯度累积（全局批不变）"
    ),
    "turn on FlashAttention (no s² attention scores kept, and faster)": (
        "开启 FlashAttention（不保存 s² 注意力分数，且更快）"
    ),
    "LoRA instead of full fine-tuning": "改用 LoRA 代替全参微调",
    "QLoRA: 4-bit NF4 base with LoRA adapters": "改用 QLoRA（4-bit NF4 基座 + LoRA 适配器）",
    "ZeRO-3 / FSDP full sharding of weights, gradients and optimizer states": (
        "ZeRO-3 / FSDP 全分片（权重、梯度、优化器状态）"
    ),
    "offload optimizer states to CPU memory (ZeRO-Offload; needs "
    "≈{host_gib:.0f} GiB host RAM, ≈{factor:g}× time)": (
        "优化器状态卸载到 CPU 内存（ZeRO-Offload；约需 {host_gib:.0f} GiB 主机内存，耗时约 {factor:g} 倍）"
    ),
    "shorter sequences: {seq_len} tokens instead of {given}": (
        "缩短序列：{seq_len} 个 token（原为 {given}）"
    ),
    "{cards} cards instead of {given}": "增加到 {cards} 卡（原为 {given}）",
    "model parallelism: {layout} (sequence parallel; communication ×{factor:.2f})": (
        "模型并行：{layout}（序列并行；通信 ×{factor:.2f}）"
    ),
    "model parallelism: {layout} (sequence parallel off; communication ×{factor:.2f})": (
        "模型并行：{layout}（不用序列并行；通信 ×{factor:.2f}）"
    ),
    "needs {total_gib:.1f} GiB per card on {cards} card(s) with ZeRO-{zero}, but only "
    "{usable_gib:.1f} GiB is usable ({memory_gib:g} GiB minus {headroom:.0%} headroom); "
    "the largest part is {part} ({part_gib:.1f} GiB)": (
        "放不下：{cards} 卡 ZeRO-{zero} 时每卡需 {total_gib:.1f} GiB，可用仅 {usable_gib:.1f} "
        "GiB（{memory_gib:g} GiB 留 {headroom:.0%} 余量）；最大的一项是{part}（{part_gib:.1f} GiB）"
    ),
    "largest part\x04weights": "权重",
    "largest part\x04gradients": "梯度",
    "largest part\x04optimizer": "优化器状态",
    "largest part\x04activations": "激活",
    "largest part\x04overhead": "开销",
    # notes
    "shape inferred from a bare size: {layers} layers, hidden {hidden}, "
    "{heads} heads, vocab {vocab}": (
        "仅给出规模，结构为推断值（Llama 风格）：{layers} 层，隐藏维 {hidden}，{heads} 个注意力头，"
        "词表 {vocab}"
    ),
    "Hugging Face's {family} code has no SDPA or FlashAttention: every layer keeps its "
    "attention scores (heads × sequence² per micro-batch), whatever flash_attn says": (
        "Hugging Face 的 {family} 实现没有 SDPA 或 FlashAttention：每层都保留注意力分数"
        "（每个微批次 注意力头数 × 序列长度²），与 flash_attn 的设置无关"
    ),
    "Hugging Face's {family} code has no SDPA: it uses FlashAttention only when the run "
    'asks for attn_implementation="flash_attention_2" (the flash-attn package); '
    "otherwise every layer keeps its attention scores: --no-flash-attn (flash_attn = "
    "false) counts them": (
        "Hugging Face 的 {family} 实现没有 SDPA：只有运行时指定 "
        'attn_implementation="flash_attention_2"（需安装 flash-attn 包）才用 FlashAttention；'
        "否则每层都保留注意力分数：用 --no-flash-attn（flash_attn = false）即可计入"
    ),
    "mixture of experts: memory counts all {experts} experts, FLOPs the "
    "{active_experts} active ones": (
        "MoE：显存按全部 {experts} 个专家计，FLOPs 按激活的 {active_experts} 个专家计"
    ),
    "{nodes} nodes: needs an RDMA network (InfiniBand or RoCE) between them, "
    "in one data centre, not across regions": (
        "{nodes} 台机器：节点间须 RDMA 网络（InfiniBand/RoCE），同一机房，勿跨地域"
    ),
    "{gpu} has no NVLink: multi-card training communicates over PCIe; expect "
    "a lower MFU than the table's": ("{gpu} 无 NVLink，多卡通信走 PCIe，实际 MFU 会低于表中数值"),
    "uses {share:.0%} of the card's memory: a smaller card may do": (
        "只用了卡上 {share:.0%} 的显存，更小的卡可能就够"
    ),
    "interconnect '{text}' not understood: assumed the GPU registry's ({link})": (
        "卡间互联“{text}”无法识别：按该 GPU 型号的默认互联（{link}）估算"
    ),
    "network '{text}' not fully understood: assumed {kind} {gbps:g} Gb/s per node": (
        "节点网络“{text}”无法完全识别：按每节点 {kind} {gbps:g} Gb/s 估算"
    ),
    "network\x04unknown": "未知类型",
    "no --tokens (or --samples/--avg-tokens) given: memory only, hours are 0": (
        "未给出 --tokens（或 --samples/--avg-tokens）：只估显存，时长为 0"
    ),
    "uses {share:.0%} of the rented memory per card (below 60 %)": (
        "每卡只用了租用显存的 {share:.0%}（低于 60%）"
    ),
    "{note}; {cards} × {gpu} would hold it ({card_hours:,.1f} card-hours)": (
        "{note}；{cards} × {gpu} 即可放下（{card_hours:,.1f} 卡时）"
    ),
    "each card runs at {share:.0%} of one card's throughput on this placement "
    "(below 60 %: PCIe-only or multi-node communication)": (
        "此部署下每卡只跑出单卡吞吐的 {share:.0%}（低于 60%：PCIe 或跨节点通信）"
    ),
    "{note}; {cards} cards would take {card_hours:,.1f} card-hours": (
        "{note}；{cards} 卡只需 {card_hours:,.1f} 卡时"
    ),
    # rules of thumb and their units
    "18 bytes per parameter (full fine-tuning)": "每参数 18 字节（全参微调）",
    "20× the parameter count in GB (full fine-tuning)": "显存 GB ≈ 参数量（B）× 20（全参微调）",
    "7B full fine-tuning needs ≥ 70 GB (≈10 bytes per parameter)": (
        "7B 全参微调至少 70 GB（约每参数 10 字节）"
    ),
    "LoRA ≈ 1/5 of full fine-tuning (18 bytes per parameter)": (
        "LoRA ≈ 全参微调的 1/5（按每参数 18 字节）"
    ),
    "LoRA ≈ 30 % of full fine-tuning (18 bytes per parameter)": (
        "LoRA ≈ 全参微调的 30%（按每参数 18 字节）"
    ),
    "6·Ψ·D training FLOPs": "训练 FLOPs ≈ 6·Ψ·D",
    "1.5× safety buffer on card-hours": "卡时留 1.5 倍余量",
    "GiB (all cards)": "GiB（所有卡）",
    "FLOPs": "FLOPs",
    # the name of the `other` stack (the others are proper names, shown as written)
    "in-house 3D-parallel code (published pre-training runs: Meta, DeepSeek, OPT, "
    "nanoGPT, llm.c, nanotron)": (
        "自研 3D 并行代码（公开预训练：Meta、DeepSeek、OPT、nanoGPT、llm.c、nanotron）"
    ),
    # assumptions
    "Korthikanti et al. 2022 per layer, adapted to GQA/SwiGLU; dropout off": (
        "按 Korthikanti 等 2022 逐层计，已适配 GQA/SwiGLU；不开 dropout"
    ),
    "6·Ψ·D (8 with recomputation), LoRA 4·Ψ·D (6), + 12·L·q·s per token": (
        "6·Ψ·D（重计算时 8），LoRA 4·Ψ·D（6），另加每 token 12·L·q·s"
    ),
}
