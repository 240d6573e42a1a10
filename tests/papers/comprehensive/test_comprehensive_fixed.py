"""recovery.identifiability with constants held fixed."""

import pytest

from moelaws.comprehensive import recovery


def test_holding_k_fixed_removes_most_of_the_structure_constants_error():
    X = recovery.experiment_points("fitting")
    free = recovery.identifiability(X, 0.0025)
    held = recovery.identifiability(X, 0.0025, fixed=("k",))
    assert held.loc["k", "se"] == 0 and free.loc["k", "rel_se"] > 100
    # e, f, m, n, h correlate with log k: about 180 % free, about 25 % with k held.
    assert (held.loc[["e", "f", "m", "n", "h"], "rel_se"] < 0.35).all()
    assert (free.loc[["e", "f", "m", "n", "h"], "rel_se"] > 1.5).all()
    # Constants that do not trade off against k barely move.
    assert held.loc["beta", "rel_se"] == pytest.approx(free.loc["beta", "rel_se"], rel=1e-2)
    with pytest.raises(ValueError, match="unknown constants"):
        recovery.identifiability(X, 0.0025, fixed=("kappa",))
