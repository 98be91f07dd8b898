"""What to write instead of a refused estimate setting: one hint per setting (a flag of
``suanli estimate`` or a key of a job file's ``[training]``), shown after the ``error:``."""

from __future__ import annotations

from comparator.errors import Msg

#: what to write instead, per setting (flag or [training] key) of a request
FIELD_HINTS: dict[str, Msg] = {
    "model": Msg(
        "`suanli estimate --list-models` lists the built-in models; a size such as 7B or a "
        "Hugging Face config.json works too"
    ),
    "method": Msg(
        "full trains every weight, lora and qlora train adapters; a stack that cannot train "
        "the method needs another stack (hf trains all three)"
    ),
    "precision": Msg(
        "write bf16 (most cards), fp16, fp32, or fp8 on Ada, Hopper or Blackwell cards"
    ),
    "optimizer": Msg("write adamw, adamw-8bit or sgd"),
    "lora_rank": Msg("write a whole number below the hidden size, such as 8, 16 or 64"),
    "seq_len": Msg("write the tokens per sequence, a whole number such as 2048 or 4096"),
    "micro_batch": Msg("write sequences per card per step, such as 1 or 4; or leave it out"),
    "global_batch": Msg("write sequences per optimizer step, such as 256; or leave it out"),
    "grad_ckpt": Msg(
        "write none, selective, op or full (true is full); `suanli estimate --help` says which "
        "stack offers which"
    ),
    "chunked_loss": Msg("write true or false, or leave it out (chosen when the logits need it)"),
    "offload_optimizer": Msg(
        "write true or false, or leave it out (offloaded only when nothing else fits)"
    ),
    "zero": Msg("write 0, 1, 2 or 3, or leave it out: the lowest stage that fits is chosen"),
    "cards": Msg(
        "give at most 16,384 cards, or leave the count out: the estimate finds the fewest "
        "cards that fit"
    ),
    "mfu": Msg("write a fraction of the peak such as 0.4, or leave it out to use the fit"),
    "headroom": Msg("write a fraction from 0 to 0.95, such as 0.1 for 10 % kept free"),
    "safety_factor": Msg("write a factor from 0.01 to 100, such as 1.5"),
    "epochs": Msg("write a positive number of passes over the data, such as 3 or 0.5"),
    "tokens": Msg("write a count such as 300M, 2B or 1.5e9 (per epoch)"),
    "samples": Msg("write samples with avg_tokens (--samples 100k --avg-tokens 800), or tokens"),
    "avg_tokens": Msg("write samples with avg_tokens (--samples 100k --avg-tokens 800), or tokens"),
    "interconnect": Msg("write the offer's string, such as NVLink or PCIe, or leave it out"),
    "network": Msg("write the offer's string, such as IB 200G or RoCE 100Gbps, or leave it out"),
    "stack": Msg(
        "write megatron, torchtitan, deepspeed, hf, unsloth, torchtune or other "
        "(aliases: nemo, fsdp2, llama-factory, axolotl)"
    ),
    "pure_bf16": Msg("pure bf16 needs precision bf16 or fp16; or drop pure_bf16"),
}
