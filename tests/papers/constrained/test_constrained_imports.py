"""The constrained paper's modules that chapters load without training import no torch."""

from __future__ import annotations

from import_checks import heavy_imports


def test_core_packages_do_not_import_torch_statsmodels_or_scipy_stats() -> None:
    assert heavy_imports(["moelaws", "moelaws.papers", "moelaws.constrained.toy"]) == "[]"
