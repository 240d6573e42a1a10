"""The holistic paper's appendix-data and side-by-side tables: its adapter's ``data_tables``.

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

M_TOLERANCE = 0.05
"""Table 4's note: every appendix architecture's M lies within 5 % of its budget's target."""


def m_outside_target(df: pd.DataFrame) -> pd.DataFrame:
    """The ``M_dev`` cells of the holistic appendix more than :data:`M_TOLERANCE` off."""
    return pd.DataFrame({"M_dev": df["M_dev"].abs() > M_TOLERANCE}, index=df.index)


def _holistic_appendix() -> pd.DataFrame:
    from moelaws.holistic import checks

    # M_dev first after the row's identity: it is the column the highlights are about.
    columns = ["table", "scale", "row", "M_dev", "M", "M_target", "d", "L_d", "d_d", "L_m", "d_m",
               "L", "N_a", "N", "M/N_a", "N/N_a"]
    return checks.appendix_counts()[columns].reset_index(drop=True)


def holistic_eq2_table2() -> pd.DataFrame:
    """Holistic Table 2 beside Eq. 2 at its six budgets, differences in last-digit units.

    See :func:`moelaws.holistic.checks.eq2_table2`.
    """
    from moelaws.holistic import checks

    return checks.eq2_table2().reset_index(drop=True)


EQ2_DIFF_COLUMNS = ("M diff (last digits)", "D diff (last digits)")
"""The columns of :func:`holistic_eq2_table2` in units of Table 2's last printed digit."""


def eq2_off_by_a_digit(df: pd.DataFrame) -> pd.DataFrame:
    """The difference cells of :func:`holistic_eq2_table2` whose value, rounded to Table 2's
    last printed digit, is not the printed one (more than half a unit of that digit off)."""
    return pd.DataFrame({c: df[c].round() != 0 for c in EQ2_DIFF_COLUMNS}, index=df.index)


def data_tables() -> dict[str, DataTable]:
    """The holistic paper's data tables, by name (its adapter's ``data_tables`` role)."""
    return {
        "holistic-appendix": DataTable(
            paper="holistic",
            caption="The 667 published architectures, with M, N_a and N computed by Eq. 3",
            source="Tables 5-21 (App. F) for d, L_d, d_d, L_m, d_m, L; Eq. 3 and Table 4's heads "
                   "for M, N_a, N; M_target from Table 4's budgets",
            load=_holistic_appendix,
            highlight=m_outside_target,
            legend="Highlighted: M_dev, the relative distance of our M (Eq. 3) from the budget's "
                   "target M, exceeds the 5 % that Table 4's note states for every row.",
        ),
        "holistic-eq2-table-2": DataTable(
            paper="holistic",
            caption="Table 2 (paper) vs ours: Eq. 2 at the six budgets, differences in units of "
                    "the table's last printed digit",
            source="Table 2 (C, M, D as printed); ours from Eq. 2 with its printed coefficients",
            load=holistic_eq2_table2,
            highlight=eq2_off_by_a_digit,
            legend="Highlighted: a difference of more than half a unit of Table 2's last printed "
                   "digit, i.e. our Eq. 2 value would not print as the paper's.",
        ),
    }


# Every public function checks its arguments' kinds (a frame, a name) and turns a frame without
# the expected columns (KeyError) into a ValueError naming the argument.
guard_public(globals(), [n for n, v in list(globals().items())
                         if not n.startswith("_") and callable(v) and not isinstance(v, type)
                         and getattr(v, "__module__", None) == __name__])
