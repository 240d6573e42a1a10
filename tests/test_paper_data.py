"""moelaws.paper_data: where the package's tables and caches live."""

from __future__ import annotations

import pytest

from moelaws import paper_data


def test_read_csv_reads_a_transcribed_table() -> None:
    table = paper_data.read_csv("allocation", "table1.csv", dtype={"printed": str})
    assert len(table) > 0 and table["printed"].map(type).eq(str).all()


def test_data_dir_and_file_point_into_the_package() -> None:
    folder = paper_data.data_dir("comprehensive")
    assert folder.parts[-3:] == ("moelaws", "data", "comprehensive")
    assert (folder / "table8.csv").is_file()
    assert paper_data.data_file("comprehensive", "table8.csv").is_file()
    assert not paper_data.data_file("comprehensive", "nope.csv").is_file()


def test_missing_file_raises() -> None:
    with pytest.raises(FileNotFoundError):
        paper_data.read_csv("allocation", "nope.csv")


def test_folder_and_name_are_checked() -> None:
    assert "comprehensive" in paper_data.folders()
    with pytest.raises(ValueError, match="folder"):
        paper_data.data_dir("no-such-paper")
    with pytest.raises(TypeError, match="folder"):
        paper_data.data_file(3, "table1.csv")
    with pytest.raises(ValueError, match="name"):
        paper_data.data_file("allocation", "../claims/x.csv")
    with pytest.raises(ValueError, match=r"nope\.csv"):  # also a FileNotFoundError
        paper_data.read_csv("allocation", "nope.csv")
