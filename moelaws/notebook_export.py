"""Turn an executed chapter notebook into a standalone notebook that reads well in any client.

The chapters are MyST Markdown: the book (Sphinx, MyST-NB) resolves their glue roles,
directives, glossary terms, cross-references and citations. JupyterLab, Notebook 7, VS Code and
Colab render plain (CommonMark + GFM) Markdown with ``$...$`` math and nothing more, so a
downloaded notebook would show ``{glue:text}`key:.2f``` where the book shows a number.
:func:`export_notebook` rewrites every markdown cell into plain Markdown:

* glue roles (``{glue:text}`key:fmt```, ``{glue}`key```, ``other.md::key``) become the value
  MyST-NB glued, formatted exactly as the book formats it
  (``myst_nb.core.variables.format_plain_text``);
* admonitions (``:::{admonition}``, ``{note}``, ``{tip}``, ...) become block quotes with a bold
  title; ``{list-table}`` (the fact cards) a Markdown table; the gated exercises a heading
  "Exercise N: title" (numbered per chapter, as the book numbers them) and "Solution to
  Exercise N"; ``{figure}`` an image with its caption; ``{math}`` a ``$$`` block; any other
  directive a block quote titled with its name;
* roles become text: ``{term}`` its text, ``{doc}`` a link to the sibling ``.ipynb``,
  ``{cite:p}``/``{cite:t}`` "Author (Year)" from ``book/references.bib``, ``{ref}`` to an
  exercise "Exercise N", ``{math}`` ``$...$``, ``{eq}``/``{numref}`` the label;

and drops ``metadata.jupytext`` and puts a set-up cell first. The book's downloads
(``book/_ext/moelaws_pages.py``), the student edition and the command line use this one
converter::

    python -m moelaws.notebook_export --executed-dir _build/jupyter_execute/notebooks \\
        --out DIR [--student] notebooks/*.md
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

__all__ = [
    "SETUP_TAG",
    "GlueStore",
    "bib_labels",
    "chapter_titles",
    "convert_markdown",
    "export_chapter",
    "export_notebook",
    "install_requirement",
    "main",
    "setup_cell",
]

SETUP_TAG = "moelaws-setup"
"""Tag (and id) of the set-up cell that installs ``moelaws`` where it is missing."""

EXTRA = "notebook"
"""The optional-dependency extra (pyproject.toml) that a downloaded notebook needs."""

_SETUP_SOURCE = '''\
# Outside the book's environment (Colab, a fresh Jupyter, VS Code) moelaws is not installed
# yet: install it, with every package the chapters import, from the commit the book was built
# from. Where moelaws is importable (the book's environment, Binder) this cell does nothing.
import importlib.util
import subprocess
import sys

if importlib.util.find_spec("moelaws") is None:
    package = "{requirement}"
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", package])'''

_ADMONITIONS = {
    "admonition", "attention", "caution", "danger", "error", "hint", "important", "note",
    "seealso", "tip", "warning", "dropdown", "topic", "sidebar", "margin", "card",
}
_DROPPED = {"toctree", "tableofcontents", "bibliography", "exercise-end", "solution-end"}
_CODE = {"code-block", "code", "sourcecode"}

_FENCE_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:.-]+)\}[ \t]*(?P<arg>.*)$")
_PLAIN_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?!.*`)")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):[ \t]*(?P<value>.*)$")
_ROLE = re.compile(r"\{(?P<role>[a-z][\w:.-]*)\}`(?P<text>[^`]+)`")
_TARGET = re.compile(r"^\([\w:.-]+\)=\s*$")
_COMMENT = re.compile(r"^%")
_EXPLICIT = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.S)


# ----------------------------------------------------------------------------- set-up cell


def install_requirement(repository_url: str, revision: str) -> str:
    """The pip requirement that installs ``moelaws[notebook]`` from ``repository_url``.

    Parameters
    ----------
    repository_url
        ``https://github.com/ORG/REPO`` (``_config.yml``'s ``repository: url:``).
    revision
        The commit the book was built from (or, outside a git checkout, a branch).
    """
    return f"moelaws[{EXTRA}] @ git+{repository_url.rstrip('/')}@{revision}"


def setup_cell(requirement: str) -> dict[str, Any]:
    """The code cell that pip-installs ``requirement`` when ``moelaws`` is not importable."""
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": SETUP_TAG,
        "metadata": {"tags": [SETUP_TAG]},
        "outputs": [],
        "source": _SETUP_SOURCE.format(requirement=requirement),
    }


def build_revision(root: str | Path, fallback: str) -> str:
    """``git rev-parse HEAD`` of ``root``, or ``fallback`` (a branch) outside a git checkout."""
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return fallback
    return result.stdout.strip() or fallback


# ----------------------------------------------------------------------------- glue values


class GlueStore(Mapping[str, Any]):
    """The glue values of one executed chapter, and of its siblings on demand.

    MyST-NB writes ``NAME.glue.json`` beside ``NAME.ipynb`` in ``_build/jupyter_execute``:
    ``{key: output}``, each output a display bundle (``{"data": {"text/plain": ...}}``). Keys
    ``"other.md::key"`` (a role gluing from another chapter) are read from
    ``other.glue.json`` in the same folder.
    """

    def __init__(self, folder: str | Path, name: str, own: Mapping[str, Any] | None = None):
        self.folder = Path(folder)
        self.name = name
        self._own = dict(own) if own is not None else self._load(name)
        self._others: dict[str, dict[str, Any]] = {}

    def _load(self, name: str) -> dict[str, Any]:
        path = self.folder / f"{name}.glue.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}

    def __getitem__(self, key: str) -> Any:
        if "::" not in key:
            return self._own[key]
        doc, inner = key.split("::", 1)
        name = Path(doc).with_suffix("").name
        if name not in self._others:
            self._others[name] = self._load(name)
        return self._others[name][inner]

    def __iter__(self) -> Iterator[str]:
        return iter(self._own)

    def __len__(self) -> int:
        return len(self._own)


def glue_data(notebook: Any) -> dict[str, Any]:
    """The glue outputs (``{key: output}``) a notebook executed outside MyST-NB holds.

    ``glue(..., display=False)`` writes a display bundle with ``scrapbook`` metadata and
    prefixed MIME types; MyST-NB's ``extract_glue_data`` reads them the same way.
    """
    found: dict[str, Any] = {}
    for cell in notebook.cells:
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            meta = output.get("metadata", {}).get("scrapbook")
            if not meta:
                continue
            cut = len(meta.get("mime_prefix", ""))
            found[meta["name"]] = {
                "data": {k[cut:]: v for k, v in output.get("data", {}).items()},
                "metadata": output.get("metadata", {}),
            }
    return found


def _strip_glue_outputs(notebook: Any) -> None:
    for cell in notebook.cells:
        if cell.get("cell_type") == "code":
            cell.outputs = [
                o for o in cell.get("outputs", [])
                if not o.get("metadata", {}).get("scrapbook", {}).get("mime_prefix")
            ]


def _glue_text(glue: Mapping[str, Any], key: str, fmt: str, role: str) -> str:
    try:
        value = glue[key]
    except KeyError:
        raise ValueError(f"glue key {key!r} has no value (role {{{role}}})") from None
    if not (isinstance(value, Mapping) and "data" in value):
        return format(value, fmt) if fmt else str(value)
    data = value["data"]
    if role == "glue:md" and "text/markdown" in data:
        return _joined(data["text/markdown"])
    if "text/plain" not in data:
        raise ValueError(f"glue key {key!r} has no text/plain value")
    from myst_nb.core.variables import format_plain_text

    return format_plain_text(_joined(data["text/plain"]), fmt)


def _joined(text: str | list[str]) -> str:
    return "".join(text) if isinstance(text, list) else text


def _split_glue(text: str) -> tuple[str, str]:
    """``(key, format)`` of a glue role's text, as MyST-NB's ``glue:text`` role splits it."""
    doc = ""
    if "::" in text:
        doc, text = text.split("::", 1)
        doc += "::"
    key, _, fmt = text.partition(":")
    return doc + key, fmt


# ----------------------------------------------------------------------------- citations


def bib_labels(bib: str | Path) -> dict[str, tuple[str, str]]:
    """``{key: (authors, year)}`` of a BibTeX file, authors as "Tian et al." (3 or more)."""
    from pybtex.database import parse_file
    from pybtex.richtext import Text

    def plain(latex: str) -> str:
        return str(Text.from_latex(latex)).replace("{", "").replace("}", "")

    labels = {}
    for key, entry in parse_file(str(bib)).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        names = [plain(" ".join(p.prelast_names + p.last_names)) for p in people]
        if not names:
            names = [plain(entry.fields.get("organization", key))]
        if len(names) == 1:
            who = names[0]
        elif len(names) == 2:
            who = f"{names[0]} and {names[1]}"
        else:
            who = f"{names[0]} et al."
        labels[key] = (who, plain(entry.fields.get("year", "n.d.")))
    return labels


def _cite(role: str, keys: str, bib: Mapping[str, tuple[str, str]]) -> str:
    parts = [bib.get(key, (key, "")) for key in (k.strip() for k in keys.split(","))]
    if role in ("cite:t", "cite:ts", "cite:label"):
        return ", ".join(f"{w} ({y})" if y else w for w, y in parts)
    if role in ("cite:year", "cite:yearpar"):
        return "; ".join(y or w for w, y in parts)
    return "(" + "; ".join(f"{w}, {y}" if y else w for w, y in parts) + ")"


# ----------------------------------------------------------------------------- markdown


@dataclass
class _Context:
    glue: Mapping[str, Any]
    bib: Mapping[str, tuple[str, str]]
    titles: Mapping[str, str]
    link: Callable[[str], str | None]
    exercises: dict[str, int] = field(default_factory=dict)
    counter: int = 0


def chapter_titles(sources: Sequence[str | Path]) -> dict[str, str]:
    """``{stem: first "# " heading}`` of chapter sources (``.md`` or ``.ipynb``)."""
    titles = {}
    for source in map(Path, sources):
        text = source.read_text(encoding="utf-8")
        if source.suffix == ".ipynb":
            nb = nbformat.reads(text, as_version=4)
            text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        match = re.search(r"^# (.+)$", text, re.M)
        if match:
            titles[source.stem] = match[1].strip()
    return titles


def _role(match: re.Match[str], ctx: _Context) -> str:
    role, text = match["role"], match["text"]
    explicit = _EXPLICIT.match(text)
    title, target = (explicit["title"], explicit["target"]) if explicit else ("", text)
    if role in ("glue", "glue:text", "glue:any", "glue:md"):
        key, fmt = _split_glue(text)
        return _glue_text(ctx.glue, key, fmt, role)
    if role == "term":
        return title or text
    if role == "doc":
        name = target.rstrip("/").split("/")[-1]
        label = title or ctx.titles.get(name, name)
        url = ctx.link(target)
        return f"[{label}]({url})" if url else label
    if role.startswith("cite"):
        return _cite(role, text, ctx.bib)
    if role in ("ref", "numref"):
        if target in ctx.exercises:
            return title or f"Exercise {ctx.exercises[target]}"
        return title or target
    if role == "eq":
        return title or f"({target})"
    if role == "math":
        return f"${text}$"
    if role == "sub":
        return f"<sub>{text}</sub>"
    if role == "sup":
        return f"<sup>{text}</sup>"
    if role == "abbr":
        return re.sub(r"\s*\(.*\)$", "", text)
    return f"`{title or target}`"


def _roles(text: str, ctx: _Context) -> str:
    return _ROLE.sub(lambda m: _role(m, ctx), text)


def _split_options(lines: list[str]) -> tuple[dict[str, str], list[str]]:
    options: dict[str, str] = {}
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
        if end is not None:
            import yaml

            loaded = yaml.safe_load("\n".join(lines[1:end])) or {}
            options = {str(k): str(v) for k, v in loaded.items()}
            return options, lines[end + 1 :]
    i = 0
    while i < len(lines) and (option := _OPTION.match(lines[i])):
        options[option["key"]] = option["value"].strip()
        i += 1
    return options, lines[i:]


def _quote(title: str, body: str) -> str:
    lines = [f"**{title}**" if title else "", ""] if title else []
    lines += body.strip("\n").splitlines()
    return "\n".join(f"> {line}".rstrip() for line in lines)


def _list_table(arg: str, options: dict[str, str], body: list[str], ctx: _Context) -> str:
    rows: list[list[str]] = []
    for line in body:
        if re.match(r"^\* - ", line):
            rows.append([line[4:].strip()])
        elif re.match(r"^ {2}- ", line) and rows:
            rows[-1].append(line[4:].strip())
        elif line.strip() and rows:
            rows[-1][-1] += " " + line.strip()
    width = max((len(r) for r in rows), default=0)
    cells = [[_roles(c, ctx).replace("|", "\\|") for c in r] + [""] * (width - len(r))
             for r in rows]
    header_rows = int(options.get("header-rows", "0") or 0)
    header = cells[0] if header_rows else [""] * width
    rest = cells[1:] if header_rows else cells
    table = ["| " + " | ".join(header) + " |", "|" + "---|" * width]
    table += ["| " + " | ".join(r) + " |" for r in rest]
    caption = f"**{_roles(arg, ctx)}**\n\n" if arg else ""
    return caption + "\n".join(table)


def _directive(name: str, arg: str, lines: list[str], ctx: _Context) -> str:
    options, body_lines = _split_options(lines)
    if name in _DROPPED:
        return ""
    if name == "exercise-start":
        ctx.counter += 1
        number = ctx.exercises.get(options.get("label", ""), ctx.counter)
        title = _roles(arg, ctx)
        return f"#### Exercise {number}" + (f": {title}" if title else "")
    if name == "solution-start":
        number = ctx.exercises.get(arg.strip())
        return f"**Solution to Exercise {number}**" if number else "**Solution**"
    if name == "list-table":
        return _list_table(arg, options, body_lines, ctx)
    body = _convert(body_lines, ctx)
    if name in ("figure", "image"):
        alt = options.get("alt") or body.strip() or arg
        image = f"![{alt}]({arg})"
        return image + (f"\n\n*{body.strip()}*" if name == "figure" and body.strip() else "")
    if name == "math":
        return f"$$\n{chr(10).join(body_lines).strip()}\n$$"
    if name in _CODE:
        return f"```{arg}\n" + "\n".join(body_lines) + "\n```"
    if name in ("glue", "glue:figure", "glue:any", "glue:md", "glue:math"):
        key, fmt = _split_glue(arg)
        text = _glue_text(ctx.glue, key, fmt, "glue:md" if name == "glue:md" else name)
        return f"$$\n{text}\n$$" if name == "glue:math" else text
    if name in _ADMONITIONS:
        if name == "admonition":
            title = _roles(arg, ctx)
        else:
            title = name.capitalize() + (f": {_roles(arg, ctx)}" if arg else "")
        return _quote(title, body)
    title = name.replace("-", " ").capitalize() + (f": {_roles(arg, ctx)}" if arg else "")
    return _quote(title, body)


def _convert(lines: list[str], ctx: _Context) -> str:
    out: list[str] = []
    chunk: list[str] = []

    def flush() -> None:
        if chunk:
            out.append(_roles("\n".join(chunk), ctx))
            chunk.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        opened = _FENCE_OPEN.match(line)
        plain = None if opened else _PLAIN_FENCE.match(line)
        if opened or plain:
            fence = (opened or plain)["fence"]
            close = re.compile(rf"^{re.escape(fence[0])}{{{len(fence)},}}\s*$")
            end = next((j for j in range(i + 1, len(lines)) if close.match(lines[j])), len(lines))
            flush()
            if opened:
                out.append(_directive(opened["name"], opened["arg"].strip(), lines[i + 1:end], ctx))
            else:
                out.append("\n".join(lines[i:end + 1]))
            i = end + 1
            continue
        if not (_TARGET.match(line) or _COMMENT.match(line)):
            chunk.append(line)
        i += 1
    flush()
    text = "\n".join(part for part in out if part is not None)
    return re.sub(r"\n{3,}", "\n\n", text)


def convert_markdown(
    source: str,
    glue: Mapping[str, Any] | None = None,
    *,
    bib: Mapping[str, tuple[str, str]] | None = None,
    titles: Mapping[str, str] | None = None,
    exercises: Mapping[str, int] | None = None,
    link: Callable[[str], str | None] | None = None,
) -> str:
    """One markdown cell's MyST source as plain Markdown (see the module docstring)."""
    ctx = _Context(glue or {}, bib or {}, titles or {}, link or _sibling_link,
                   dict(exercises or {}))
    return _convert(source.splitlines(), ctx).strip("\n")


