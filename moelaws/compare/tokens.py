"""Training-token counts of the presets, with where each number comes from.

The laws that need a compute budget (leverage, holistic, allocation, and the comprehensive
law's compute-optimal loss) need the number of tokens D a model was trained on; C = D x (that
paper's compute per token). Where a developer has not published D the entry is ``None`` and
those quantities are not computable unless the caller supplies an assumption.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from moelaws import arch


@dataclass(frozen=True)
class TrainingTokens:
    """Pre-training tokens of one model and the source of the number.

    Attributes
    ----------
    tokens
        Pre-training tokens, or ``None`` if unpublished.
    source
        Where the number comes from (or why there is none).
    assumed
        ``True`` when the number is a caller's assumption, not a published figure.
    """

    tokens: float | None
    source: str
    assumed: bool = False


PUBLISHED_TOKENS: dict[str, TrainingTokens] = {
    "DeepSeek-V3": TrainingTokens(
        14.8e12, "DeepSeek-V3 technical report: pre-trained on 14.8T tokens"
    ),
    "Kimi-K2": TrainingTokens(15.5e12, "Kimi K2 technical report: pre-trained on 15.5T tokens"),
    "Qwen3-235B-A22B": TrainingTokens(
        36e12, "Qwen3 technical report: all Qwen3 models pre-trained on about 36T tokens"
    ),
    "Qwen3-30B-A3B": TrainingTokens(
        36e12, "Qwen3 technical report: all Qwen3 models pre-trained on about 36T tokens"
    ),
    "gpt-oss-120b": TrainingTokens(
        None, "not published (the gpt-oss model card says only 'trillions of tokens')"
    ),
    "gpt-oss-20b": TrainingTokens(
        None, "not published (the gpt-oss model card says only 'trillions of tokens')"
    ),
    "Mixtral-8x7B": TrainingTokens(None, "not published (Jiang et al. 2024 give no token count)"),
    "OLMoE-1B-7B": TrainingTokens(
        5.0e12,
        "OLMoE paper abstract and Ai2 release post: pre-trained on 5 trillion tokens (we use the "
        "rounded 5T that both print; a more precise count, if the paper's body gives one, moves "
        "C by a few per cent)",
    ),
    "MoE-mini": TrainingTokens(
        1.0e12, "Leverage paper, abstract and Sec. 5: MoE-mini trained on 1T tokens"
    ),
    "Dense-6.1B": TrainingTokens(
        1.0e12, "Leverage paper, abstract and Sec. 5: Dense-6.1B trained on 1T tokens"
    ),
}
"""Published pre-training tokens per preset of :data:`moelaws.arch.PRESETS`."""


def _preset_names(label: str, models: object) -> list[str]:
    """``models`` (a list or tuple of preset names, not empty) as a list, or a ``TypeError`` /
    ``ValueError`` naming ``label``; ``arch.preset`` refuses an unknown name."""
    if isinstance(models, (str, bytes)) or not isinstance(models, (list, tuple)):
        raise TypeError(f"{label} must be a list of preset names, not {type(models).__name__}")
    if not models:
        raise ValueError(f"{label} is empty; give at least one preset name")
    for name in models:
        if not isinstance(name, str):
            raise TypeError(f"{label} must hold preset names (strings), not "
                            f"{type(name).__name__}")
        arch.preset(name)
    return list(models)


def _check_assumed(assumed: Mapping[str, float]) -> None:
    """Every key of ``assumed`` names a preset: a misspelt one would be silently ignored."""
    for k in assumed:
        if not isinstance(k, str):
            raise TypeError(f"assumed: keys must be preset names, not {type(k).__name__}")
        try:
            arch.preset(k)
        except ValueError as exc:
            raise ValueError(f"assumed: {exc}") from None


def training_tokens(name: str, assumed: Mapping[str, float] | None = None) -> TrainingTokens:
    """The training tokens of a preset: an assumption from ``assumed`` if given, else published.

    Parameters
    ----------
    name
        A preset name (case-insensitive).
    assumed
        Optional ``{preset name: tokens}`` assumptions; they override published numbers and are
        marked ``assumed=True``.

    Returns
    -------
    TrainingTokens

    Raises
    ------
    ValueError
        For an unknown preset (``name`` or a key of ``assumed``) or a non-positive assumed
        token count.
    """
    key = arch.preset(name).name
    if assumed is not None:
        _check_assumed(assumed)
    if assumed:
        for k, v in assumed.items():
            if k.lower() == key.lower():
                if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                    raise ValueError(f"assumed tokens for {key} must be positive, got {v!r}")
                return TrainingTokens(float(v), "assumed by the caller (not published)", True)
    return PUBLISHED_TOKENS.get(key, TrainingTokens(None, "no token count recorded"))


__all__ = ["PUBLISHED_TOKENS", "TrainingTokens", "training_tokens"]

from moelaws.validation import guard_public  # noqa: E402

guard_public(globals(), __all__)
