"""Every number in the chapters' prose is computed or quoted.

A number the book's code produces (a reproduced value, a fit, a toy-run result, a timing, a
count) is inserted with MyST-NB's ``{glue:text}`` from an executed cell, so prose and code cannot
drift apart. A number taken from a paper is quoted with its reference. This test scans the prose
of every chapter (``notebooks/*.md``: markdown text, inline and display math, admonitions and
exercise blocks; not code cells) and lists every other number as ``file:line: number  context``.

The rules, in order (a number is *tracked* when one applies):

1. **Glued**: the text of a ``{glue:text}`` / ``{glue}`` role, like every MyST role's target
   (``{cite:p}``, ``{ref}``, ``{numref}``, ``{eq}``), inline code and URLs are not prose.
2. **Quoted with a reference**: the sentence that holds the number names a reference: "Eq.",
   "Eqs.", "Table", "Tab.", "Sec.", "Section", "Fig.", "Figure", "App.", "Appendix",
   "Algorithm", "Alg." (each followed by its number or letter), or a ``{cite...}`` role.
   A display-math block (``$$ ... $$``, ``{math}``) or a Markdown table belongs to the sentence
   that introduces it and to the one that follows it; a heading is read with the first
   sentence under it. Sentences end at ``.``, ``!`` or ``?``
   followed by a capital (not after "Eq.", "Sec.", "App.", "e.g." and the like) or at a blank
   line.
3. **Reference numbers**: the number that follows one of those words, or "Chapter"/"chapter",
   "Step"/"step", "line" (a label, not a value), ranges and lists included ("Tables 8-10").
4. **Allow-list** (:data:`ALLOWED`), short and reviewed:
   - years 1990-2039;
   - whole numbers 0-10 written without a decimal point: structural constants of formulas
     (``1/(1+r)``, squares), ordinals and counts of things the text itself names ("two
     warnings", "the five papers");
   - round orders of magnitude, ``10^{k}`` or ``3\times10^{k}`` (``1e22``, ``3e20``): the
     scales the text names (the papers' compute budgets, a range's ends, a budget chosen as an
     input), not computed values;
   - other parameters of the text itself (an input it chooses, not a result), listed per
     chapter with the reason in :data:`INPUTS`;
   - numbers inside names (``log10``, ``Qwen3-235B-A22B``, ``H100``, ``d_model``, subscripts)
     and compound adjectives that name a configuration ("the 32-expert model", "a
     4096-token context");
   - the chapter's stated run time ("**Run time** under 30 seconds"), which
     ``tests/browser/test_timing.py`` checks against the build;
   - the chapter's stated reading time ("**Reading time** about 35 minutes, plus 45 for the
     exercises"), the authors' estimate of the reader's minutes: a parameter of the text, like the
     run time, not a value the code computes;
   - words in quotation marks, the paper's own words ("3.1 %").

Anything else is *untracked* and fails the test, listed with its place so it can be glued,
given its reference, or (for a parameter of the text itself) added to :data:`INPUTS` with a
reason.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("*.md"))

REFERENCE_WORDS = (r"Eqs?\.|Equations?|Tables?|Tab\.|Secs?\.|Sections?|Figs?\.|Figures?|"
                   r"App\.|Appendix|Appendices|Algorithms?|Alg\.")
LABEL_WORDS = REFERENCE_WORDS + r"|Chapters?|chapters?|Steps?|steps?|lines?|Lines?"
_REF_TARGET = r"[A-Z]?\d+(?:\.\d+)*[a-z]?|[A-Z](?:\.\d+)*"
REFERENCE = re.compile(rf"(?:\b(?:{REFERENCE_WORDS})\s*(?:{_REF_TARGET}))|\{{cite[:a-z]*\}}")
LABEL = re.compile(
    rf"\b(?:{LABEL_WORDS})\s*(?:{_REF_TARGET})"
    rf"(?:\s*(?:[-–,]|and|or|to)\s*(?:{_REF_TARGET}))*"
)

INPUTS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "04_comprehensive.md": (
        ("0.001", "(step 0.01 for $G$,", "the grid step we infer for Table 3's S ends"),
        ("0.0025", r"A small live run at $\sigma =", "the noise level the live run chooses"),
        ("20", "(4 starts;", "the live run's bootstrap resamples"),
        ("60", "Here it is on", "the size of the synthetic data set the fitting recipe draws"),
        ("0.11", "keep $G = 8$, $S =", "the explorer's default S, which exercise ex-04-flat keeps"),
        ("0.001", "does it stay within", "the loss tolerance exercise ex-04-flat chooses"),
    ),
    "05_constrained.md": tuple(
        (number, words, "a setting of the Qwen3 reading scan (the grid of inputs it tries)")
        for number, words in (("64", r"$k_\text{align} \le"), ("64", r"$\Gamma$ containing"),
                              ("64", r"(e.g. $\Gamma = \{32,"), ("128", r"$n_\text{exp} \le"),
                              ("256", "If the expert grid reaches"),
                              ("128", r"$k_\text{align} ="))
    ),
    "03_holistic.md": (
        ("95", "six points with", "the confidence level of our fit's intervals"),
        ("0.01", "Locate the budget to within", "the precision exercise ex-03-layer-drop asks for"),
    ),
    "07_five_laws.md": (
        ("350", "FLOPs, with", "the total-parameter budget 'One budget, five answers' chooses"),
        ("20", "total and", "that section's active-parameter budget (B)"),
        ("350", "fixed at", "the same total-parameter budget"),
        ("30", "from 2T to", "the upper end of the token counts the last section assumes"),
    ),
}
"""Numbers that are parameters of a chapter's own text (an input it chooses, not a result):
``{chapter file name: ((number as written, words just before it, reason), ...)}``."""

ALLOWED = {
    "years": (1990, 2039),
    "small whole numbers": (0, 10),
}
"""The generic exceptions of rule 4 (inclusive ranges)."""

# Numbers: 1,234 / 0.5 / 1e-3 / 5.28\times10^{16} / 10^{22} / 45 % / 30M / 7x.
NUMBER = re.compile(
    r"(?<![\w.\\^_{])(?<!\^\{)(?<!_\{)"
    r"(?:10\^\{?[-−]?\d+\}?"
    r"|\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+−]?\d+)?"
    r"(?:\s*(?:\\times|×|\\cdot)\s*10\^\{?[-−]?\d+\}?)?)"
    r"(?![\w.]*\d)"
)
# Names that carry digits: hyphenated model/file names (Qwen3-235B-A22B, GPT-4, MoE-mini-2),
# words with digits inside (log10, H100, A22B, fp16), subscripts, LaTeX commands and compound
# adjectives naming a configuration (32-expert, 4096-token).
NAME = re.compile(r"arXiv:\S+|\b\d+-(?=[a-z]{3,})|\b[A-Za-z][\w.]*(?:-[\w.]+)+|\b[A-Za-z]+\d[\w]*"
                  r"|_\{[^}]*\}|_\w|\\[A-Za-z]+")
ROLE = re.compile(r"\{[a-z:-]+\}`[^`]*`")
CODE = re.compile(r"``[^`]*``|`[^`]*`")
URL = re.compile(r"https?://\S+|\]\([^)]*\)|<[^>]+>")
# The chapter's stated run-time bound, checked against the build by tests/browser/test_timing.py.
RUN_TIME = re.compile(r"\*\*Run time\.?\*\*\.?\s+under\s+\d+\s+(?:seconds?|minutes?)")
# The chapter's stated reading time: an authored estimate, like the run time.
READING_TIME = re.compile(r"\*\*Reading time\.?\*\*\.?\s+about\s+\d+\s+minutes"
                          r"(?:,\s+plus\s+(?:about\s+)?\d+(?:[-–]\d+)?\s+for the exercises)?")
# Words in quotation marks are the paper's own words.
QUOTE = re.compile('"[^"]{1,80}"|“[^”]{1,80}”')
_ABBREVIATIONS = ("Eq.", "Eqs.", "Sec.", "Secs.", "Fig.", "Figs.", "App.", "Tab.", "Alg.", "e.g.",
                  "i.e.", "cf.", "vs.", "al.", "approx.")
SENTENCE_END = re.compile("".join(f"(?<!{re.escape(a)})" for a in _ABBREVIATIONS)
                          + r"(?<=[.!?])\s+(?=[A-Z*(\[$])|\n\s*\n")


@dataclass(frozen=True)
class Untracked:
    path: Path
    line: int
    number: str
    context: str

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}: {self.number}    …{self.context}…"


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """The chapter's prose, line by line (1-based numbers): front matter, code cells and other
    fenced blocks, cell markers, comments, labels and directive options are blanked; a
    ``{math}`` block's body is kept as display math between ``$$`` lines."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[tuple[int, str]] = []
    fence: str | None = None
    math = False
    in_front = bool(lines) and lines[0].strip() == "---"
    for i, line in enumerate(lines, start=1):
        stripped = line.strip()
        if in_front:
            in_front = not (i > 1 and stripped == "---")
            out.append((i, ""))
            continue
        if fence is not None:
            closing = stripped.startswith(fence) and stripped.strip(fence[0]) == ""
            if closing:
                fence = None
            out.append((i, "$$" if closing and math else (line if math else "")))
            continue
        opening = re.match(r"^(`{3,}|~{3,})\s*(?:\{([\w:-]+)\})?", stripped)
        if opening:
            fence, math = opening.group(1), opening.group(2) == "math"
            out.append((i, "$$" if math else ""))
            continue
        if (stripped.startswith(("+++", "<!--")) or re.match(r"^\([\w-]+\)=$", stripped)
                or re.match(r"^:[\w-]+:", stripped)):
            out.append((i, ""))
            continue
        # ::: fences of admonitions and exercises: keep a title written after the directive.
        out.append((i, re.sub(r"^:{3,}\s*(\{[\w:-]+\})?", "", line)))
    return out


