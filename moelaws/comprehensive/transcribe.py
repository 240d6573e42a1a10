"""Regenerate ``moelaws/data/comprehensive/table8.csv`` from the paper's text copy.

Table 8 (App. L) lists 450 configurations, two per printed line, with page line numbers and
"continued" headers in between. Each configuration is matched as ``index Na N D G S mark``;
the indices must come out as exactly 0..449 in order, which guards against a page line number
being read as an index.

Usage::

    python -m moelaws.comprehensive.transcribe ../shared/papers/comprehensive-moe-scaling-law.txt
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

from moelaws.paper_data import data_dir

_ROW = re.compile(
    r"(?<![\d.])(\d{1,3})\s+(\d+)M\s+(\d+)M\s+(\d+)B\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+"
    r"(\\times|\\checkmark|✗|✓)"
)
_MARKS = {"\\times": "✗", "✗": "✗", "\\checkmark": "✓", "✓": "✓"}
N_ROWS = 450


def parse_table8(text: str) -> pd.DataFrame:
    """Parse Table 8 from the paper's text.

    Parameters
    ----------
    text
        The whole paper as text; parsing starts at the caption "Table 8: All configurations".

    Returns
    -------
    pandas.DataFrame
        Columns ``row, Na_M, N_M, D_B, G, S, mark`` with ``G`` and ``S`` as printed strings
        (e.g. ``"2.5"``, ``"0.33"``) and ``mark`` normalised to ✓ or ✗ (the text copy mixes
        the glyphs with LaTeX ``\\times``).

    Raises
    ------
    ValueError
        If the caption is missing or the rows are not exactly 0..449 in order.
    """
    start = text.find("Table 8: All configurations")
    if start < 0:
        raise ValueError("Table 8's caption was not found")
    rows = [
        {"row": int(i), "Na_M": int(na), "N_M": int(n), "D_B": int(d), "G": g, "S": s,
         "mark": _MARKS[mark]}
        for i, na, n, d, g, s, mark in _ROW.findall(text[start:])
    ]
    indices = [r["row"] for r in rows]
    if indices != list(range(N_ROWS)):
        raise ValueError(
            f"expected rows 0..{N_ROWS - 1} in order, found {len(rows)} rows "
            f"(first mismatch near {next((i for i, j in enumerate(indices) if i != j), None)})"
        )
    return pd.DataFrame(rows)


def write_table8(paper: Path | str, out: Path | str | None = None) -> Path:
    """Parse Table 8 from ``paper`` (a text file) and write it as CSV (by default into the
    package's data folder). Returns the path written."""
    df = parse_table8(Path(paper).read_text(encoding="utf-8"))
    target = Path(out) if out is not None else data_dir("comprehensive") / "table8.csv"
    df.to_csv(target, index=False)
    return target


if __name__ == "__main__":
    print(write_table8(sys.argv[1]))
