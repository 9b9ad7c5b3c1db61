"""Sample review of the free-text scan: a seeded sample of at least 5% of the notes, read
one at a time with the hits highlighted (filtered by confidence), each marked clean or
"missed something" with the kind. The result (``SampleReview``) holds counts only. A
missed term can be added to the project word list (``core.scan.wordlist``, in the
held-back folder beside the crosswalk); the column is then scanned again and the panel
shows the new hits.

The panel is given the notes and their hits; it never logs note text.
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from deid_desktop.core.scan.sample import MISS_KINDS, SampleReview, draw_sample
from deid_desktop.core.scan.wordlist import WORD_KINDS

#: Adds (kind, term) to the word list and returns the column's hits scanned again.
AddWord = Callable[[str, str], Sequence[Sequence["SpanHit"]]]

if TYPE_CHECKING:
    from deid_desktop.core.model import Extract
    from deid_desktop.core.scan import ScanReport
    from deid_desktop.core.scan.report import ColumnSpans
    from deid_desktop.gui.session import Session

#: Confidence filter choices: label -> levels shown.
FILTERS = (
    ("All hits", ("high", "medium", "low")),
    ("High and medium", ("high", "medium")),
    ("High only", ("high",)),
)
_COLOURS = {"high": "#f4b183", "medium": "#ffe699", "low": "#ddebf7"}


class SpanHit(NamedTuple):
    start: int
    end: int
    kind: str
    confidence: str


def note_html(text: str, hits: Sequence[SpanHit], levels: Sequence[str]) -> str:
    """``text`` as HTML with the hits of the given confidence levels highlighted (a hit
    inside an earlier one is skipped)."""
    parts: list[str] = []
    pos = 0
    for h in sorted(hits, key=lambda h: (h.start, -h.end)):
        if h.confidence not in levels or h.start < pos:
            continue
        parts.append(html.escape(text[pos : h.start]))
        tip = html.escape(f"{h.kind}, {h.confidence} confidence")
        parts.append(
            f'<span style="background:{_COLOURS.get(h.confidence, "#eee")}" title="{tip}">'
            f"{html.escape(text[h.start : h.end])}</span>"
            f"<sub>{html.escape(h.kind)}</sub>"
        )
        pos = h.end
    parts.append(html.escape(text[pos:]))
    return "<p style='white-space:pre-wrap'>" + "".join(parts) + "</p>"


class SampleReviewPanel(QWidget):
    """Read a seeded sample of the notes and mark each one."""

    def __init__(
        self,
        notes: Sequence[str],
        hits: Sequence[Sequence[SpanHit]],
        *,
        seed: int,
        add_word: AddWord | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._notes = notes
        self._hits = hits
        self._add_word = add_word
        self.words_added = 0
        self.review = SampleReview(draw_sample(len(notes), seed=seed))
        self._at = 0
        self.setAccessibleName("Sample review of the free-text scan")
        self.intro = QLabel(
            f"Read {len(self.review.sample):,} of {len(notes):,} notes (at least 5%, drawn "
            f"with seed {seed}). Mark each clean, or say what the scan missed."
        )
        self.intro.setWordWrap(True)
        self.reviewer = QLineEdit()
        self.reviewer.setPlaceholderText("Your name (goes into the record)")
        self.reviewer.setAccessibleName("Reviewer")
        self.reviewer.textChanged.connect(self._set_reviewer)
        self.filter = QComboBox()
        self.filter.setAccessibleName("Show hits of confidence")
        for label, _ in FILTERS:
            self.filter.addItem(label)
        self.filter.currentIndexChanged.connect(lambda _i: self._show())
        self.view = QTextBrowser()
        self.view.setAccessibleName("Sampled note")
        self.position = QLabel()
        self.position.setAccessibleName("Note shown")
        widest = f"Note {len(notes):,} of {len(notes):,} (missed LOCATION)"
        self.position.setMinimumWidth(self.position.fontMetrics().horizontalAdvance(widest) + 8)
        self.prev_button = QPushButton("&Previous")
        self.prev_button.setAccessibleName("Previous sampled note")
        self.next_button = QPushButton("&Next")
        self.next_button.setAccessibleName("Next sampled note")
        self.clean_button = QPushButton("&Clean")
        self.clean_button.setAccessibleName("Mark this note clean")
        self.clean_button.setToolTip("Every identifier in this note is highlighted.")
        self.miss_kind = QComboBox()
        self.miss_kind.setAccessibleName("Kind missed")
        self.miss_kind.addItems(MISS_KINDS)
        self.missed_button = QPushButton("&Missed something")
        self.missed_button.setAccessibleName("Mark that the scan missed something here")
        self.missed_button.setToolTip("The note holds an identifier the scan did not flag.")
        self.word_term = QLineEdit()
        self.word_term.setAccessibleName("Missed words to add to the project word list")
        self.word_term.setPlaceholderText("optional: the words, as written in the note")
        self.word_term.setToolTip(
            "Added to the project word list in the held-back folder beside the crosswalk "
            "(never in the project file or the release): found in every note from now on."
        )
        self.word_kind = QComboBox()
        self.word_kind.setAccessibleName("Kind of the missed words")
        self.word_kind.addItems(list(WORD_KINDS))
        self.miss_kind.currentTextChanged.connect(self._follow_kind)
        self.status = QLabel()
        self.status.setAccessibleName("Sample review progress")
        self.prev_button.clicked.connect(lambda: self.go(self._at - 1))
        self.next_button.clicked.connect(lambda: self.go(self._at + 1))
        self.clean_button.clicked.connect(self.mark_clean)
        self.missed_button.clicked.connect(self.mark_missed)

        top = QHBoxLayout()
        for text, field in (("&Reviewer:", self.reviewer), ("S&how:", self.filter)):
            label = QLabel(text)
            label.setBuddy(field)
            top.addWidget(label)
            top.addWidget(field, 1 if field is self.reviewer else 0)
        nav = QHBoxLayout()
        for widget in (self.prev_button, self.position, self.next_button):
            nav.addWidget(widget)
        nav.addStretch(1)
        for widget in (self.clean_button, self.miss_kind, self.missed_button):
            nav.addWidget(widget)
        words = QHBoxLayout()
        label = QLabel("&Add the missed words to the project word list:")
        label.setBuddy(self.word_term)
        words.addWidget(label)
        words.addWidget(self.word_term, 1)
        words.addWidget(self.word_kind)
        lay = QVBoxLayout(self)
        lay.addWidget(self.intro)
        lay.addLayout(top)
        lay.addWidget(self.view, 1)
        lay.addLayout(nav)
        if add_word is not None:
            lay.addLayout(words)
        else:
            for widget in (label, self.word_term, self.word_kind):
                widget.hide()
        lay.addWidget(self.status)
        self._follow_kind(self.miss_kind.currentText())
        self._show()

    # ----------------------------------------------------------------- actions
    def levels(self) -> tuple[str, ...]:
        return FILTERS[self.filter.currentIndex()][1]

    def current(self) -> int | None:
        """The position (in the notes) of the note on screen."""
        sample = self.review.sample
        return sample[self._at] if sample else None

    def go(self, at: int) -> None:
        if self.review.sample:
            self._at = max(0, min(at, len(self.review.sample) - 1))
        self._show()

    def mark_clean(self) -> None:
        pos = self.current()
        if pos is not None:
            self.review.mark_clean(pos)
            self.go(self._at + 1)

    def mark_missed(self) -> None:
        """Mark the note; with words typed, add them to the word list and show the new
        hits (the note stays on screen so the reviewer sees them)."""
        pos = self.current()
        if pos is None:
            return
        self.review.mark_missed(pos, self.miss_kind.currentText())
        term = self.word_term.text().strip()
        if term and self._add_word is not None:
            self._hits = self._add_word(self.word_kind.currentText(), term)
            self.words_added += 1
            self.word_term.clear()
            self._show()
            return
        self.go(self._at + 1)

    def _follow_kind(self, kind: str) -> None:
        """The word list kind follows the kind missed, where the word list has it."""
        if kind in WORD_KINDS:
            self.word_kind.setCurrentText(kind)

    def _set_reviewer(self, name: str) -> None:
        self.review.reviewer = name.strip()

    def _show(self) -> None:
        pos = self.current()
        n = len(self.review.sample)
        if pos is None:
            self.view.setPlainText("There is no note to review.")
            self.position.setText("")
        else:
            self.view.setHtml(note_html(self._notes[pos], self._hits[pos], self.levels()))
            mark = self.review.marks.get(pos, "unmarked")
            said = "clean" if mark is None else mark if mark == "unmarked" else f"missed {mark}"
            self.position.setText(f"Note {self._at + 1} of {n} ({said})")
        for button in (self.clean_button, self.missed_button, self.prev_button):
            button.setEnabled(pos is not None)
        self.next_button.setEnabled(pos is not None and self._at + 1 < n)
        self.prev_button.setEnabled(pos is not None and self._at > 0)
        added = f" {self.words_added:,} added to the word list." if self.words_added else ""
        self.status.setText(
            f"Reviewed {self.review.reviewed:,} of {n:,}; "
            f"{self.review.missed:,} with something missed.{added}"
        )


def project_seed(project_id: str) -> int:
    """The sample's seed for a project: the same project draws the same sample."""
    return int(hashlib.sha256(project_id.encode("utf-8")).hexdigest()[:8], 16)