def _sibling_link(target: str) -> str | None:
    """A ``{doc}`` target in the same folder is the sibling notebook; others are text only."""
    return None if "/" in target else f"{target}.ipynb"


def _exercise_numbers(notebook: Any) -> dict[str, int]:
    labels = []
    for cell in notebook.cells:
        if cell.get("cell_type") != "markdown":
            continue
        for block in re.finditer(r"^(`{3,}|:{3,})\{exercise-start\}.*\n((?::.*\n?)*)",
                                 cell.source, re.M):
            label = re.search(r"^:label:\s*(\S+)", block[2], re.M)
            labels.append(label[1] if label else f"#{len(labels)}")
    return {label: n for n, label in enumerate(labels, start=1)}


def export_notebook(
    executed: nbformat.NotebookNode,
    glue: Mapping[str, Any],
    *,
    setup_cell: dict[str, Any] | None = None,
    bib: Mapping[str, tuple[str, str]] | str | Path | None = None,
    titles: Mapping[str, str] | None = None,
    link: Callable[[str], str | None] | None = None,
) -> nbformat.NotebookNode:
    """A standalone copy of an executed chapter notebook, in plain Markdown.

    Parameters
    ----------
    executed
        The chapter as MyST-NB executed it (``_build/jupyter_execute/notebooks/NAME.ipynb``),
        or any chapter notebook (a student edition, a notebook without outputs).
    glue
        The chapter's glue values: ``{key: output}`` as MyST-NB stores them in
        ``NAME.glue.json`` (``GlueStore`` also resolves ``"other.md::key"``), or plain Python
        values (formatted with :func:`format`).
    setup_cell
        The cell to put first (:func:`setup_cell`); one already there (tag
        ``moelaws-setup``) is replaced. ``None`` adds none.
    bib
        Citation labels ``{key: label}`` (:func:`bib_labels`) or the path of a BibTeX file;
        without it a citation shows its key.
    titles
        ``{docname: title}`` for ``{doc}`` links (:func:`chapter_titles`); default: the name.
    link
        ``target -> URL or None`` for ``{doc}``; default: ``NAME.ipynb`` beside it for a
        sibling chapter, text only for a page elsewhere.

    Returns
    -------
    nbformat.NotebookNode
        A new notebook: no MyST role or directive left in any markdown cell, glue outputs and
        ``metadata.jupytext`` (and MyST-NB's ``source_map``) removed, the set-up cell first.

    Raises
    ------
    ValueError
        If a glue role names a key without a value.
    """
    if isinstance(bib, (str, Path)):
        bib = bib_labels(bib)
    notebook = copy.deepcopy(executed)
    ctx = _Context(glue, bib or {}, titles or {}, link or _sibling_link,
                   _exercise_numbers(notebook))
    cells = []
    for cell in notebook.cells:
        if SETUP_TAG in (cell.get("metadata", {}).get("tags") or []):
            continue
        if cell.get("cell_type") == "markdown":
            cell.source = _convert(cell.source.splitlines(), ctx).strip("\n")
            if not cell.source.strip():
                continue
        cells.append(cell)
    notebook.cells = cells
    _strip_glue_outputs(notebook)
    if setup_cell is not None:
        notebook.cells.insert(0, nbformat.from_dict(copy.deepcopy(setup_cell)))
    for private in ("jupytext", "source_map"):  # Jupytext's and MyST-NB's own bookkeeping
        notebook.metadata.pop(private, None)
    nbformat.validate(notebook)
    return notebook


