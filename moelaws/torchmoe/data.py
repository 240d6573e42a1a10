"""Two offline corpora: Python's documentation (characters) and a mixture of synthetic languages.

Nothing is downloaded. :func:`pydoc_corpus` reads ``pydoc_data.topics``, which every CPython
ships (its text differs slightly between Python versions; :attr:`Corpus.fingerprint` tells
them apart). :func:`synthetic_corpus` generates a mixture of distinct random 'languages':
each language has its own alphabet (plus a few tokens common to all) and its own random
second-order transition table, so predicting well needs a large, language-specific table
memorised — capacity matters, and an expert can specialise on a language.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np
import torch

from moelaws.corpus_text import pydoc_split_sizes, pydoc_text

__all__ = ["CORPORA", "Corpus", "get_corpus", "pydoc_corpus", "pydoc_text", "synthetic_corpus"]


@dataclass
class Corpus:
    """A tokenised corpus with a train/validation split.

    Attributes
    ----------
    name
        Identifier (with the generator's settings for synthetic corpora).
    train, val
        1-D ``int64`` token ids.
    vocab
        The string of each token id.
    train_groups, val_groups
        Per-token group labels (the language of a synthetic corpus), or ``None``.
    group_names
        Name of each group label.
    floor
        A lower bound on the achievable validation loss in nats per token where one is known
        (the synthetic corpus: the loss of an oracle that knows each document's language and
        the transition tables), else ``None``.
    fingerprint
        Hash of the token ids and vocabulary (changes whenever the data does).
    sep
        Separator that :meth:`decode` puts between tokens.
    """

    name: str
    train: torch.Tensor
    val: torch.Tensor
    vocab: list[str]
    train_groups: torch.Tensor | None = None
    val_groups: torch.Tensor | None = None
    group_names: list[str] = field(default_factory=list)
    floor: float | None = None
    fingerprint: str = ""
    sep: str = ""

    def __post_init__(self) -> None:
        if not self.fingerprint:
            h = hashlib.sha256()
            for t in (self.train, self.val):
                h.update(t.numpy().astype(np.int32).tobytes())
            h.update("\x00".join(self.vocab).encode())
            self.fingerprint = h.hexdigest()[:16]

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def decode(self, ids) -> str:
        """The text of token ids (synthetic tokens are separated by spaces)."""
        return self.sep.join(self.vocab[int(i)] for i in ids)

    def batch(
        self, split: str, batch_size: int, seq_len: int, generator: torch.Generator
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """Random windows: inputs ``(B, T)``, next-token targets ``(B, T)``, groups or None."""
        data = self.train if split == "train" else self.val
        groups = self.train_groups if split == "train" else self.val_groups
        if data.numel() <= seq_len + 1:
            raise ValueError(f"{split} split too short for windows of {seq_len}")
        starts = torch.randint(0, data.numel() - seq_len - 1, (batch_size,), generator=generator)
        offsets = starts[:, None] + torch.arange(seq_len + 1)
        window = data[offsets]
        g = None if groups is None else groups[offsets[:, :-1]]
        return window[:, :-1], window[:, 1:], g


# --- Python's documentation -------------------------------------------------------------------


def pydoc_corpus(val_fraction: float = 0.1) -> Corpus:
    """Character-level corpus of Python's help topics; the last ``val_fraction`` is validation.

    About 465k characters and about 100 distinct ones on CPython 3.11.
    """
    text = pydoc_text()
    vocab = sorted(set(text))
    lookup = {c: i for i, c in enumerate(vocab)}
    ids = torch.tensor([lookup[c] for c in text], dtype=torch.int64)
    cut, _ = pydoc_split_sizes(val_fraction)
    return Corpus("pydoc", ids[:cut], ids[cut:], vocab)


# --- synthetic mixture of languages -----------------------------------------------------------


def _branch_probs(branching: int) -> np.ndarray:
    p = 1.0 / np.arange(1, branching + 1)  # Zipf-like next-token probabilities
    return p / p.sum()


def synthetic_corpus(
    n_languages: int = 8,
    alphabet: int = 12,
    n_common: int = 4,
    branching: int = 4,
    doc_len: int = 256,
    train_docs: int = 4096,
    val_docs: int = 256,
    seed: int = 0,
) -> Corpus:
    """A mixture of random second-order Markov 'languages'.

    Token 0 (``"<s>"``) starts every document. Tokens ``1..n_common`` are common to all
    languages; language ``l`` also has ``alphabet`` tokens of its own. A document is
    ``doc_len`` tokens of one language (chosen uniformly): its first two symbols are uniform
    over the language's ``alphabet + n_common`` symbols, and each later symbol follows the
    previous two through the language's own table, which gives every context ``branching``
    possible successors (drawn at random) with Zipf probabilities ``∝ 1/rank``.

    Predicting well means memorising ``n_languages · (alphabet + n_common)² · branching``
    transitions (8,192 with the defaults): a task meant to reward capacity (whether short
    runs are bound by it is a separate question; see :func:`group_ngram_loss`). Common tokens
    make the
    language something to infer from context rather than from every single token.

    The corpus's ``floor`` is the validation loss of an oracle that knows each document's
    language and the tables (no model that must infer the language can beat it on average).
    """
    rng = np.random.default_rng(seed)
    a = alphabet + n_common
    # global token ids of each language's symbols: common tokens first, then its own
    own = 1 + n_common + np.arange(n_languages * alphabet).reshape(n_languages, alphabet)
    common = np.broadcast_to(1 + np.arange(n_common), (n_languages, n_common))
    symbols = np.concatenate([common, own], axis=1)  # (L, a)
    # successors of each (language, previous, current) context: `branching` distinct symbols
    succ = np.argsort(rng.random((n_languages, a, a, a)), axis=-1)[..., :branching]
    probs = _branch_probs(branching)
    cum = np.cumsum(probs)

    def generate(n_docs: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        lang = rng.integers(0, n_languages, n_docs)
        s = np.empty((n_docs, doc_len), dtype=np.int64)
        s[:, :2] = rng.integers(0, a, (n_docs, 2))
        logp = np.empty((n_docs, doc_len))
        logp[:, :2] = np.log(1.0 / a)
        for t in range(2, doc_len):
            rank = np.minimum(np.searchsorted(cum, rng.random(n_docs)), branching - 1)
            s[:, t] = succ[lang, s[:, t - 2], s[:, t - 1], rank]
            logp[:, t] = np.log(probs[rank])
        tokens = np.concatenate([np.zeros((n_docs, 1), np.int64), symbols[lang[:, None], s]], 1)
        groups = np.repeat(lang[:, None], doc_len + 1, axis=1)
        # oracle log-prob of each token as a target: "<s>" is certain (documents have a fixed
        # length), the rest as generated
        target_logp = np.concatenate([np.zeros((n_docs, 1)), logp], 1)
        return tokens.reshape(-1), groups.reshape(-1), target_logp.reshape(-1)

    tr, tr_g, _ = generate(train_docs)
    va, va_g, va_lp = generate(val_docs)
    floor = float(-va_lp[1:].mean())  # targets of the validation stream: tokens 1..end
    vocab = ["<s>"] + [f"c{i}" for i in range(n_common)]
    vocab += [f"{chr(ord('A') + lang)}{i}" for lang in range(n_languages) for i in range(alphabet)]
    name = (
        f"synthetic(L={n_languages},a={alphabet},c={n_common},b={branching},"
        f"doc={doc_len},docs={train_docs}/{val_docs},seed={seed})"
    )
    return Corpus(
        name,
        torch.from_numpy(tr),
        torch.from_numpy(va),
        vocab,
        torch.from_numpy(tr_g),
        torch.from_numpy(va_g),
        [f"language {chr(ord('A') + i)}" for i in range(n_languages)],
        floor,
        sep=" ",
    )


CORPORA = ("pydoc", "synthetic")


def get_corpus(spec: str | Corpus) -> Corpus:
    """A corpus by name (``"pydoc"`` or ``"synthetic"`` with default settings), or as given."""
    if isinstance(spec, Corpus):
        return spec
    if spec == "pydoc":
        return pydoc_corpus()
    if spec == "synthetic":
        return synthetic_corpus()
    raise ValueError(f"unknown corpus {spec!r}; choose from {', '.join(CORPORA)}")


def group_ngram_loss(corpus: Corpus, order: int, alpha: float = 0.01) -> float:
    """Validation loss of a count model that knows each token's group and ``order`` previous tokens.

    The model predicts the next token from the previous ``order`` tokens and the target's group
    (a synthetic document's language), with add-``alpha`` smoothed counts from the training
    split; contexts never seen in training get a uniform prediction. It is a baseline for what
    a model has learned: ``order=0`` knows only each language's symbol frequencies, ``order=1``
    its first-order statistics, and on :func:`synthetic_corpus` ``order=2`` knows the
    generating tables and comes close to the corpus's oracle ``floor``.

    Parameters
    ----------
    corpus : Corpus with ``train_groups`` and ``val_groups``
    order : number of previous tokens in the context, >= 0
    alpha : add-alpha smoothing of the counts, > 0

    Returns
    -------
    float
        Mean negative log-likelihood of the validation targets (tokens ``order..end``), nats.

    Raises
    ------
    ValueError
        Without group labels, or for a negative ``order`` or non-positive ``alpha``.
    """
    if corpus.train_groups is None or corpus.val_groups is None:
        raise ValueError(f"{corpus.name} has no group labels")
    if order < 0 or alpha <= 0:
        raise ValueError(f"need order >= 0 and alpha > 0, got order={order}, alpha={alpha}")
    v = corpus.vocab_size

    def contexts(tokens: torch.Tensor, groups: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
        t, g = tokens.numpy().astype(np.int64), groups.numpy().astype(np.int64)
        n = len(t)
        key = g[order:].copy()
        for back in range(1, order + 1):
            key = key * v + t[order - back : n - back]
        return key, t[order:]

    train_key, train_next = contexts(corpus.train, corpus.train_groups)
    val_key, val_next = contexts(corpus.val, corpus.val_groups)
    seen, row = np.unique(train_key, return_inverse=True)
    counts = np.zeros((len(seen), v))
    np.add.at(counts, (row, train_next), 1.0)
    at = np.minimum(np.searchsorted(seen, val_key), len(seen) - 1)
    known = seen[at] == val_key
    p = np.full(len(val_key), 1.0 / v)
    hit = counts[at[known]]
    p[known] = (hit[np.arange(len(hit)), val_next[known]] + alpha) / (hit.sum(1) + alpha * v)
    return float(-np.log(p).mean())
