"""The five laws side by side.

Modules: :mod:`~moelaws.compare.tokens` (training tokens of the presets, with sources),
:mod:`~moelaws.compare.regimes` (where each law was fitted), :mod:`~moelaws.compare.verdicts`
(what each law says about each preset), :mod:`~moelaws.compare.recommend` (each paper's
configuration for a budget), :mod:`~moelaws.compare.counting` (a configuration's counts under
every convention), :mod:`~moelaws.compare.report` (the command-line tables),
:mod:`~moelaws.compare.card` (the five conventions on one card),
:mod:`~moelaws.compare.granularity` (the papers' granularities translated at a fixed activated
width), :mod:`~moelaws.compare.mla` (the papers' attention FLOPs with MLA counted by
its real weights), :mod:`~moelaws.compare.compute_optimal` (the compute-optimal
answers in one FLOP count, disagreements split into counting and substance) and
:mod:`~moelaws.compare.calculator` (the static design calculator's grid). Import them
directly: this package imports nothing eagerly, so that ``python -m moelaws counts`` starts
fast.
"""