# ----------------------------------------------------------------------------- chapters


def execute_chapter(source: str | Path, timeout: int = 900, *,
                    env: Mapping[str, str] | None = None,
                    prelude: str | None = None) -> nbformat.NotebookNode:
    """Execute a chapter's MyST source with nbclient (in its folder, kernel ``python3``).

    ``env``: variables added to this process's environment for the kernel; ``prelude``: code
    run in a cell before the chapter's first (for instance, a check of that environment)."""
    import jupytext
    from nbclient import NotebookClient

    from moelaws.kernel_polling import patch_shell_polling

    patch_shell_polling()
    source = Path(source)
    notebook = jupytext.read(source)
    if prelude is not None:
        notebook.cells.insert(0, nbformat.v4.new_code_cell(prelude))
    kernel_env = {} if env is None else {"env": {**os.environ, **env}}
    NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(source.parent)}}).execute(**kernel_env)
    return notebook


def export_chapter(
    source: str | Path,
    executed_dir: str | Path | None = None,
    *,
    student: bool = False,
    setup_cell: dict[str, Any] | None = None,
    bib: Mapping[str, tuple[str, str]] | str | Path | None = None,
    titles: Mapping[str, str] | None = None,
) -> nbformat.NotebookNode:
    """Export one chapter: its executed notebook from ``executed_dir``, else executed now.

    Parameters
    ----------
    source
        The chapter's MyST source (``notebooks/NAME.md``).
    executed_dir
        MyST-NB's ``_build/jupyter_execute/notebooks`` (``NAME.ipynb`` and ``NAME.glue.json``);
        a chapter missing there (or ``None``) is executed with nbclient.
    student
        Export the student edition (:func:`moelaws.teaching.student.student_notebook`).
    """
    source = Path(source)
    executed_path = Path(executed_dir or ".") / f"{source.stem}.ipynb"
    if executed_dir is not None and executed_path.exists():
        notebook = nbformat.read(executed_path, as_version=4)
        glue = GlueStore(executed_dir, source.stem)
    else:
        notebook = execute_chapter(source)
        glue = GlueStore(executed_dir or source.parent, source.stem, own=glue_data(notebook))
    if student:
        from moelaws.teaching.student import student_notebook

        notebook = student_notebook(notebook)
    return export_notebook(notebook, glue, setup_cell=setup_cell, bib=bib, titles=titles)


