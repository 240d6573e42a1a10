"""moelaws: helpers for an executable book on Mixture-of-Experts scaling laws.

Subpackages: :mod:`moelaws.arch` (configurations, counted exactly and by each paper's formulas;
:mod:`moelaws.conventions` counts under any convention by name),
:mod:`moelaws.fit` (the book's scaling-law fitting recipe), :mod:`moelaws.claims` (the registry
of every reproduced number), :mod:`moelaws.charts` (offline Altair rendering), and one
subpackage per paper, each exposing its adapter ``moelaws.<paper>.paper.PAPER``; the registry of
papers, in reading order, is :mod:`moelaws.papers`. Importing ``moelaws`` does not import
torch.
"""

__version__ = "0.1.0"
