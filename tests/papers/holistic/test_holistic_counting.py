"""The holistic paper's counting convention (App. A), by hand."""

from __future__ import annotations

from test_arch import TINY

from moelaws import conventions


def test_holistic_convention_matches_appendix_a_by_hand() -> None:
    c = conventions.counts(TINY, "holistic")
    # Eq. 10 with N_q = 2, N_kv = 1, d_qkv = 4, d = 8, d_d = 16, d_m = 4, K = 2, one shared
    na = 2 * 8 * 4 * (2 + 1) * 2 + 3 * 8 * 16 * 1 + 1 * (2 * 3 * 8 * 4 + 3 * 8 * 4)
    assert c.active == na
    assert c.total == na + 3 * 8 * 4 * (4 - 2) * 1
    assert c.compute_per_token == 6 * na + 6 * 6 * 2 * 4 * 2  # Eq. 12, S = context length
