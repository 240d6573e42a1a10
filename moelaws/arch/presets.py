"""Published MoE configurations, each with the source it was transcribed from.

The published parameter counts are not stored here: they are the paper/model-card values of
the ``anatomy`` claims (:mod:`moelaws.arch.claims`), which compare them with our counts.
"""

from __future__ import annotations

from moelaws.arch.config import MLA, MoEConfig

_DEEPSEEK_MLA = MLA(
    q_lora_rank=1536, kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128
)

PRESETS: dict[str, MoEConfig] = {
    "DeepSeek-V3": MoEConfig(
        name="DeepSeek-V3",
        n_layers=61,
        n_dense_layers=3,
        d_model=7168,
        n_heads=128,
        n_kv_heads=128,
        mla=_DEEPSEEK_MLA,
        d_ff=18432,
        n_experts=256,
        top_k=8,
        n_shared=1,
        d_expert=2048,
        vocab_size=129280,
        context_length=4096,
        source=(
            "deepseek-ai/DeepSeek-V3 config.json (first_k_dense_replace=3, "
            "moe_intermediate_size=2048); the multi-token-prediction module is not included"
        ),
    ),
    "Kimi-K2": MoEConfig(
        name="Kimi-K2",
        n_layers=61,
        n_dense_layers=1,
        d_model=7168,
        n_heads=64,
        n_kv_heads=64,
        mla=_DEEPSEEK_MLA,
        d_ff=18432,
        n_experts=384,
        top_k=8,
        n_shared=1,
        d_expert=2048,
        vocab_size=163840,
        context_length=4096,
        source="moonshotai/Kimi-K2-Base config.json (first_k_dense_replace=1)",
    ),
    "Qwen3-235B-A22B": MoEConfig(
        name="Qwen3-235B-A22B",
        n_layers=94,
        d_model=4096,
        n_heads=64,
        n_kv_heads=4,
        head_dim=128,
        n_experts=128,
        top_k=8,
        d_expert=1536,
        vocab_size=151936,
        context_length=4096,
        source="Qwen/Qwen3-235B-A22B config.json and model card",
    ),
    "Qwen3-30B-A3B": MoEConfig(
        name="Qwen3-30B-A3B",
        n_layers=48,
        d_model=2048,
        n_heads=32,
        n_kv_heads=4,
        head_dim=128,
        n_experts=128,
        top_k=8,
        d_expert=768,
        vocab_size=151936,
        context_length=4096,
        source="Qwen/Qwen3-30B-A3B config.json and model card",
    ),
    "gpt-oss-120b": MoEConfig(
        name="gpt-oss-120b",
        n_layers=36,
        d_model=2880,
        n_heads=64,
        n_kv_heads=8,
        head_dim=64,
        n_experts=128,
        top_k=4,
        d_expert=2880,
        vocab_size=201088,
        context_length=4096,
        attention_bias=True,
        expert_bias=True,
        sliding_window=128,
        n_sliding_layers=18,
        source="openai/gpt-oss-120b config.json and model card",
    ),
    "gpt-oss-20b": MoEConfig(
        name="gpt-oss-20b",
        n_layers=24,
        d_model=2880,
        n_heads=64,
        n_kv_heads=8,
        head_dim=64,
        n_experts=32,
        top_k=4,
        d_expert=2880,
        vocab_size=201088,
        context_length=4096,
        attention_bias=True,
        expert_bias=True,
        sliding_window=128,
        n_sliding_layers=12,
        source="openai/gpt-oss-20b config.json and model card",
    ),
    "Mixtral-8x7B": MoEConfig(
        name="Mixtral-8x7B",
        n_layers=32,
        d_model=4096,
        n_heads=32,
        n_kv_heads=8,
        n_experts=8,
        top_k=2,
        d_expert=14336,
        vocab_size=32000,
        context_length=4096,
        source="mistralai/Mixtral-8x7B-v0.1 config.json; Jiang et al. (2024)",
    ),
    "OLMoE-1B-7B": MoEConfig(
        name="OLMoE-1B-7B",
        n_layers=16,
        d_model=2048,
        n_heads=16,
        n_kv_heads=16,
        n_experts=64,
        top_k=8,
        d_expert=1024,
        vocab_size=50304,
        context_length=4096,
        source="allenai/OLMoE-1B-7B-0924 config.json; Muennighoff et al. (2024)",
    ),
    "MoE-mini": MoEConfig(
        name="MoE-mini",
        n_layers=20,
        n_dense_layers=1,
        d_model=2048,
        n_heads=16,
        n_kv_heads=4,
        d_ff=5120,
        n_experts=384,
        top_k=12,
        n_shared=1,
        d_expert=384,
        vocab_size=126464,
        context_length=4096,
        source=(
            "Leverage paper, Table 1 (and App. D: vocabulary 126,464, sequence length 4,096). "
            "The number of leading dense layers is not printed; 1 is our inference from "
            "d_ffn = 5120 and the printed total of 17.5B"
        ),
    ),
    "Dense-6.1B": MoEConfig(
        name="Dense-6.1B",
        n_layers=28,
        d_model=4096,
        n_heads=32,
        n_kv_heads=8,
        d_ff=14336,
        vocab_size=126464,
        context_length=4096,
        source="Leverage paper, Table 1 (and App. D: vocabulary 126,464, sequence length 4,096)",
    ),
}


def preset(name: str) -> MoEConfig:
    """A published configuration by name (case-insensitive).

    Raises
    ------
    ValueError
        If no preset has that name.
    """
    for key, cfg in PRESETS.items():
        if key.lower() == name.lower():
            return cfg
    raise ValueError(f"unknown preset {name!r}; choose from {', '.join(PRESETS)}")
