"""Tests of moelaws.torchmoe.specialisation: the expert-group information share, its bounds."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")

from moelaws.arch import MoEConfig  # noqa: E402
from moelaws.torchmoe import MoETransformer, data  # noqa: E402
from moelaws.torchmoe.specialisation import (  # noqa: E402
    conditional_information_null,
    conditional_information_share,
    group_blocks,
    hash_router_information_shares,
    information_share,
    routed_experts,
    token_information_share,
)
from moelaws.torchmoe.train import TrainSettings, validation_batches  # noqa: E402


def test_information_share_of_known_tables():
    assert information_share(np.outer([1, 2, 3], [4, 5])) == pytest.approx(0.0, abs=1e-12)
    assert information_share(np.eye(4)) == pytest.approx(1.0)
    # X fixes Y's half: Y has four equal values, X tells which pair (1 bit of 2).
    pairs = np.kron(np.eye(2), np.ones((1, 2)))
    assert information_share(pairs) == pytest.approx(0.5)
    # The share is of H(Y), not H(X): eight X values, each fixing one of two Y values.
    assert information_share(np.kron(np.eye(2), np.ones((4, 1)))) == pytest.approx(1.0)
    mixed = np.array([[3.0, 1.0], [1.0, 3.0]])
    p = mixed / mixed.sum()
    expected = sum(p[i, j] * math.log(p[i, j] / 0.25) for i in range(2) for j in range(2))
    assert information_share(mixed) == pytest.approx(expected / math.log(2))


@pytest.mark.parametrize("table", [np.ones(3), -np.eye(2), np.zeros((2, 2)), np.ones((3, 1))])
def test_information_share_rejects_tables_it_cannot_score(table):
    with pytest.raises(ValueError):
        information_share(table)


def _corpus_batches():
    corpus = data.synthetic_corpus(n_languages=3, alphabet=4, n_common=2, doc_len=32,
                                   train_docs=8, val_docs=24, seed=3)
    return corpus, validation_batches(corpus, TrainSettings(batch_size=8, eval_batches=4), 16)


def test_token_ceiling_counts_the_positions_of_the_batches():
    corpus, batches = _corpus_batches()
    tokens = torch.cat([x.reshape(-1) for x, _, _ in batches]).numpy()
    groups = torch.cat([g.reshape(-1) for _, _, g in batches]).numpy()
    joint = np.zeros((corpus.vocab_size, len(corpus.group_names)))
    for t, g in zip(tokens, groups, strict=True):
        joint[t, g] += 1
    share = token_information_share(batches, corpus.vocab_size, len(corpus.group_names))
    assert share == pytest.approx(information_share(joint))
    assert 0.3 < share < 1.0  # common tokens leave the language partly unknown


def test_a_token_only_router_never_beats_the_token_ceiling():
    corpus, batches = _corpus_batches()
    n_groups = len(corpus.group_names)
    ceiling = token_information_share(batches, corpus.vocab_size, n_groups)
    for k in (1, 2):
        shares = hash_router_information_shares(batches, corpus.vocab_size, n_groups,
                                                n_experts=8, top_k=k, seeds=range(5))
        assert shares.shape == (5,)
        assert (shares <= ceiling + 1e-12).all() and (shares > 0).all()
        assert len(set(np.round(shares, 12))) > 1  # the seeds draw different maps
    # Routed to every expert, a token says nothing: each position counts once per expert.
    every = hash_router_information_shares(batches, corpus.vocab_size, n_groups,
                                           n_experts=4, top_k=4, seeds=[0])
    assert every[0] == pytest.approx(0.0, abs=1e-12)


def test_hash_router_rejects_impossible_top_k():
    _, batches = _corpus_batches()
    with pytest.raises(ValueError, match="top_k"):
        hash_router_information_shares(batches, 10, 3, n_experts=4, top_k=5)
    with pytest.raises(ValueError, match="groups"):
        hash_router_information_shares([(b[0], b[1], None) for b in batches], 10, 3, 4, 2)


def _context_positions(n=4000, seed=0):
    """Two groups, one shared token and two own tokens; a router that reads the group."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, 2, n)
    own = rng.random(n) < 0.5
    tokens = np.where(own, 1 + groups, 0)
    return tokens, groups, tokens == 0


def test_conditional_share_is_zero_for_token_only_routing_and_one_for_the_group():
    tokens, groups, shared = _context_positions()
    by_token = np.stack([tokens % 3, (tokens + 1) % 3], axis=1)
    assert conditional_information_share(tokens, groups, by_token, at=shared) == \
        pytest.approx(0.0, abs=1e-12)
    by_group = np.stack([groups, groups + 2], axis=1)
    assert conditional_information_share(tokens, groups, by_group, at=shared) == \
        pytest.approx(1.0)
    # Over all positions the own tokens carry no uncertainty: the share is still of H(group|token).
    assert conditional_information_share(tokens, groups, by_group) == pytest.approx(1.0)


