"""Teaching tools: the chapters' exercises and the generated student edition.

:mod:`moelaws.teaching.exercises` finds a chapter's exercises and their solutions;
:mod:`moelaws.teaching.student` writes the student edition (``python -m
moelaws.teaching.student notebooks/*.md -o DIR``; import it as a module, it is not re-exported
here so that ``python -m`` runs it cleanly).
"""

from moelaws.teaching.exercises import KINDS, SOLUTION_TAG, Exercise, find_exercises

__all__ = ["KINDS", "SOLUTION_TAG", "Exercise", "find_exercises"]