def _strip_non_prose(text: str) -> str:
    """Blank (same length, so offsets stay) everything that is not prose: roles, code, URLs,
    names with digits, reference labels."""
    def blank(m: re.Match) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))

    for pattern in (ROLE, CODE, URL, RUN_TIME, READING_TIME, QUOTE, LABEL, NAME):
        text = pattern.sub(blank, text)
    return text


def _value(token: str) -> float | None:
    t = token.replace(",", "").replace("−", "-")
    power = re.fullmatch(r"10\^\{?(-?\d+)\}?", t)
    if power:
        return None
    try:
        return float(t)
    except ValueError:
        return None


SCALE = re.compile(r"(?:[13]\s*(?:\\times|×|\\cdot)\s*)?10\^\{?[-−]?\d+\}?|[13]e[-+]?\d+")
"""A round order of magnitude, 10^k or 3×10^k: a scale the text names (a compute budget, a
range's end), not a computed value."""


def _allowed(token: str) -> bool:
    if SCALE.fullmatch(token):
        return True
    value = _value(token)
    if value is None:
        return False
    plain = re.fullmatch(r"\d+", token) is not None
    lo, hi = ALLOWED["years"]
    if plain and len(token) == 4 and lo <= value <= hi:
        return True
    lo, hi = ALLOWED["small whole numbers"]
    return plain and lo <= value <= hi


