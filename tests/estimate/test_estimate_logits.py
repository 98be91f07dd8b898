"""Logit memory against a published measurement (issue 12: HF holds more than 8 bytes a value).

SOURCE: Unsloth README (https://github.com/unslothai/unsloth), context-length table: Llama 3.1
8B Instruct, 4-bit QLoRA on all linear layers, rank 32, batch 1, sequences padded to the
length; the longest context that fits with Hugging Face + FlashAttention-2 is 5,789 tokens on
24 GB, 12,264 on 40 GB and 28,454 on 80 GB.
"""

from __future__ import annotations

import pytest

from comparator.estimate.estimator import EstimateRequest, estimate

HF_FA2_MAX_CONTEXT = [("RTX4090", 5_789), ("A100-SXM4-40GB", 12_264), ("A100-SXM4-80GB", 28_454)]


def _request(gpu: str, seq_len: int) -> EstimateRequest:
    return EstimateRequest(
        model="Llama-3.1-8B",
        method="qlora",
        lora_rank=32,
        seq_len=seq_len,
        gpu=gpu,
        cards=1,
        micro_batch=1,
        offload_optimizer=False,
        headroom=0.0,
        grad_ckpt=True,  # Hugging Face's gradient checkpointing
        chunked_loss=False,  # Hugging Face's plain cross-entropy
    )


@pytest.mark.parametrize(("gpu", "context"), HF_FA2_MAX_CONTEXT)
def test_the_published_longest_context_fits_and_a_quarter_more_does_not(
    gpu: str, context: int
) -> None:
    assert estimate(_request(gpu, context)).fits
    assert not estimate(_request(gpu, round(context * 1.25))).fits


def test_a_chunked_loss_holds_far_less_of_the_logits() -> None:
    plain = estimate(_request("RTX4090", 8192))
    chunked = estimate(
        EstimateRequest(**{**_request("RTX4090", 8192).__dict__, "chunked_loss": True})
    )
    assert chunked.memory.logits < plain.memory.logits / 4
