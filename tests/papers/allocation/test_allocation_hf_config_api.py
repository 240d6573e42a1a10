"""The allocation paper's functions that take a configuration also take a Hugging Face config
(issue 17, section 1): the same result for every form, a clear refusal of anything else."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from hf_forms import BAD, HF_DIR, MODELS, config_forms, same

from moelaws import allocation
from moelaws.allocation import counting
from moelaws.arch.hf_config import HF_CONFIG_PARAMETER

# name -> call taking the configuration in any accepted form
CALLS: dict[str, Callable[[Any], Any]] = {
    "allocation.flops_split": allocation.flops_split,
    "allocation.counting.expert_attention_ratio": counting.expert_attention_ratio,
}
DOCUMENTED = [allocation.flops_split, counting.expert_attention_ratio]
"""The functions behind CALLS whose docstrings must describe the accepted forms (the others are
checked by tests/test_hf_config_api.py)."""


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


def test_config_for_ratio_takes_its_base_as_a_hf_config() -> None:
    """Its configuration argument is ``base``, by position or by name; its result is named
    after the base, so names aside the configurations must be equal."""
    assert "base : MoEConfig or Hugging Face config (dict, path or directory)" in (
        allocation.config_for_ratio.__doc__ or "")
    forms = config_forms(MODELS[0])
    expected = allocation.config_for_ratio(forms["MoEConfig"], 2.0)
    for label, form in forms.items():
        for got in (allocation.config_for_ratio(form, 2.0),
                    allocation.config_for_ratio(base=form, r=2.0)):
            assert got.replace(name=expected.name, source=expected.source) == expected, label
    with pytest.raises(ValueError, match=r"MoEConfig.*dict.*config\.json.*directory"):
        allocation.config_for_ratio(base=2.0, r=2.0)
    with pytest.raises(ValueError, match="without dense layers or MLA"):
        allocation.config_for_ratio(HF_DIR / "DeepSeek-V3", 2.0)