def scan(path: Path) -> list[Untracked]:
    """The untracked numbers of one chapter (rules in the module docstring)."""
    numbered = prose_lines(path)
    text = "\n".join(line for _, line in numbered)
    line_of = []
    for n, line in numbered:
        line_of.extend([n] * (len(line) + 1))
    original = text
    text = _strip_non_prose(text)
    # Sentences; a display-math block joins the sentences before and after it.
    bounds = [0] + [m.end() for m in SENTENCE_END.finditer(original)] + [len(text)]
    spans = list(itertools.pairwise(bounds))
    referenced = [bool(REFERENCE.search(original[a:b])) for a, b in spans]
    display = [("$$" in original[a:b] or original[a:b].lstrip().startswith("|"))
               for a, b in spans]
    # A heading is read with the sentence under it.
    for k in range(len(spans) - 2, -1, -1):
        if original[spans[k][0]:spans[k][1]].lstrip().startswith("#") and referenced[k + 1]:
            referenced[k] = True
    for k in range(len(spans)):
        if display[k]:
            for j in (k - 1, k + 1):
                if 0 <= j < len(spans) and referenced[j]:
                    referenced[k] = True
            if referenced[k] and k + 1 < len(spans):
                referenced[k + 1] = True
    inputs = INPUTS.get(path.name, ())
    found: list[Untracked] = []
    for (a, b), ref in zip(spans, referenced, strict=True):
        if ref:
            continue
        for m in NUMBER.finditer(text, a, b):
            token = m.group(0)
            before_text = " ".join(original[max(0, m.start() - 80): m.start()].split())
            if _allowed(token) or any(token == number and before_text.endswith(words)
                                      for number, words, _ in inputs):
                continue
            context = original[max(a, m.start() - 40): m.end() + 30].replace("\n", " ")
            found.append(Untracked(path, line_of[m.start()], token, context))
    return found


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_every_prose_number_is_glued_or_quoted(path):
    untracked = scan(path)
    assert not untracked, (
        f"{len(untracked)} number(s) in {path.name}'s prose are neither glued nor quoted with a "
        "reference (see tests/test_prose_numbers.py for the rules):\n"
        + "\n".join(str(u) for u in untracked))