def test_the_permutation_null_separates_context_from_chance():
    tokens, groups, shared = _context_positions()
    rng = np.random.default_rng(1)
    # Half the shared positions read the group, the rest pick at random.
    reads = rng.random(len(tokens)) < 0.5
    experts = np.where(reads, groups, rng.integers(0, 2, len(tokens)))[:, None]
    observed = conditional_information_share(tokens, groups, experts, at=shared)
    singletons = np.arange(len(tokens))
    null = conditional_information_null(tokens, groups, experts, blocks=singletons, at=shared,
                                        n_permutations=50)
    assert null.shape == (50,) and (null >= 0).all()
    assert null.max() < 0.01 < observed
    random_router = rng.integers(0, 2, (len(tokens), 1))
    chance = conditional_information_share(tokens, groups, random_router, at=shared)
    assert chance < np.quantile(conditional_information_null(
        tokens, groups, random_router, blocks=singletons, at=shared, n_permutations=50), 0.99) \
        + 0.01


def test_the_block_null_covers_a_router_whose_choices_are_correlated_within_a_block():
    """Positions in blocks of one group each (windows of a document); a router blind to the
    group that draws its expert once per block. Shuffling single positions calls that context
    use; permuting whole blocks does not."""
    rng = np.random.default_rng(2)
    n_blocks, size = 60, 20
    blocks = np.repeat(np.arange(n_blocks), size)
    groups = np.repeat(rng.integers(0, 2, n_blocks), size)
    tokens = np.zeros(len(blocks), int)  # one shared token: the group is never in the token
    experts = np.repeat(rng.integers(0, 4, n_blocks), size)[:, None]
    observed = conditional_information_share(tokens, groups, experts)
    by_position = conditional_information_null(tokens, groups, experts,
                                               blocks=np.arange(len(blocks)), n_permutations=100)
    by_block = conditional_information_null(tokens, groups, experts, blocks=blocks,
                                            n_permutations=100)
    assert observed > by_position.max()
    assert (by_block >= observed).mean() > 0.05
    with pytest.raises(ValueError, match="single group"):
        conditional_information_null(tokens, groups, experts, blocks=np.zeros(len(blocks)))


def test_group_blocks_split_windows_and_documents():
    _, batches = _corpus_batches()
    blocks = group_blocks(batches)
    groups = torch.cat([g.reshape(-1) for _, _, g in batches]).numpy()
    window = np.repeat(np.arange(sum(len(g) for _, _, g in batches)), batches[0][2].shape[1])
    frame = pd.DataFrame({"block": blocks, "group": groups, "window": window})
    assert (frame.groupby("block")["group"].nunique() == 1).all()
    assert (frame.groupby("block")["window"].nunique() == 1).all()
    assert len(np.unique(blocks)) > frame["window"].nunique()  # documents split some windows
    # Blocks are maximal: neighbours in one window with one group share a block.
    same = (frame["window"].diff() == 0) & (frame["group"].diff() == 0)
    assert (frame["block"].diff()[same] == 0).all()


def test_conditional_share_rejects_what_it_cannot_score():
    tokens, groups, shared = _context_positions(100)
    with pytest.raises(ValueError, match="one row per position"):
        conditional_information_share(tokens, groups[:-1], groups[:, None])
    with pytest.raises(ValueError, match="no uncertainty"):
        conditional_information_share(tokens, groups, groups[:, None], at=~shared)


def test_routed_experts_follow_the_positions_and_keep_the_mode():
    corpus, batches = _corpus_batches()
    cfg = MoEConfig(n_layers=2, d_model=32, n_heads=4, n_experts=4, top_k=2, d_expert=16,
                    vocab_size=corpus.vocab_size, context_length=16)
    torch.manual_seed(0)
    model = MoETransformer(cfg)
    model.train()
    chosen = routed_experts(model, batches)
    n_positions = sum(x.numel() for x, _, _ in batches)
    assert sorted(chosen) == [0, 1] and model.training
    for experts in chosen.values():
        assert experts.shape == (n_positions, 2)
        assert (experts[:, 0] != experts[:, 1]).all()
    with torch.no_grad():
        model.eval()
        first = model(batches[0][0]).routing[0].indices.numpy()
    assert (chosen[0][: len(first)] == first).all()


def test_the_null_selects_the_positions_before_it_permutes():
    """``at`` picks the positions first and the blocks left are permuted: the same null as the
    selected arrays passed alone. A null that permuted every block and then selected would draw
    other groups for the same seed."""
    rng = np.random.default_rng(3)
    n_blocks, size = 40, 10
    blocks = np.repeat(np.arange(n_blocks), size)
    groups = np.repeat(rng.integers(0, 3, n_blocks), size)
    tokens = rng.integers(0, 4, len(blocks))
    experts = rng.integers(0, 4, (len(blocks), 2))
    at = (tokens < 2) & (blocks % 3 != 0)  # drops whole blocks and splits the others
    with_at = conditional_information_null(tokens, groups, experts, blocks=blocks, at=at,
                                           n_permutations=30, seed=5)
    selected = conditional_information_null(tokens[at], groups[at], experts[at],
                                            blocks=blocks[at], n_permutations=30, seed=5)
    np.testing.assert_array_equal(with_at, selected)
