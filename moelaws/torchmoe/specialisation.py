"""How much an expert's choice tells about its token's group (chapter 1, "Do experts specialise?").

The measure is the mutual information between the expert of a routed assignment and the group
(the language, on the synthetic corpus) of its token, as a fraction of the group's entropy: 0
for experts blind to the group, 1 when the expert identifies it. Two references put a learned
router's value in context:

- a router that chooses from the current token alone cannot carry more about the group than the
  token does (the data-processing inequality: group → token → expert), so
  :func:`token_information_share` over the same positions is the ceiling of every token-only
  router, and of this share only a value above it shows a router using context (a value below
  says nothing either way);
- a random map from each token to ``top_k`` distinct experts
  (:func:`hash_router_information_shares`) is what routing by token with no learning gives.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

__all__ = ["hash_router_information_shares", "information_share", "token_information_share"]


def information_share(joint: np.ndarray) -> float:
    """I(X; Y) / H(Y) of a table of joint counts (rows: X, columns: Y).

    The information of the counts' own (empirical) distribution: a plug-in estimate, biased
    upward when the counts are few. The share of an expert computed from the token alone never
    exceeds the token's own share on the same positions, exactly, with no correction.

    Raises
    ------
    ValueError
        If the table is not two-dimensional, has a negative or no count, or Y takes one value
        (H(Y) = 0).
    """
    joint = np.asarray(joint, dtype=float)
    if joint.ndim != 2:
        raise ValueError(f"a joint table has two dimensions, not {joint.ndim}")
    if (joint < 0).any() or joint.sum() <= 0:
        raise ValueError("a joint table needs non-negative counts and at least one count")
    joint = joint / joint.sum()
    px, py = joint.sum(1, keepdims=True), joint.sum(0, keepdims=True)
    h_y = -float((py[py > 0] * np.log(py[py > 0])).sum())
    if h_y <= 0:
        raise ValueError("Y takes a single value: H(Y) = 0, the share is undefined")
    nz = joint > 0
    return float((joint[nz] * np.log(joint[nz] / (px @ py)[nz])).sum()) / h_y


def _tokens_and_groups(batches: Sequence) -> tuple[np.ndarray, np.ndarray]:
    if not batches or any(b[2] is None for b in batches):
        raise ValueError("the batches need groups: (x, y, groups) with groups not None")
    tokens = torch.cat([x.reshape(-1) for x, _, _ in batches]).numpy()
    groups = torch.cat([g.reshape(-1) for _, _, g in batches]).numpy()
    return tokens, groups


def token_information_share(batches: Sequence, n_tokens: int, n_groups: int) -> float:
    """I(token; group) / H(group) over the input positions of ``batches`` of ``(x, y, groups)``.

    The ceiling of :func:`information_share` (expert, group) for any router that picks its
    experts from the current token alone, over the same positions.
    """
    tokens, groups = _tokens_and_groups(batches)
    joint = np.zeros((n_tokens, n_groups))
    np.add.at(joint, (tokens, groups), 1)
    return information_share(joint)


def hash_router_information_shares(
    batches: Sequence, n_tokens: int, n_groups: int, n_experts: int, top_k: int,
    seeds: Sequence[int] = range(20),
) -> np.ndarray:
    """Expert-group information share of random token-to-expert maps, one per seed.

    Each map sends every token id to ``top_k`` distinct experts drawn uniformly; every position
    of ``batches`` then counts once per chosen expert, as :func:`moelaws.torchmoe.train.expert_load`
    counts a trained router's assignments.

    Raises
    ------
    ValueError
        If ``top_k`` is not between 1 and ``n_experts``.
    """
    if not 1 <= top_k <= n_experts:
        raise ValueError(f"top_k must be between 1 and n_experts ({n_experts}), not {top_k}")
    tokens, groups = _tokens_and_groups(batches)
    shares = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        chosen = np.argsort(rng.random((n_tokens, n_experts)), axis=1)[:, :top_k]
        joint = np.zeros((n_experts, n_groups))
        for j in range(top_k):
            np.add.at(joint, (chosen[tokens, j], groups), 1)
        shares.append(information_share(joint))
    return np.array(shares)
