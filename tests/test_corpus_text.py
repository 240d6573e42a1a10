"""moelaws.corpus_text: the pydoc corpus's text and split sizes without torch."""

from __future__ import annotations

import subprocess
import sys

import pytest

from moelaws.corpus_text import pydoc_split_sizes, pydoc_text


def test_split_sizes_are_the_corpus_tensors() -> None:
    torch_data = pytest.importorskip("moelaws.torchmoe.data")
    corpus = torch_data.get_corpus("pydoc")
    assert pydoc_split_sizes() == (corpus.train.numel(), corpus.val.numel())
    assert sum(pydoc_split_sizes(0.25)) == len(pydoc_text())
    assert pydoc_split_sizes(0.25)[1] > pydoc_split_sizes()[1]


@pytest.mark.parametrize("fraction", [0.0, 1.0, -0.1, float("nan")])
def test_split_sizes_refuse_a_fraction_outside_0_1(fraction: float) -> None:
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        pydoc_split_sizes(fraction)


def test_reading_the_sizes_imports_no_torch() -> None:
    code = ("import sys; from moelaws.corpus_text import pydoc_split_sizes; pydoc_split_sizes(); "
            "sys.exit('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
