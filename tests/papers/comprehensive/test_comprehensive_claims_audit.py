"""The comprehensive paper's cases of the claims audit (issue 19)."""

from __future__ import annotations

import pytest

from moelaws import claims
from moelaws import comprehensive as cl

ALL = claims.all_claims()


# --- the cases the audit of issue 19 found ----------------------------------------------------
def test_appendix_h_width_is_an_input_not_a_claim() -> None:
    h = [c for c in ALL if c.ref.startswith("App. H, N_a sweep")]
    assert h and not [c for c in h if "d_expert" in c.quantity]
    assert all(any("d_expert" in i for i in c.inputs) for c in h)
    printed = cl.read_table("appendix_h")["d_expert"].to_numpy(dtype=float)
    assert cl.appendix_h_u() == pytest.approx(printed / 224)