def _repository_url(config: Path) -> tuple[str, str]:
    import yaml

    repository = (yaml.safe_load(config.read_text(encoding="utf-8")) or {}).get("repository", {})
    return repository.get("url", ""), repository.get("branch") or "main"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m moelaws.notebook_export",
        description="Export chapters as standalone notebooks in plain Markdown, glue values "
        "substituted and a set-up cell first.",
    )
    parser.add_argument("chapters", nargs="+", help="chapter sources (notebooks/NAME.md)")
    parser.add_argument("--out", required=True, help="folder to write NAME.ipynb into")
    parser.add_argument("--executed-dir", help="MyST-NB's _build/jupyter_execute/notebooks; "
                        "a chapter missing there is executed with nbclient")
    parser.add_argument("--student", action="store_true",
                        help="write the student editions (NAME.exercises.ipynb) instead")
    parser.add_argument("--bib", default="book/references.bib", help="BibTeX file for citations")
    parser.add_argument("--config", default="_config.yml",
                        help="the book's _config.yml (repository URL for the set-up cell)")
    parser.add_argument("--requirement", help="what the set-up cell installs (default: "
                        "moelaws[notebook] from the repository at this checkout's commit)")
    parser.add_argument("--no-setup-cell", action="store_true", help="add no set-up cell")
    args = parser.parse_args(argv)

    requirement = args.requirement
    if requirement is None:
        config = Path(args.config)
        url, branch = _repository_url(config) if config.exists() else ("", "main")
        if not url:
            parser.error(f"{config}: no repository url; give --requirement")
        requirement = install_requirement(url, build_revision(config.parent, branch))
    cell = None if args.no_setup_cell else setup_cell(requirement)
    bib = bib_labels(args.bib) if Path(args.bib).exists() else None
    titles = chapter_titles(args.chapters)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from moelaws.teaching.student import SUFFIX

    for chapter in map(Path, args.chapters):
        notebook = export_chapter(chapter, args.executed_dir, student=args.student,
                                  setup_cell=cell, bib=bib, titles=titles)
        target = out / (chapter.stem + (SUFFIX if args.student else ".ipynb"))
        nbformat.write(notebook, target)
        print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
