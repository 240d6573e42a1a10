"""Tests of moelaws.torchmoe.specialisation: the expert-group information share, its bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from moelaws.torchmoe import data  # noqa: E402
from moelaws.torchmoe.specialisation import (  # noqa: E402
    hash_router_information_shares,
    information_share,
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
