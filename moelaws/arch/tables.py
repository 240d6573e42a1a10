"""Tables of configurations for the chapters and the command line."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from moelaws.arch.counting import conventions, counts
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config, as_config
from moelaws.arch.presets import PRESETS
from moelaws.arch.ratios import all_ratios


@accepts_hf_config
def conventions_table(cfg: ConfigLike) -> pd.DataFrame:
    """One row per convention: total, active and embedding parameters, forward FLOPs per
    token, and the per-token compute that convention multiplies by D.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    rows = []
    for conv in conventions():
        c = counts(cfg, conv)
        rows.append(
            {
                "convention": conv,
                "N (non-embedding)": c.total,
                "N_a (non-embedding)": c.active,
                "embedding": c.embedding,
                "forward FLOPs/token": c.forward_flops,
                "compute per token (C/D)": c.compute_per_token,
            }
        )
    return pd.DataFrame(rows).set_index("convention")


def presets_table(configs: Iterable[ConfigLike] | None = None) -> pd.DataFrame:
    """The configurations side by side: exact counts (in billions), FLOPs per token and every
    paper's ratios. Defaults to all presets.

    Parameters
    ----------
    configs : iterable of MoEConfig or Hugging Face config (dict, path or directory)
        Each entry goes through :func:`~moelaws.arch.hf_config.as_config`.

    Raises
    ------
    TypeError
        If ``configs`` is not a list, tuple or other iterable of configurations (a single
        string, path or dict is one configuration: wrap it in a list).
    ValueError
        For an empty ``configs`` or an entry :func:`~moelaws.arch.hf_config.as_config`
        refuses.
    """
    if configs is not None:
        if isinstance(configs, (str, bytes, Path, Mapping)) or not isinstance(configs, Iterable):
            raise TypeError(f"configs must be an iterable of configurations, not "
                            f"{type(configs).__name__}")
        configs = list(configs)
        if not configs:
            raise ValueError("configs is empty; give at least one configuration")
    rows = []
    for entry in configs if configs is not None else PRESETS.values():
        cfg = as_config(entry)
        c = counts(cfg, "exact")
        rows.append(
            {
                "model": cfg.name,
                "layers": cfg.n_layers,
                "d_model": cfg.d_model,
                "experts (routed+shared)": f"{cfg.n_experts}+{cfg.n_shared}" if cfg.is_moe else "-",
                "top-k": cfg.top_k if cfg.is_moe else "-",
                "N (B)": c.total / 1e9,
                "N_a (B)": c.active / 1e9,
                "embedding (B)": c.embedding / 1e9,
                "GFLOPs/token (fwd)": c.forward_flops / 1e9,
                "N/N_a": c.total / c.active,
                **all_ratios(cfg),
            }
        )
    return pd.DataFrame(rows).set_index("model")
