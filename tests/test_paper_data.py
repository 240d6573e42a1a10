"""moelaws.paper_data: where the package's tables and caches live."""

from __future__ import annotations

import pytest

from moelaws import paper_data, papers

FOLDER = papers.ids()[-1]
"""A paper's data folder (the last paper's: each paper but chapter 0 has one)."""


def test_missing_file_raises() -> None:
    with pytest.raises(FileNotFoundError):
        paper_data.read_csv(FOLDER, "nope.csv")


def test_folder_and_name_are_checked() -> None:
    assert FOLDER in paper_data.folders()
    with pytest.raises(ValueError, match="folder"):
        paper_data.data_dir("no-such-paper")
    with pytest.raises(TypeError, match="folder"):
        paper_data.data_file(3, "table1.csv")
    with pytest.raises(ValueError, match="name"):
        paper_data.data_file(FOLDER, "../claims/x.csv")
    with pytest.raises(ValueError, match=r"nope\.csv"):  # also a FileNotFoundError
        paper_data.read_csv(FOLDER, "nope.csv")

