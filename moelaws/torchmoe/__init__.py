"""A small PyTorch MoE language model for toy-scale experiments (imports torch).

``import moelaws`` does not import torch; this subpackage does.

>>> from moelaws.arch import MoEConfig
>>> from moelaws.torchmoe import MoETransformer
>>> cfg = MoEConfig(n_layers=2, d_model=64, n_heads=4, n_experts=8, top_k=2, d_expert=64,
...                 vocab_size=100, context_length=32)
>>> model = MoETransformer(cfg, dispatch="sorted")

Modules: :mod:`~moelaws.torchmoe.model` (model, MoE layer, dispatchers),
:mod:`~moelaws.torchmoe.data` (offline corpora), :mod:`~moelaws.torchmoe.train` (training loop
and expert-load statistics), :mod:`~moelaws.torchmoe.specialisation` (what an expert's choice
tells about its token's group, with a token-only ceiling),
:mod:`~moelaws.torchmoe.runs` (cached runs),
:mod:`~moelaws.torchmoe.sweep` (the named sweeps and their command line),
:mod:`~moelaws.torchmoe.bench` (throughput benchmark).
"""

from moelaws.torchmoe.model import (
    DISPATCHES,
    MAX_PARAMS,
    MoELayer,
    MoEOutput,
    MoETransformer,
    Routing,
    available_dispatches,
    balance_loss,
    route,
    z_loss,
)

__all__ = [
    "DISPATCHES",
    "MAX_PARAMS",
    "MoELayer",
    "MoEOutput",
    "MoETransformer",
    "Routing",
    "available_dispatches",
    "balance_loss",
    "route",
    "z_loss",
]
