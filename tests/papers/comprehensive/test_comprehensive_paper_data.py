"""The comprehensive paper's data folder, found through moelaws.paper_data."""

from __future__ import annotations

from moelaws import paper_data


def test_data_dir_and_file_point_into_the_package() -> None:
    folder = paper_data.data_dir("comprehensive")
    assert folder.parts[-3:] == ("moelaws", "data", "comprehensive")
    assert (folder / "table8.csv").is_file()
    assert paper_data.data_file("comprehensive", "table8.csv").is_file()
    assert not paper_data.data_file("comprehensive", "nope.csv").is_file()
