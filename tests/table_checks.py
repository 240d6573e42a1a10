"""What every side-by-side data table must do, checked by each paper's tests/papers/<id>/ for its
own tables (the tables and the package functions that build them are the papers')."""

from __future__ import annotations

import html
import io
from collections.abc import Callable

import pandas as pd
import pytest

from moelaws.cli import main
from moelaws.data_tables import DATA_TABLES, data_csv, data_table
from moelaws.interactive_tables import data_interactive_table


def check_side_by_side(name: str, build: Callable[[], pd.DataFrame],
                       capsys: pytest.CaptureFixture[str]) -> None:
    """The data table ``name`` is the frame ``build`` returns: as a CSV, on the command line and
    rendered with its caption, source and highlighted cells."""
    frame = build()
    pd.testing.assert_frame_equal(data_table(name), frame)
    assert data_csv(name) == frame.to_csv(index=False, lineterminator="\n")
    back = pd.read_csv(io.StringIO(data_csv(name)))
    assert list(back.columns) == [str(c) for c in frame.columns] and len(back) == len(frame)
    assert main(["data", name]) == 0
    assert capsys.readouterr().out == data_csv(name)
    spec = DATA_TABLES[name]
    rendered = data_interactive_table(name)
    assert "paper" in spec.caption and " vs ours" in spec.caption
    assert f'data-csv="data-{name}.csv"' in rendered.html
    assert html.escape(spec.source) in rendered.html
    if spec.highlight is None:
        assert rendered.highlighted == ()
    else:
        marks = spec.highlight(frame)
        assert len(rendered.highlighted) == int(marks.to_numpy().sum())
