"""Every public function that takes a configuration also takes a Hugging Face config: the
parsed dict, the path to ``config.json`` or the directory holding it (issue 17, section 1).

For two stored configs (Mixtral-8x7B-v0.1: plain MoE; DeepSeek-V3: MLA, shared experts, dense
first layers) each function must return exactly what it returns for the converted
``MoEConfig``; anything else must be refused with a ``ValueError`` naming the accepted types.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hf_forms import BAD, HF_DIR, MODELS, config_forms, same

from moelaws import arch, conventions, papers
from moelaws.arch.hf_config import HF_CONFIG_PARAMETER
from moelaws.compare import card, counting, recommend, verdicts

TOKENS = 1e12

CONVENTIONS = conventions.names()
"""Every counting convention (each call that takes one is checked under each; the papers'
folders check the ratios whose conventions only some papers define)."""
PAPER_VERDICTS = {p.id: p.verdict for p in papers.having("verdict")}
PAPER_RATIOS = {p.id: p.ratios for p in papers.having("ratios")}


def _report(x: Any) -> dict[str, Any]:
    # The configuration block names the model and its source, which differ by how the config
    # was given (a dict has no file name); every count and ratio must not.
    out = counting.counts_report(x)
    out["config"] = {k: v for k, v in out["config"].items() if k not in ("name", "source")}
    return out


# name -> call taking the configuration in any accepted form
CALLS: dict[str, Callable[[Any], Any]] = {
    "arch.attention_weights": arch.attention_weights,
    "arch.expert_weights": lambda x: arch.expert_weights(x, 2048),
    "arch.router_weights": arch.router_weights,
    "arch.embedding_params": arch.embedding_params,
    "arch.counts": arch.counts,
    "arch.total_params": lambda x: arch.total_params(x, embeddings=True),
    "arch.active_params": arch.active_params,
    "arch.flops": lambda x: arch.flops(x, training=False),
    **{f"conventions.counts[{c}]": (lambda x, c=c: conventions.counts(x, c))
       for c in conventions.names()},
    **{f"conventions.total_params[{c}]": (
        lambda x, c=c: conventions.total_params(x, c, embeddings=True)) for c in CONVENTIONS},
    **{f"conventions.active_params[{c}]": (lambda x, c=c: conventions.active_params(x, c))
       for c in CONVENTIONS},
    **{f"conventions.flops[{c}]": (lambda x, c=c: conventions.flops(x, c, training=False))
       for c in CONVENTIONS},
    "arch.activation_ratio": arch.activation_ratio,
    **{f"conventions.granularity[{p.id}]": (lambda x, i=p.id: conventions.granularity(x, i))
       for p in papers.having("granularity")},
    "arch.sharing_ratio": arch.sharing_ratio,
    **{f"conventions.sparsity[{p.id}]": (lambda x, i=p.id: conventions.sparsity(x, i))
       for p in papers.having("sparsity")},
    **{f"ratios[{p.id}]": p.ratios for p in papers.having("ratios")},
    "conventions.all_ratios": conventions.all_ratios,
    "conventions.table": conventions.table,
    "conventions.presets_table": lambda x: conventions.presets_table([x]).reset_index(drop=True),
    "compare.counts_report": _report,
    "compare.convention_card": card.convention_card,
    **{f"compare.arch_checks[{p}]": (lambda x, p=p: recommend.arch_checks(x, p))
       for p in papers.ids("recommend")},
    "compare.require_moe": verdicts.require_moe,
    "compare.caveats": verdicts.caveats,
    **{f"{p}.verdict": (lambda x, f=f: f(x, TOKENS)) for p, f in PAPER_VERDICTS.items()},
    **{f"{p}.ratios": f for p, f in PAPER_RATIOS.items()},
}

# The functions behind CALLS whose docstrings must describe the accepted forms.
DOCUMENTED = [
    arch.attention_weights, arch.expert_weights, arch.router_weights, arch.embedding_params,
    arch.counts, arch.total_params, arch.active_params, arch.flops, arch.activation_ratio,
    conventions.granularity, arch.sharing_ratio, conventions.sparsity, arch.as_config,
    conventions.counts, conventions.total_params,
    conventions.active_params, conventions.flops, conventions.all_ratios, conventions.table,
    counting.counts_report, card.convention_card, recommend.arch_checks,
    verdicts.require_moe, verdicts.caveats,
    *PAPER_VERDICTS.values(), *PAPER_RATIOS.values(),
]


@pytest.fixture(scope="module", params=MODELS)
def forms(request: pytest.FixtureRequest) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # both stored configs convert without a warning
        return config_forms(request.param)


def test_as_config_gives_the_same_configuration(forms: dict[str, Any]) -> None:
    reference = forms["MoEConfig"]
    assert arch.as_config(reference) is reference
    for label, form in forms.items():
        converted = arch.as_config(form)
        assert isinstance(converted, arch.MoEConfig), label
        # Name and source say where the config came from; every counted field is the same.
        assert converted.replace(name=reference.name, source=reference.source) == reference, label


@pytest.mark.parametrize("name", list(CALLS))
def test_every_form_gives_the_same_result(name: str, forms: dict[str, Any]) -> None:
    call = CALLS[name]
    expected = call(forms["MoEConfig"])
    for label, form in forms.items():
        same(call(form), expected, f"{name} with a {label}")


def test_the_results_are_real_counts(forms: dict[str, Any]) -> None:
    """The equalities above compare numbers, not empty results: the exact totals are the
    converter's (tests/test_hf_config.py checks them against the vendors' stated sizes)."""
    total = arch.total_params(forms["dict"], embeddings=True)
    assert total == pytest.approx(
        {"mixtral": 46.70e9, "deepseek_v3": 671.0e9}[forms["dict"]["model_type"]], rel=0.02
    )


def test_the_public_guard_passes_a_config_through() -> None:
    """moelaws.arch wraps its public functions with moelaws.validation.public; the
    configuration argument must reach the conversion unchecked, by position or by name."""
    directory = HF_DIR / MODELS[0]
    data = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    assert getattr(arch.counts, "__wrapped_public__", False)
    expected = arch.counts(arch.from_hf_config(directory)).total
    assert arch.counts(cfg=data).total == expected
    assert arch.counts(directory / "config.json", convention="exact").total == expected
    assert arch.total_params(cfg=str(directory)) == expected


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("bad", BAD, ids=lambda b: type(b).__name__)
def test_a_bad_type_is_refused_naming_the_accepted_ones(name: str, bad: Any) -> None:
    with pytest.raises(ValueError, match=r"MoEConfig.*dict.*config\.json.*directory"):
        CALLS[name](bad)


def test_a_dict_or_path_that_is_no_hf_config_is_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"unsupported model_type None.*supported: "):
        arch.counts({"n_layers": 2, "d_model": 64})
    with pytest.raises(ValueError, match="no such configuration file"):
        arch.total_params(tmp_path / "missing")
    with pytest.raises(ValueError, match="no such configuration file"):
        conventions.all_ratios(str(tmp_path))


@pytest.mark.parametrize("fn", DOCUMENTED, ids=lambda f: f"{f.__module__}.{f.__name__}")
def test_each_docstring_names_the_accepted_forms(fn: Callable[..., Any]) -> None:
    assert HF_CONFIG_PARAMETER in (fn.__doc__ or "")


def test_the_torch_model_takes_a_hf_config() -> None:
    torchmoe = pytest.importorskip("moelaws.torchmoe")
    small = json.loads((HF_DIR / MODELS[0] / "config.json").read_text(encoding="utf-8"))
    small.update(hidden_size=32, intermediate_size=48, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=2, num_local_experts=4,
                 vocab_size=64)
    cfg = arch.from_hf_config(small)
    model = torchmoe.MoETransformer(small)
    assert model.cfg == cfg
    n = sum(p.numel() for p in model.parameters())
    assert n == sum(p.numel() for p in torchmoe.MoETransformer(cfg).parameters()) > 0
    with pytest.raises(ValueError, match=r"MoEConfig.*dict"):
        torchmoe.MoETransformer(3)
    # train converts before anything else: a vocabulary that is not the corpus's is reported
    # from the converted config (no training step runs).
    from moelaws.torchmoe.train import train

    with pytest.raises(ValueError, match=r"cfg.vocab_size \(64\) != corpus vocabulary"):
        train(small, progress=False)
    with pytest.raises(ValueError, match=r"MoEConfig.*dict"):
        train(3, progress=False)
