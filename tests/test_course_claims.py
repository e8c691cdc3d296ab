"""Every sentence of a lesson that states a number or a comparison has a claim behind it.

Read from the committed notebooks, without running them (the claims cells run with the lesson).

*The prose that makes claims*: the markdown of a lesson, split into sentences, except the title
cell (aims), the sections (a ``##`` heading with its ``###`` sub-headings) "Theory", "Worked example ..." and "..., by hand" (definitions and
formulas, which the worked examples' cells compute), "References", the exercise prompts (questions and tasks;
their solutions count), table rows, LaTeX and code spans, text in double quotes (an example of
what someone might say), and cross-references such as "lesson 05", "section 3" or "printed above".

*A sentence that needs a claim*: it has a digit (other than a number the exercise prompts give,
which a solution repeats) or a comparison word ("more", "below", "than", "falls", ...) and cites
no source (an author-year citation, a published table or equation, the
lecture): a number quoted from a source stands on its source (notebooks/CONVENTIONS.md).

*A claim behind it*: an ``assert`` in a code cell tagged ``claims`` whose message reads
``"<where>: <quote>"``, where the quote is a verbatim piece of the sentence (case, emphasis and
line breaks aside). The assert checks on the run's numbers that the sentence holds; the quote
ties the check to the words it backs, so a reworded sentence loses its claim until the check is
reworded with it.

*Both ways*: every quote must also stand in its lesson, in the markdown or in the stored printed
output of a cell that is not a claims cell; an assert whose sentence was reworded or removed
checks nothing a student reads, and fails here until it is tied to a sentence again.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))

COMPARISON = re.compile(
    r"\b(?:more|less|fewer|higher|lower|larger|smaller|greater|above|below|closer|farther|further|"
    r"best|worst|most|least|fewest|largest|smallest|highest|lowest|than|twice|half|grows?|falls?|"
    r"rises?|drops?|exceeds?|beats?|outranks?|misses)\b",
    re.IGNORECASE,
)
SOURCE = re.compile(
    r"\b(?:1[89]|20)\d\d[a-z]?\b|\bTable \d|\bFigure \d|\beq\. ?\d|\blecture|\bslides?\b|Hu's course|"
    r"Opinion 05/2014"
)
CROSS_REFERENCE = re.compile(
    r"\b(?:[Ll]essons?|[Nn]otebooks?|[Ss]ections?|[Cc]ells?|[Ss]olutions?|[Ee]xercises?|[Qq]uestions?|"
    r"[Pp]arts?|[Ss]teps?|[Vv]ersions?)[\s-]+\d+(?:\s*(?:[-\u2013,]|and|to)\s*\d+)*|\b\d\d_\w+|\b\d\d-\d\d\b|"
    r"\b(?:printed|shown|listed|drawn|given|lines?|table|cell|figure) (?:above|below)\b"
)
#: sections whose sentences define or cite rather than report
UNCLAIMED = ("theory", "worked example", "references")
#: a section computed by hand, whose cell then checks the hand computation against the library
BY_HAND = ", by hand"
#: an assert's message closes its statement: ``..., "<where>: <quote>"`` at the end of a line
QUOTE = re.compile(r""",\s*(?:\\\s*)?["']([^"'\n]*:[^"'\n]*)["']\s*$""", re.MULTILINE)