def column_notes(extract: Extract, spans: ColumnSpans) -> tuple[list[str], list[list[SpanHit]]]:
    """The non-missing notes of a scanned column (``ColumnSpans``) and their hits."""
    series = extract.table(spans.table).frame[spans.column]
    present = series.notna().to_numpy(dtype=bool)
    rows = [i for i, ok in enumerate(present.tolist()) if ok]
    where = {row: n for n, row in enumerate(rows)}
    notes = [str(v) for v in series[present].tolist()]
    hits: list[list[SpanHit]] = [[] for _ in rows]
    confidence = spans.confidence if spans.confidence is not None else ["high"] * spans.row.size
    for row, s, e, k, c in zip(
        spans.row.tolist(),
        spans.start.tolist(),
        spans.end.tolist(),
        spans.kind.tolist(),
        list(confidence),
        strict=True,
    ):
        hits[where[row]].append(SpanHit(s, e, k, c))
    return notes, hits


def open_sample_review(
    parent: QWidget, session: Session, scan: ScanReport | None
) -> SampleReview | None:
    """A dialog with a seeded sample of the first scanned column's notes; the result is
    kept on the session (``sample_review``) for the record."""
    extract = session.extract
    project = session.project
    spans = list(scan.spans) if scan is not None else []
    if extract is None or project is None or not spans:
        return None
    notes, hits = column_notes(extract, spans[0])
    table, column = spans[0].table, spans[0].column
    dialog = QDialog(parent)
    dialog.setWindowTitle(f"Sample review: {table}.{column}")
    adder = word_adder(session, table, column)
    panel = SampleReviewPanel(notes, hits, seed=project_seed(project.project_id), add_word=adder)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.button(QDialogButtonBox.StandardButton.Close).setAccessibleName(
        "Close the sample review"
    )
    buttons.rejected.connect(dialog.reject)
    lay = QVBoxLayout(dialog)
    lay.addWidget(panel, 1)
    lay.addWidget(buttons)
    dialog.resize(860, 480)
    dialog.exec()
    session.sample_review = panel.review
    if panel.words_added:  # the release must be redacted with the new words: review again
        session.word_list_changed()
    return panel.review


def word_adder(session: Session, table: str, column: str) -> AddWord:
    """What the panel calls to add missed words: append (kind, term) to the project word
    list (``held_back_of``), scan the column again with it, return its hits."""

    def add_word(kind: str, term: str) -> Sequence[Sequence[SpanHit]]:
        from deid_desktop.core.engine import scan_extract
        from deid_desktop.core.scan.wordlist import add_word as append
        from deid_desktop.core.scan.wordlist import load_word_list

        project, extract = session.project, session.extract
        if project is None or extract is None:
            return []
        held_back = held_back_of(session)
        append(held_back, kind, term)
        report = scan_extract(
            project, extract, columns={table: [column]}, words=load_word_list(held_back)
        )
        if report is None or not report.spans:
            return []
        return column_notes(extract, report.spans[0])[1]

    return add_word


def held_back_of(session: Session) -> Path:
    """Where the project word list lives (core ``word_list_folder``, the rule of ``deid
    run``): the crosswalk folder chosen on the Export step, else the project's default
    held-back folder."""
    from deid_desktop.core.held_back import word_list_folder

    project = session.project
    name = "" if project is None else project.name
    return word_list_folder(
        session.project_path or session.suggested_path, name, session.crosswalk_dir
    )
