"""The constrained paper's appendix-data and side-by-side tables: its adapter's ``data_tables``.

Each function builds one frame its chapter shows; :func:`data_tables` names them, and
:mod:`moelaws.data_tables` serves them by name to the chapter (through
:func:`moelaws.interactive_tables.data_interactive_table`), the command line
(``moelaws data NAME``) and the book's "Download CSV" file, so all three come from the
same function.
"""

from __future__ import annotations

import pandas as pd

from moelaws.roles import DataTable
from moelaws.validation import guard_public

_LOSS_COLUMNS = ["l", "d", "n_exp", "n_topk", "loss", "loss_diff_pct", "ours", "lower", "upper",
                 "consistent", "status"]


def constrained_table6_losses() -> pd.DataFrame:
    """Constrained Table 6's loss differences (%): printed, ours from the printed losses, and
    the interval the losses' rounding allows (:func:`moelaws.constrained.tables.loss_diffs`)."""
    from moelaws.constrained import tables

    return tables.loss_diffs("table6")[["g", *_LOSS_COLUMNS]].reset_index(drop=True)


def constrained_table7_losses() -> pd.DataFrame:
    """Constrained Table 7's loss differences (as :func:`constrained_table6_losses`) and its
    N_active / N_total differences recomputed with Eq. 1-2."""
    from moelaws.constrained import tables

    return tables.loss_diffs("table7")[_LOSS_COLUMNS].join(tables.table7_param_diffs()[
        ["active_diff_pct", "ours_active_diff", "total_diff_pct", "ours_total_diff"]
    ]).reset_index(drop=True)


def constrained_reference_intervals() -> pd.DataFrame:
    """The unrounded reference losses of each group of constrained Tables 6-7 consistent with
    both printed columns (:func:`moelaws.constrained.tables.reference_loss_interval`)."""
    from moelaws.constrained import tables

    frame = pd.concat({"Table 6": tables.reference_loss_interval("table6"),
                       "Table 7": tables.reference_loss_interval("table7")},
                      names=["table", "group"])
    return frame.reset_index()


def inconsistent(df: pd.DataFrame) -> pd.DataFrame:
    """The ``consistent`` cells that are false: no unrounded values explain the printed ones."""
    return pd.DataFrame({"consistent": ~df["consistent"].astype(bool)}, index=df.index)


def constrained_table4() -> pd.DataFrame:
    """Constrained Table 4's cores: printed N_total beside Eq. 1's for (128, 8, g = 4)."""
    from moelaws.constrained import tables

    t4 = tables.table4_totals()
    return t4[["l", "d", "N_total_128_8", "ours"]].assign(
        **{"d/l": t4["d"] / t4["l"], "ours": t4["ours"].astype(int)}).reset_index(drop=True)


def data_tables() -> dict[str, DataTable]:
    """The constrained paper's data tables, by name (its adapter's ``data_tables`` role)."""
    return {
        "constrained-table-4": DataTable(
            paper="constrained",
            caption="Table 4 (paper) vs ours: the cores' total parameters for (n_exp, n_topk) = "
                    "(128, 8)",
            source="Table 4 (l, d and printed N_total); ours from Eq. 1 with g = 4",
            load=constrained_table4,
        ),
        "constrained-table-6-losses": DataTable(
            paper="constrained",
            caption="Table 6 (paper) vs ours: loss differences from the printed losses, with the "
                    "interval their rounding allows",
            source="Table 6 (printed losses and loss differences); ours and the interval from the "
                   "printed losses",
            load=constrained_table6_losses,
            highlight=inconsistent,
            legend="Highlighted: the printed difference lies outside the interval the rounded "
                   "losses allow (consistent = no).",
        ),
        "constrained-table-7-losses": DataTable(
            paper="constrained",
            caption="Table 7 (paper) vs ours: loss differences with the interval their rounding "
                    "allows, and the parameter differences by Eq. 1-2",
            source="Table 7 (printed losses, loss and parameter differences); ours from the "
                   "printed losses and Eq. 1-2 with g = 4",
            load=constrained_table7_losses,
            highlight=inconsistent,
            legend="Highlighted: the printed difference lies outside the interval the rounded "
                   "losses allow (consistent = no).",
        ),
        "constrained-reference-intervals": DataTable(
            paper="constrained",
            caption="Tables 6-7 (paper) vs ours: the unrounded reference losses that explain both "
                    "printed columns of each group",
            source="Tables 6 and 7 (printed losses and loss differences, each within half a unit "
                   "of its last digit)",
            load=constrained_reference_intervals,
            highlight=inconsistent,
            legend="Highlighted: no reference loss explains the group's printed columns "
                   "(consistent = no).",
        ),
    }


# Every public function checks its arguments' kinds (a frame, a name) and turns a frame without
# the expected columns (KeyError) into a ValueError naming the argument.
guard_public(globals(), [n for n, v in list(globals().items())
                         if not n.startswith("_") and callable(v) and not isinstance(v, type)
                         and getattr(v, "__module__", None) == __name__])
