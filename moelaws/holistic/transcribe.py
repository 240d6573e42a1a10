"""Transcribe the holistic paper's appendix architecture tables (Tables 5-21) from its text.

The arXiv HTML-to-text extraction prints each table row as six integers
``d L_d d_d L_m d_m L``; the first row of each compute scale carries the scale twice
(``1e181e18``, the LaTeX source and its rendering run together). The captions read
``Table N: Specific architectural parameters (...) in Sec X.Y.`` with a no-break space before
the section number. Run as a script to regenerate the CSV::

    python -m moelaws.holistic.transcribe ../shared/papers/holistic-moe-scaling-laws.txt
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

_CAPTION = re.compile(r"^Table (\d+): Specific architectural parameters.*in\sSec\s([\d.]+)\.")
_SCALE_PREFIX = re.compile(r"^(\de\d+)\1\s+(.*)$")
_HEADER = "CC "
_END = "F.4"

COLUMNS = ["table", "section", "scale", "row", "d", "L_d", "d_d", "L_m", "d_m", "L",
           "source_line"]


def parse_appendix_tables(text: str) -> pd.DataFrame:
    """Parse Tables 5-21 of the paper's text into one row per model configuration.

    Parameters
    ----------
    text
        The paper's full text (the extraction in ``../shared/papers`` beside the repository).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`: table number, section the table serves, compute scale as
        printed (``"1e18"``), 1-based row within the table, the six printed integers, and the
        1-based line of the text the row was read from.

    Raises
    ------
    ValueError
        If a line inside a table is neither a caption, a header nor a six-integer row, if a
        table starts without a compute scale, or if no table is found.
    """
    records = []
    table: int | None = None
    section = ""
    scale: str | None = None
    row = 0
    for lineno, line in enumerate(text.splitlines(), start=1):
        caption = _CAPTION.match(line)
        if caption:
            table, section, row = int(caption.group(1)), caption.group(2), 0
            continue
        if line.startswith(_END):
            table = None
        if table is None or not line.strip() or line.startswith(_HEADER):
            continue
        body = line
        prefixed = _SCALE_PREFIX.match(line)
        if prefixed:
            scale, body = prefixed.group(1), prefixed.group(2)
        tokens = body.split()
        if len(tokens) != 6 or not all(t.isdigit() for t in tokens):
            raise ValueError(f"line {lineno} of Table {table} is not a table row: {line!r}")
        if scale is None:
            raise ValueError(f"Table {table} starts without a compute scale (line {lineno})")
        row += 1
        records.append([table, section, scale, row, *map(int, tokens), lineno])
    if not records:
        raise ValueError("no appendix architecture table found in the text")
    return pd.DataFrame(records, columns=COLUMNS)


def main(argv: list[str] | None = None) -> None:
    """Parse the paper at ``argv[0]`` and write the CSV to ``argv[1]`` (default: the package's)."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        raise SystemExit("usage: python -m moelaws.holistic.transcribe PAPER.txt [OUT.csv]")
    default = Path(__file__).resolve().parents[1] / "data" / "holistic"
    out = Path(args[1]) if len(args) > 1 else default / "appendix_architectures.csv"
    frame = parse_appendix_tables(Path(args[0]).read_text(encoding="utf-8"))
    frame.to_csv(out, index=False)
    print(f"wrote {len(frame)} rows to {out}")


if __name__ == "__main__":
    main()
