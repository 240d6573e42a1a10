"""The constrained paper's cases of the claims audit (issue 19): the loss differences of
Tables 6 and 7."""

from __future__ import annotations

import pytest

from moelaws import claims
from moelaws.constrained import tables as con_tables

ALL = claims.all_claims()


def test_reference_rows_are_not_claims() -> None:
    for name in ("table6", "table7"):
        t = con_tables.loss_diffs(name)
        refs = t[t["half_width"] == 0]
        for r in refs.itertuples():
            g = f"g={r.g}, " if name == "table6" else ""
            ref = f"Table {name[-1]}, l={r.l}, d={r.d}, {g}n_exp={r.n_exp}, n_topk={r.n_topk}"
            assert not [c for c in ALL if c.paper == "constrained" and c.ref == ref
                        and "difference" in c.quantity]


def test_table7_loss_differences_are_undecidable() -> None:
    # Two-decimal losses leave an interval of about ±0.31 points around each difference: every
    # printed difference lies inside it, so none is reproduced and none contradicted.
    t7 = [c for c in ALL if c.ref.startswith("Table 7,") and c.quantity.startswith("loss")]
    assert len(t7) == 8
    assert all(c.expected == "undecidable" and c.tolerance is None for c in t7)
    assert all(c.ours_range is not None and len(c.inputs) == 2 for c in t7)


def test_table6_interval_is_the_derived_rounding_interval() -> None:
    t6 = con_tables.loss_diffs("table6")
    t6 = t6[t6["half_width"] > 0]
    c6 = [c for c in ALL if c.ref.startswith("Table 6,") and c.quantity.startswith("loss")]
    assert len(c6) == len(t6)
    for claim, r in zip(c6, t6.itertuples(), strict=True):
        # One rounding rule: the printed tolerance, with the losses' rounding as an interval.
        assert claim.tolerance is None
        assert claim.tol == pytest.approx(con_tables.half_unit(r.loss_diff_pct))
        assert claim.ours_range is not None
        assert claim.ours_range() == pytest.approx((r.lower, r.upper), rel=1e-12)
        assert f"[{r.lower:.4f}, {r.upper:.4f}] %" in claim.explanation
        assert claim.expected == r.status
