"""Chinese of the specific hints: what to write instead of a refused setting, value or file
content, and which command lists the valid values (``hint:`` lines)."""

from __future__ import annotations

HINTS_ZH: dict[str, str] = {
    # estimate settings (flags and [training] keys): comparator/estimate/request_hints.py
    "full trains every weight, lora and qlora train adapters; a stack that cannot train "
    "the method needs another stack (hf trains all three)": (
        "full 训练全部权重，lora 与 qlora 只训练适配器；训练框架不支持该方法时请换一个（hf 三种都支持）"
    ),
    "write bf16 (most cards), fp16, fp32, or fp8 on Ada, Hopper or Blackwell cards": (
        "请写 bf16（多数卡）、fp16、fp32，或在 Ada、Hopper、Blackwell 卡上写 fp8"
    ),
    "write adamw, adamw-8bit or sgd": "请写 adamw、adamw-8bit 或 sgd",
    "write a whole number below the hidden size, such as 8, 16 or 64": (
        "请写小于隐藏维的整数，如 8、16 或 64"
    ),
    "write the tokens per sequence, a whole number such as 2048 or 4096": (
        "请写每条序列的 token 数，整数，如 2048 或 4096"
    ),
    "write sequences per card per step, such as 1 or 4; or leave it out": (
        "请写每卡每步的序列数，如 1 或 4；或不写"
    ),
    "write sequences per optimizer step, such as 256; or leave it out": (
        "请写每个优化器步的序列数，如 256；或不写"
    ),
    "write none, selective, op or full (true is full); `suanli estimate --help` says which "
    "stack offers which": (
        "请写 none、selective、op 或 full（true 即 full）；各训练框架支持哪些见 `suanli estimate --help`"
    ),
    "write true or false, or leave it out (chosen when the logits need it)": (
        "请写 true 或 false，或不写（logits 放不下时自动选用）"
    ),
    "write true or false, or leave it out (offloaded only when nothing else fits)": (
        "请写 true 或 false，或不写（别的办法都放不下时才卸载）"
    ),
    "write 0, 1, 2 or 3, or leave it out: the lowest stage that fits is chosen": (
        "请写 0、1、2 或 3，或不写：自动选放得下的最低阶段"
    ),
    "give at most 16,384 cards, or leave the count out: the estimate finds the fewest "
    "cards that fit": "卡数至多 16,384，或不写卡数：估算会找出放得下的最少卡数",
    "write a fraction of the peak such as 0.4, or leave it out to use the fit": (
        "请写占峰值的比例，如 0.4；或不写，使用拟合值"
    ),
    "write a fraction from 0 to 0.95, such as 0.1 for 10 % kept free": (
        "请写 0 到 0.95 之间的比例，如 0.1 表示留 10% 余量"
    ),
    "write a factor from 0.01 to 100, such as 1.5": "请写 0.01 到 100 之间的系数，如 1.5",
    "write a positive number of passes over the data, such as 3 or 0.5": (
        "请写遍历数据的次数，正数，如 3 或 0.5"
    ),
    "write a count such as 300M, 2B or 1.5e9 (per epoch)": "请写数量，如 300M、2B 或 1.5e9（每轮）",
    "write samples with avg_tokens (--samples 100k --avg-tokens 800), or tokens": (
        "samples 须与 avg_tokens 一起写（--samples 100k --avg-tokens 800），或改写 tokens"
    ),
    "write the offer's string, such as NVLink or PCIe, or leave it out": (
        "请照报价写，如 NVLink 或 PCIe；或不写"
    ),
    "write the offer's string, such as IB 200G or RoCE 100Gbps, or leave it out": (
        "请照报价写，如 IB 200G 或 RoCE 100Gbps；或不写"
    ),
    "write megatron, torchtitan, deepspeed, hf, unsloth, torchtune or other "
    "(aliases: nemo, fsdp2, llama-factory, axolotl)": (
        "请写 megatron、torchtitan、deepspeed、hf、unsloth、torchtune 或 other"
        "（别名：nemo、fsdp2、llama-factory、axolotl）"
    ),
    "pure bf16 needs precision bf16 or fp16; or drop pure_bf16": (
        "纯 bf16 需要 precision 为 bf16 或 fp16；或去掉 pure_bf16"
    ),
    "{value} cards: more than any placement offers; at most {limit:,} (16 "
    "machines of at most 1,024 cards)": (
        "{value} 张卡：超过任何部署能提供的卡数；至多 {limit:,}（16 台、每台至多 1,024 卡）"
    ),
}
