"""The derived ratios each paper uses. The same symbol means different things across papers.

=================  =====================================  =====================================
paper              symbol                                 definition (this module)
=================  =====================================  =====================================
leverage           A (activation ratio)                   (E_a + E_s) / (E + E_s)
leverage           G (granularity)                        2·d_model / d_expert
leverage           S (sharing ratio)                      E_s / (E_a + E_s)
comprehensive      G (granularity)                        n_k + n_s (activated experts)
comprehensive      S (shared ratio)                       n_s / G
constrained        g (granularity)                        d / d_exp
constrained        s (sparsity)                           n_exp / n_topk
allocation         S (sparsity)                           (E − E_act) / E, shared included
holistic           S (sequence length), M/N_a, N/N_a      see :func:`holistic_ratios`
=================  =====================================  =====================================
"""

from __future__ import annotations

from moelaws.arch.config import MoEConfig
from moelaws.arch.counting import allocation_counts, exact_counts, holistic_counts
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config


def _require_moe(cfg: MoEConfig, what: str) -> None:
    if not cfg.is_moe:
        raise ValueError(f"{what} is defined for MoE configurations only ({cfg.name} is dense)")


@accepts_hf_config
def activation_ratio(cfg: ConfigLike) -> float:
    """Leverage paper Sec. 2.1: A = (E_a + E_s) / (E + E_s). Dense models have A = 1.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    if not cfg.is_moe:
        return 1.0
    return (cfg.top_k + cfg.n_shared) / (cfg.n_experts + cfg.n_shared)


@accepts_hf_config
def granularity(cfg: ConfigLike, convention: str = "leverage") -> float:
    """Expert granularity under one paper's definition.

    ``leverage``: G = 2·d_model/d_expert (Sec. 2.1); ``comprehensive``: G = n_k + n_s (Eq. 2);
    ``constrained``: g = d/d_exp (Sec. 1).

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)

    Raises
    ------
    ValueError
        For a dense configuration or an unknown convention.
    """
    _require_moe(cfg, "granularity")
    if convention == "leverage":
        return 2 * cfg.d_model / cfg.d_expert
    if convention == "comprehensive":
        return float(cfg.top_k + cfg.n_shared)
    if convention == "constrained":
        return cfg.d_model / cfg.d_expert
    raise ValueError(
        f"granularity convention {convention!r} unknown; use leverage, comprehensive or constrained"
    )


@accepts_hf_config
def sharing_ratio(cfg: ConfigLike) -> float:
    """Shared share of the activated experts: E_s/(E_a + E_s) (leverage Sec. 2.1) = n_s/G
    (comprehensive Eq. 3) — the two papers' S coincide in formula.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    _require_moe(cfg, "sharing ratio")
    return cfg.n_shared / (cfg.top_k + cfg.n_shared)


@accepts_hf_config
def sparsity(cfg: ConfigLike, convention: str = "constrained") -> float:
    """Sparsity under one paper's definition.

    ``constrained``: s = n_exp/n_topk (routed experts, Sec. 1), a ratio ≥ 1.
    ``allocation``: S = (E − E_act)/E with shared experts counted in both E and E_act
    (App. B.1: 1 shared + 2 routed active of E = 17 gives 82.35 %), i.e. 1 − A.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)

    Raises
    ------
    ValueError
        For a dense configuration or an unknown convention.
    """
    _require_moe(cfg, "sparsity")
    if convention == "constrained":
        return cfg.n_experts / cfg.top_k
    if convention == "allocation":
        return 1.0 - activation_ratio(cfg)
    raise ValueError(f"sparsity convention {convention!r} unknown; use constrained or allocation")


@accepts_hf_config
def holistic_ratios(cfg: ConfigLike) -> dict[str, float]:
    """Holistic paper Eq. 5 coordinates: M/N_a and N/N_a (App. A counts).

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    c = holistic_counts(cfg)
    return {"M/N_a": c.compute_per_token / c.active, "N/N_a": c.total / c.active}


@accepts_hf_config
def expert_attention_ratio(cfg: ConfigLike, *, attention: str = "convention") -> float:
    """Allocation paper: r = C_E/C_A, expert over attention forward FLOPs per token (App. C).

    C_E is App. C's sparse-MLP (and dense-FFN) FLOPs. C_A depends on ``attention``:

    ``"convention"`` (default)
        App. C's attention FLOPs with d² read as d·n_h·d_head (:func:`allocation_counts`). For
        multi-head latent attention this treats every head as a full-rank K/Q/V head of the
        query/key width (DeepSeek-V3: 128 heads of 192 = 24,576 wide, 3.4 x d_model).
    ``"d_model"``
        App. C read literally with d = d_model and multi-head attention: 8·d² + 4·n_ctx·d per
        layer (grouped-query K/V where the config has fewer K/V heads).
    ``"exact"``
        The real attention FLOPs of the exact convention (MLA's low-rank projections, the
        scores over the context, sliding windows).

    For grouped-query models with n_h·d_head = d_model the first two agree.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    attention
        ``"convention"``, ``"d_model"`` or ``"exact"``.

    Raises
    ------
    ValueError
        For an unknown ``attention``.
    """
    c = allocation_counts(cfg)
    if attention == "convention":
        c_a = c.attention_flops
    elif attention == "exact":
        c_a = exact_counts(cfg).attention_flops
    elif attention == "d_model":
        d = float(cfg.d_model)
        projections = 4.0 * d * d + 4.0 * d * d * cfg.kv_heads / cfg.n_heads
        per_layer = projections + 4.0 * cfg.context_length * d
        c_a = cfg.n_layers * per_layer
    else:
        raise ValueError(f"attention must be 'convention', 'd_model' or 'exact', got {attention!r}")
    return c.ffn_flops / c_a
