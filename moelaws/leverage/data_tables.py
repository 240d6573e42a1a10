"""The leverage paper's appendix-data and side-by-side tables: its adapter's ``data_tables``.

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


def leverage_benchmark_averages() -> pd.DataFrame:
    """Leverage Tables 7 and 2's category and overall averages beside our means of Table 7's
    per-benchmark rows, for the dense model and MoE-mini."""
    from moelaws.leverage import tables

    t7 = tables.table7()
    printed = t7[t7["kind"] == "average"].set_index("category")[["dense_6_1b", "moe_mini"]]
    ours = pd.concat([tables.category_means("category"), tables.category_means("overall")])
    ours.index = [*tables.CATEGORIES, "All"]
    t2 = tables.read_table("table2").set_index("model")
    columns = [*tables.CATEGORIES.values(), "Overall Avg."]
    comparison = pd.DataFrame(
        {
            "Table 7 dense": printed["dense_6_1b"], "ours dense": ours["dense"],
            "Table 2 dense": [t2.loc["Dense-6.1B", c] for c in columns],
            "Table 7 MoE-mini": printed["moe_mini"], "ours MoE-mini": ours["moe"],
            "Table 2 MoE-mini": [t2.loc["MoE-mini (A0.8B)", c] for c in columns],
        }
    )
    return comparison.rename_axis("category").reset_index()


def leverage_activation_ratios() -> pd.DataFrame:
    """The activation ratios the leverage paper's text prints beside the two readings of A
    (Sec. 2.1's (E_a + E_s)/(E + E_s) and E_a/E), in %, with the reading each one matches."""
    from moelaws.leverage import checks

    mini = checks.moe_mini()
    t9 = checks.table_metrics(9)
    e1 = (4 + 1) / (64 + 1)
    rows = pd.DataFrame(
        [
            ("Sec. 4.1, App. F.1: Table 8's lowest A", "0.8 %", 3 / 257, 2 / 256, "E_a/E"),
            ("Fig. 4b: Table 9's A", "3.1 %", t9["A"].iloc[0], t9["A_routed"].iloc[0], "E_a/E"),
            ("Sec. 1: the headline model (MoE-mini)", "3.1 %", mini["A"], mini["A_routed"],
             "E_a/E"),
            ("Sec. 5: MoE-mini", "3.4 %", mini["A"], mini["A_routed"], "Sec. 2.1"),
            ("App. E.1: 4 of 64 plus one shared", "7.8 %", e1, 4 / 64, "(E_a+E_s)/E = 5/64"),
        ],
        columns=["where", "printed", "Sec. 2.1 A", "E_a/E", "matches"],
    )
    return rows.assign(**{"Sec. 2.1 A": 100 * rows["Sec. 2.1 A"], "E_a/E": 100 * rows["E_a/E"]}
                       ).rename(columns={"Sec. 2.1 A": "Sec. 2.1 A (%)", "E_a/E": "E_a/E (%)"})


def data_tables() -> dict[str, DataTable]:
    """The leverage paper's data tables, by name (its adapter's ``data_tables`` role)."""
    return {
        "leverage-benchmark-averages": DataTable(
            paper="leverage",
            caption="Tables 7 and 2 (paper) vs ours: category and overall benchmark averages, "
                    "ours the means of Table 7's per-benchmark scores",
            source="Table 7 (per-benchmark scores and averages) and Table 2 (averages)",
            load=leverage_benchmark_averages,
        ),
        "leverage-activation-ratios": DataTable(
            paper="leverage",
            caption="The activation ratios the paper prints vs ours under the two readings of A",
            source="Sec. 1, 4.1, 5, Fig. 4b and App. E.1, F.1 (printed); ours from Tables 1, 8, 9 "
                   "configurations",
            load=leverage_activation_ratios,
        ),
    }


# Every public function checks its arguments' kinds (a frame, a name) and turns a frame without
# the expected columns (KeyError) into a ValueError naming the argument.
guard_public(globals(), [n for n, v in list(globals().items())
                         if not n.startswith("_") and callable(v) and not isinstance(v, type)
                         and getattr(v, "__module__", None) == __name__])
