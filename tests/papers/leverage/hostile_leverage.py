"""The leverage paper's part of the hostile-input sweep (``tests/test_hostile_sweep.py``
collects it): base calls a parameter's name alone does not give, and the slow functions'
share of hostile kinds."""

from __future__ import annotations

from typing import Any

import numpy as np


def per_function() -> dict[str, dict[str, Any]]:
    """Base calls a name alone does not give (the function's own example arguments)."""
    from test_hostile_sweep import curve_points

    return {
        "leverage.fit_loss_curve": {"points": curve_points()},
        "leverage.leverage_from_loss_curves": {"C": np.geomspace(1e17, 1e19, 3)},
    }


KINDS_PER_PARAMETER: dict[str, int] = {  # measured seconds, as in the sweep's own list
    "leverage.fit_loss_curve": 4,  # 0.036 s a call, 2 parameters
    "leverage.leverage_from_loss_curves": 1,  # 0.140 s a call, 4 parameters
}
