"""How the holistic paper counts a configuration: App. A's M, N_a and N (Eq. 10-12, main-text
Eq. 3, through :func:`moelaws.holistic.law.counts_from_weights`) and the Eq. 5 coordinates
M/N_a and N/N_a (its adapter's roles ``convention`` and ``ratios``).
"""

from __future__ import annotations

from moelaws.arch.config import MoEConfig
from moelaws.arch.counting import (
    Counts,
    attention_keys_per_token,
    attention_weights,
    expert_weights,
)
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config
from moelaws.holistic.law import counts_from_weights

CONVENTION = "holistic"
"""The convention's name in :func:`moelaws.conventions.counts` (the paper's id)."""


def holistic_counts(cfg: MoEConfig) -> Counts:
    """Holistic paper, App. A Eq. 10-12 (main-text Eq. 3), by :func:`counts_from_weights`.

    N_a = 2·d·d_qkv·(N_q + N_kv)·L + 3·d·d_d·L_d + L_m·(K·3·d·d_m + 3·d·d_m),
    N = N_a + 3·d·d_m·(N_e − K)·L_m, M = 6·N_a + 6·S·N_q·d_qkv·L (S: sequence length).

    Generalisations: ``n_shared`` shared experts of width ``d_shared`` (the paper has exactly
    one, of width d_m); MLA attention counted by its real projection weights, with
    N_q·d_qkv read as n_heads·(qk head width); S·L read as the keys attended over all layers,
    a sliding-window layer counting its window
    (:func:`~moelaws.arch.counting.attention_keys_per_token`, as the exact count does; the
    paper's models have no such layers).
    """
    attn = attention_weights(cfg, biases=False, norms=False)
    query_width = cfg.n_heads * cfg.attn_head_dim
    if cfg.is_moe:
        shared = cfg.n_shared * expert_weights(cfg, cfg.shared_width, biases=False)
        routed = expert_weights(cfg, cfg.d_expert, biases=False)
        active_experts, idle_experts = cfg.top_k * routed + shared, (
            cfg.n_experts - cfg.top_k) * routed
    else:
        active_experts = idle_experts = 0
    c = counts_from_weights(
        attention=attn, dense_ffn=expert_weights(cfg, cfg.d_ff, biases=False),
        active_experts=active_experts, idle_experts=idle_experts, query_width=query_width,
        L_d=cfg.n_ffn_dense_layers, L_m=cfg.n_moe_layers,
        seq_len=attention_keys_per_token(cfg) / cfg.n_layers)
    attention_flops = 2.0 * cfg.n_layers * attn + 2.0 * attention_keys_per_token(cfg) * query_width
    ffn_flops = 2.0 * (c.N_a - cfg.n_layers * attn)
    return Counts(CONVENTION, c.N, c.N_a, 0.0, attention_flops, ffn_flops, 0.0, c.M)


@accepts_hf_config
def holistic_ratios(cfg: ConfigLike) -> dict[str, float]:
    """Eq. 5 coordinates: M/N_a and N/N_a (App. A counts, :func:`holistic_counts`).

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    c = holistic_counts(cfg)
    return {"M/N_a": c.compute_per_token / c.active, "N/N_a": c.total / c.active}


__all__ = ["CONVENTION", "holistic_counts", "holistic_ratios"]

from moelaws.validation import guard_public  # noqa: E402

guard_public(globals(), __all__)
