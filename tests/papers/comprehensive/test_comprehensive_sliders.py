"""The comprehensive explorer's sliders sit on their grids."""

from __future__ import annotations

from moelaws import sliders


def test_comprehensive_explorer_sliders_are_on_their_grids() -> None:
    from moelaws.comprehensive import views

    assert sliders.check_spec(views.explorer_chart().to_dict()) == 5