def test_the_scan_finds_untracked_numbers(tmp_path):
    chapter = tmp_path / "99_probe.md"
    chapter.write_text(
        "---\nkernelspec: {}\n---\n\n# Probe\n\nOur fit gives 0.731 nats.\n"
        "Table 3 prints 0.52.\nWe glue {glue:text}`x:.3f` and quote \"3.1 %\".\n"
        "In 2025, two of the 3 runs.\n\n```{code-cell} ipython3\nx = 0.999\n```\n"
        "$$\nL = 1.87 + 576 C^{-0.158}\n$$\n\nwhich is Eq. 7.\n", encoding="utf-8")
    assert [(u.line, u.number) for u in scan(chapter)] == [(7, "0.731")]


def test_formulas_headings_and_inputs_follow_their_rules(tmp_path, monkeypatch):
    chapter = tmp_path / "98_probe.md"
    chapter.write_text(
        "# Probe\n\n## The 30-40 % band\n\nApp. F.4 finds 30-40 % near-optimal.\n\n"
        "Our curve:\n\n$$\nL = 2.5 + 0.31\\,x\n$$\n\nWe choose 128 experts, and get 0.42.\n",
        encoding="utf-8")
    assert [u.number for u in scan(chapter)] == ["2.5", "0.31", "128", "0.42"]
    monkeypatch.setitem(INPUTS, chapter.name, (("128", "We choose", "an input"),))
    assert [u.number for u in scan(chapter)] == ["2.5", "0.31", "0.42"]


def test_stated_run_and_reading_times_are_allowed_but_only_in_their_lines(tmp_path):
    chapter = tmp_path / "97_probe.md"
    chapter.write_text(
        "# Probe\n\n**Reading time** about 35 minutes, plus 60-90 for the exercises.\n\n"
        "**Run time** under 15 seconds on two CPU cores.\n\nThe exercises take 45 minutes.\n",
        encoding="utf-8")
    assert [u.number for u in scan(chapter)] == ["45"]


if __name__ == "__main__":
    total = 0
    for chapter in CHAPTERS:
        items = scan(chapter)
        total += len(items)
        print(f"== {chapter.name}: {len(items)}")
        for item in items:
            print(item)
    print(f"total untracked: {total}")
