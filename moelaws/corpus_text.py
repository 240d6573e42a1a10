"""The offline corpora's text, without torch: what :mod:`moelaws.torchmoe.data` tokenises.

A chapter that only needs a corpus's size (chapter 2's toy runs, in epochs) reads it here and
does not import torch.
"""

from __future__ import annotations

__all__ = ["pydoc_split_sizes", "pydoc_text"]


def pydoc_text() -> str:
    """The text of ``pydoc_data.topics`` (the help() topics of this CPython), topics sorted."""
    from pydoc_data.topics import topics

    return "\n\n".join(topics[k] for k in sorted(topics))


def pydoc_split_sizes(val_fraction: float = 0.1) -> tuple[int, int]:
    """Characters (tokens: the corpus is character-level) in the train and validation splits of
    :func:`moelaws.torchmoe.data.pydoc_corpus`: the last ``val_fraction`` is validation.

    Raises
    ------
    ValueError
        If ``val_fraction`` is not strictly between 0 and 1.
    """
    if not 0.0 < val_fraction < 1.0:
        raise ValueError("val_fraction must be strictly between 0 and 1")
    n = len(pydoc_text())
    cut = int(n * (1 - val_fraction))
    return cut, n - cut