def _plain(text: str) -> str:
    """Markdown without LaTeX, code spans, link targets and HTML tags."""
    text = text.replace("\\$", " dollars ")  # an escaped dollar sign is text, not LaTeX
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"\$[^$]*\$", " ", text)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"\"[^\"]{0,300}\"", " ", text)  # a quoted example of what someone might say
    return re.sub(r"<[^>]+>", " ", text)


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[*_`>]", " ", text).lower().split())


def prose(cells) -> list[tuple[int, str]]:
    """``(cell index, sentence)`` of the prose that makes claims."""
    found, section = [], ""
    for index, cell in enumerate(cells):
        if cell.cell_type != "markdown" or index == 0:
            continue
        kept, in_solution = [], False
        for line in cell.source.splitlines():
            if line.startswith("#"):
                if not line.startswith("###"):  # a sub-heading stays inside its section
                    section = line.lstrip("#").strip().lower()
                continue
            in_solution = in_solution or "<details" in line or line.startswith("**Solution")
            prompt = section.startswith("exercises") and not in_solution
            if section.startswith(UNCLAIMED) or BY_HAND in section or prompt or line.lstrip().startswith("|"):
                continue
            kept.append(line)
        for piece in re.split(
            r"(?<!\bal\.)(?<!e\.g\.)(?<!i\.e\.)(?<=[.!?;:])\s+|\n\s*(?:[-*]|\d+\.)\s+|\n\s*\n",
            _plain("\n".join(kept)),
        ):
            sentence = " ".join(piece.split())
            if len(sentence.split()) >= 4:
                found.append((index, sentence))
    return found


def given_numbers(cells) -> set[str]:
    """Numbers the exercise prompts state: a solution that repeats them reports no finding."""
    given, section = set(), ""
    for cell in cells:
        if cell.cell_type != "markdown":
            continue
        for line in cell.source.splitlines():
            if line.startswith("#"):
                section = line.lstrip("#").strip().lower()
            elif (
                section.startswith("exercises")
                and "<details" not in line
                and not line.startswith("**Solution")
            ):
                given.update(re.findall(r"\d+(?:\.\d+)?", _plain(line)))
    return given


def needs_claim(sentence: str, given: set[str] = frozenset()) -> bool:
    """A digit (other than one the exercises give) or a comparison word, and no source cited."""
    if sentence.endswith("?"):
        return False
    bare = CROSS_REFERENCE.sub(" ", sentence)
    if SOURCE.search(bare):
        return False
    bare = re.sub(r"\d+(?:\.\d+)?", lambda number: " " if number.group() in given else number.group(), bare)
    return bool(re.search(r"\d", bare) or COMPARISON.search(bare))


def quotes(cells) -> list[str]:
    """The quotes of the claims cells' assert messages (``"<where>: <quote>"``)."""
    return [
        _normal(message.split(":", 1)[1])
        for cell in cells
        if cell.cell_type == "code" and "claims" in cell.metadata.get("tags", [])
        for message in QUOTE.findall(cell.source)
        if ":" in message
    ]


def unbacked(path: Path) -> list[tuple[int, str]]:
    return unbacked_cells(nbformat.read(path, as_version=4).cells)


def test_the_rule_finds_a_typed_comparison_and_accepts_its_claim():
    markdown = nbformat.v4.new_markdown_cell
    cells = [
        markdown("# 99. Title"),
        markdown("## Theory\n\nCAP is at most 1."),
        markdown("## Reading\n\nThe copy is the most exposed. Yale et al. (2019) report 0.8. Read it twice?"),
    ]
    assert [s for _, s in unbacked_cells(cells)] == ["The copy is the most exposed."]
    claims = nbformat.v4.new_code_cell('assert auc["Copy"] >= 0.9, "text: the copy is the most exposed"')
    claims.metadata["tags"] = ["claims", "remove-cell"]
    assert unbacked_cells([*cells, claims]) == []


def unbacked_cells(cells) -> list[tuple[int, str]]:
    """The sentences of ``cells`` that need a claim and have none."""
    backing, given = [q for q in quotes(cells) if q], given_numbers(cells)
    return [
        (i, s) for i, s in prose(cells) if needs_claim(s, given) and not any(q in _normal(s) for q in backing)
    ]


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_every_number_and_comparison_in_the_prose_has_a_claim(lesson):
    missing = unbacked(lesson)
    listed = "\n".join(f"  cell {index}: {sentence}" for index, sentence in missing)
    assert not missing, (
        f"{len(missing)} sentences state a number or a comparison with no claim behind them:\n{listed}"
    )


def _printed(cell) -> str:
    """The text a cell's stored outputs show: streams, plain text and markdown."""
    pieces = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            pieces.append(output.get("text", ""))
        for kind in ("text/markdown", "text/plain"):
            pieces.append(output.get("data", {}).get(kind, ""))
    return "\n".join(p if isinstance(p, str) else "".join(p) for p in pieces)


def texts(cells) -> list[str]:
    """What a student reads, normalised like the quotes: each markdown cell (as written and without
    LaTeX, code spans and links) and each non-claims code cell's printed output."""
    found = []
    for cell in cells:
        if cell.cell_type == "markdown":
            found += [_normal(cell.source), _normal(_plain(cell.source))]
        elif cell.cell_type == "code" and "claims" not in cell.metadata.get("tags", []):
            found.append(_normal(_printed(cell)))
    return found


def stale_quotes(cells) -> list[str]:
    """The quotes of ``cells``' claims that stand in no markdown cell and no printed output."""
    read = texts(cells)
    return [quote for quote in quotes(cells) if quote and not any(quote in text for text in read)]


def test_the_rule_finds_a_quote_whose_sentence_is_gone():
    markdown, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    claims = code(
        'assert a, "text: the copy is the most exposed"\nassert b, "output: 3 records"\n'
        'assert c, "text: the copy is the least exposed"'
    )
    claims.metadata["tags"] = ["claims", "remove-cell"]
    printed = code("print(n)")
    printed.outputs = [nbformat.v4.new_output("stream", name="stdout", text="There are 3 records.\n")]
    cells = [
        markdown("# 99. Title"),
        markdown("## Reading\n\nThe *copy* is the most\nexposed."),
        printed,
        claims,
    ]
    assert stale_quotes(cells) == ["the copy is the least exposed"]


@pytest.mark.parametrize(
    "lesson", [*LESSONS, ROOT / "notebooks" / "capstone_key.ipynb"], ids=lambda p: p.stem
)
def test_every_claim_quotes_a_sentence_of_its_lesson(lesson):
    stale = stale_quotes(nbformat.read(lesson, as_version=4).cells)
    listed = "\n".join(f"  {quote}" for quote in stale)
    assert not stale, (
        f"{len(stale)} claims quote no sentence of the lesson (markdown or printed output):\n{listed}"
    )
