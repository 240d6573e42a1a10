"""The comprehensive paper's granularity of a configuration also takes a Hugging Face config
(issue 17, section 1): the same result for every form, a clear refusal of anything else."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from hf_forms import BAD, MODELS, config_forms, same

from moelaws.arch.hf_config import HF_CONFIG_PARAMETER
from moelaws.comprehensive import counting

# name -> call taking the configuration in any accepted form
CALLS: dict[str, Callable[[Any], Any]] = {
    "comprehensive.counting.granularity": counting.granularity,
}
DOCUMENTED = [counting.granularity]
"""The functions behind CALLS whose docstrings must describe the accepted forms."""


@pytest.fixture(scope="module", params=MODELS)
def forms(request: pytest.FixtureRequest) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # both stored configs convert without a warning
        return config_forms(request.param)


@pytest.mark.parametrize("name", list(CALLS))
def test_every_form_gives_the_same_result(name: str, forms: dict[str, Any]) -> None:
    call = CALLS[name]
    expected = call(forms["MoEConfig"])
    for label, form in forms.items():
        same(call(form), expected, f"{name} with a {label}")


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("bad", BAD, ids=lambda b: type(b).__name__)
def test_a_bad_type_is_refused_naming_the_accepted_ones(name: str, bad: Any) -> None:
    with pytest.raises(ValueError, match=r"MoEConfig.*dict.*config\.json.*directory"):
        CALLS[name](bad)


@pytest.mark.parametrize("fn", DOCUMENTED, ids=lambda f: f"{f.__module__}.{f.__name__}")
def test_each_docstring_names_the_accepted_forms(fn: Callable[..., Any]) -> None:
    assert HF_CONFIG_PARAMETER in (fn.__doc__ or "")
