"""Sphinx extension: the CSV downloads of the book's interactive tables.

Every reproduced table (``moelaws.claims.tables.reproduced_table``: each paper table, each
paper's whole registry and every claim) and every appendix-data table a chapter shows
(``moelaws.data_tables``) is written at the end of an HTML build into
``_static/download/`` under the name its "Download CSV" link uses. The bytes are those of
``moelaws reproduce --paper P --table T --format csv`` (same function, same serialiser). They
are written on every build, not taken from the execution cache, so they always match the
package the book was built with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def write_downloads(outdir: Path) -> list[Path]:
    """Write every table's CSV into ``outdir/_static/download``; return the files written."""
    from moelaws.claims import registered_papers
    from moelaws.claims import tables as claim_tables
    from moelaws.data_tables import all_data_tables, data_csv, data_csv_name
    from moelaws.interactive_tables import DOWNLOAD_DIR

    folder = outdir / DOWNLOAD_DIR
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {
        claim_tables.csv_name(): claim_tables.to_csv(claim_tables.reproduced_table())
    }
    for paper in registered_papers():
        files[claim_tables.csv_name(paper)] = claim_tables.to_csv(
            claim_tables.reproduced_table(paper)
        )
    for row in claim_tables.list_tables().itertuples(index=False):
        files[row.csv] = claim_tables.to_csv(claim_tables.reproduced_table(row.paper, row.table))
    for name in all_data_tables():
        files[data_csv_name(name)] = data_csv(name)
    written = []
    for name, text in files.items():
        path = folder / name
        path.write_bytes(text.encode("utf-8"))
        written.append(path)
    return written


def _build_finished(app: Any, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        write_downloads(Path(app.outdir))


def setup(app: Any) -> dict[str, Any]:
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
