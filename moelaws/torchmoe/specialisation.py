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

__all__ = [
    "conditional_information_null",
    "conditional_information_share",
    "group_blocks",
    "hash_router_information_shares",
    "information_share",
    "routed_experts",
    "token_information_share",
    "tokens_and_groups",
]


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


def tokens_and_groups(batches: Sequence) -> tuple[np.ndarray, np.ndarray]:
    """The input tokens and their groups of ``batches`` of ``(x, y, groups)``, flattened in the
    order every function here uses (batch by batch, window by window)."""
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
    tokens, groups = tokens_and_groups(batches)
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
    tokens, groups = tokens_and_groups(batches)
    shares = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        chosen = np.argsort(rng.random((n_tokens, n_experts)), axis=1)[:, :top_k]
        joint = np.zeros((n_experts, n_groups))
        for j in range(top_k):
            np.add.at(joint, (chosen[tokens, j], groups), 1)
        shares.append(information_share(joint))
    return np.array(shares)


def routed_experts(model: torch.nn.Module, batches: Sequence) -> dict[int, np.ndarray]:
    """The experts each input position of ``batches`` is routed to, per MoE layer.

    Returns ``{layer: (n_positions, top_k) array}`` in the order of
    ``torch.cat([x.reshape(-1) for x, _, _ in batches])``. The model is evaluated in eval mode
    without gradients and put back in the mode it was in.
    """
    was_training = model.training
    model.eval()
    chosen: dict[int, list[np.ndarray]] = {}
    with torch.no_grad():
        for x, _, _ in batches:
            for routing in model(x).routing:
                chosen.setdefault(routing.layer, []).append(routing.indices.numpy())
    model.train(was_training)
    return {layer: np.concatenate(parts) for layer, parts in chosen.items()}


def conditional_information_share(
    tokens: np.ndarray, groups: np.ndarray, experts: np.ndarray, *, at: np.ndarray | None = None
) -> float:
    """I(expert; group | token) / H(group | token) over the positions selected by ``at``.

    ``experts`` is ``(n_positions, k)``: each position counts once per chosen expert, as
    :func:`information_share` counts assignments. The value is zero for any router that picks
    its experts from the current token alone (up to the plug-in estimate's upward bias, which a
    block-permutation null measures: :func:`conditional_information_null`), and one when, given
    the token, the expert fixes the group.

    Raises
    ------
    ValueError
        If the arrays disagree in length, or the selected positions leave no uncertainty about
        the group given the token (H(group | token) = 0).
    """
    tokens, groups = np.asarray(tokens), np.asarray(groups)
    experts = np.asarray(experts).reshape(len(experts), -1)
    if not len(tokens) == len(groups) == len(experts):
        raise ValueError("tokens, groups and experts need one row per position")
    keep = np.ones(len(tokens), bool) if at is None else np.asarray(at, bool)
    tokens, groups, experts = tokens[keep], groups[keep], experts[keep]
    n_groups = int(groups.max()) + 1 if len(groups) else 0
    information = entropy = 0.0
    for token in np.unique(tokens):
        here = tokens == token
        weight = here.mean()
        group_counts = np.bincount(groups[here], minlength=n_groups).astype(float)
        p_group = group_counts / group_counts.sum()
        h_token = -float((p_group[p_group > 0] * np.log(p_group[p_group > 0])).sum())
        entropy += weight * h_token
        if h_token > 0:
            joint = np.zeros((int(experts.max()) + 1, n_groups))
            for j in range(experts.shape[1]):
                np.add.at(joint, (experts[here, j], groups[here]), 1)
            information += weight * information_share(joint) * h_token
    if entropy <= 0:
        raise ValueError("the selected positions leave no uncertainty about the group given "
                         "the token")
    return information / entropy


def conditional_information_null(
    tokens: np.ndarray, groups: np.ndarray, experts: np.ndarray, *, blocks: np.ndarray,
    at: np.ndarray | None = None, n_permutations: int = 200, seed: int = 0,
) -> np.ndarray:
    """:func:`conditional_information_share` with each block's group drawn at random: what a
    router blind to the group, given the token, scores on these counts.

    ``blocks`` labels the positions that share one group by construction (a document's stretch
    of a validation window, :func:`group_blocks`); the blocks' groups are permuted among the
    blocks. Shuffling single positions instead would treat the positions of a window as
    independent, which they are not (a router's choices within a window are correlated), and
    would make chance look smaller than it is. The selection ``at`` is applied first.

    Raises
    ------
    ValueError
        If a block holds more than one group.
    """
    tokens, groups = np.asarray(tokens), np.asarray(groups)
    experts = np.asarray(experts).reshape(len(experts), -1)
    blocks = np.asarray(blocks)
    keep = np.ones(len(tokens), bool) if at is None else np.asarray(at, bool)
    tokens, groups, experts, blocks = tokens[keep], groups[keep], experts[keep], blocks[keep]
    block_ids, inverse = np.unique(blocks, return_inverse=True)
    block_group = np.zeros(len(block_ids), dtype=groups.dtype)
    block_group[inverse] = groups
    if not (block_group[inverse] == groups).all():
        raise ValueError("every block must hold a single group")
    rng = np.random.default_rng(seed)
    return np.array([
        conditional_information_share(tokens, rng.permutation(block_group)[inverse], experts)
        for _ in range(n_permutations)
    ])


def group_blocks(batches: Sequence) -> np.ndarray:
    """Block labels of the input positions of ``batches`` of ``(x, y, groups)``: a new block
    at every window and wherever the group changes within one (a document boundary)."""
    labels, next_label = [], 0
    for _, _, groups in batches:
        if groups is None:
            raise ValueError("the batches need groups: (x, y, groups) with groups not None")
        for window in groups.numpy():
            starts = np.r_[True, window[1:] != window[:-1]]
            ids = np.cumsum(starts) - 1 + next_label
            labels.append(ids)
            next_label = int(ids[-1]) + 1
    return np.concatenate(labels)
