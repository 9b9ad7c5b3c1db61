"""Step 3 — Pathway: which release to build and its options (all saved in the project)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDateEdit,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from deid_desktop.core.model import ColumnClass, FreeTextAction, Pathway, Project, Role
from deid_desktop.core.pathways.registry import pathway_spec
from deid_desktop.core.steps import Step
from deid_desktop.gui import backend
from deid_desktop.gui.pages.base import Page
from deid_desktop.gui.widgets import MessageBanner, heading, note, wrap

FREE_TEXT_LABELS = {
    FreeTextAction.SUPPRESS: "Suppress the column (default)",
    FreeTextAction.REDACT: "Keep, with scan hits redacted",
}
SEED_MAX = 2_147_483_647


def free_text_combo(
    project: Project, key: str, name: str, on_change: Callable[[FreeTextAction], None]
) -> QComboBox:
    """The choice of what the release does with free-text column ``key`` ("table.column"),
    showing the project's current choice; ``on_change`` gets each new choice."""
    combo = QComboBox()
    combo.setAccessibleName(name)
    for action, label in FREE_TEXT_LABELS.items():
        combo.addItem(label, action.value)
    current = project.transform.free_text.get(key, FreeTextAction.SUPPRESS)
    combo.setCurrentIndex(combo.findData(FreeTextAction(current).value))
    combo.currentIndexChanged.connect(lambda _i: on_change(FreeTextAction(combo.currentData())))
    return combo


INDEX_TEXT = "Each person's index date (e.g. discharge)"
INDEX_TEXT_NONE = f"Each person's index date (none is tagged in {Step.TAG.short})"
AGE_REFERENCE_MISSING = (
    "Ages are computed from the birth date, and no column is tagged as the index date: "
    "choose 'A fixed date…' as the reference date for ages (e.g. the extract's cut-off "
    f"date), or tag the index date in {Step.TAG.short}."
)


def age_reference_missing(project: Project) -> bool:
    """The birth date needs a reference date and the project has none: the reference is
    each person's index date, no column has that role, and no age column says the age."""
    if project.transform.age_reference != "index":
        return False
    roles = {c.role for t in project.tables for c in t.columns}
    return Role.BIRTH_DATE in roles and Role.INDEX_DATE not in roles and Role.AGE not in roles


class PathwayPage(Page):
    step = Step.PATHWAY

    def __init__(self, session, runner, parent=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(session, runner, parent)
        self._updating = False
        self._salt_missing = ""  # why the linkable release has no salt yet ("" = it has)
        self._zip3_asked = 0  # which reading of the ZIP3 table is the one to show
        self.banner = MessageBanner()

        # pathway choice
        self.pathway_box = QGroupBox("Pathway")
        self.pathway_group = QButtonGroup(self)
        pv = QVBoxLayout(self.pathway_box)
        self.pathway_buttons: dict[Pathway, QRadioButton] = {}
        for spec in backend.available_pathways():
            rb = QRadioButton(spec.title)
            rb.setAccessibleName(f"Pathway: {spec.title}")
            rb.setToolTip(spec.label)
            self.pathway_group.addButton(rb)
            self.pathway_buttons[spec.id] = rb
            pv.addWidget(rb)
            help_label = note(spec.help)
            help_label.setContentsMargins(24, 0, 0, 6)
            pv.addWidget(help_label)
            rb.toggled.connect(lambda on, p=spec.id: on and self._set_pathway(p))
        self.salt_status = QLabel()
        self.salt_status.setWordWrap(True)
        self.salt_status.setAccessibleName("Salt status")
        self.salt_status.setVisible(False)
        self.salt_create = QPushButton("Create &salt")
        self.salt_create.setAccessibleName("Create the salt for this project in the keyring")
        self.salt_create.setToolTip("32 random bytes stored in this computer's keyring.")
        self.salt_create.clicked.connect(self._create_salt)
        self.salt_create.setVisible(False)
        srow = QHBoxLayout()
        srow.addWidget(self.salt_status, 1)
        srow.addWidget(self.salt_create)
        pv.addLayout(srow)

        # options
        self.options_box = QGroupBox("Safe Harbor options")
        form = QFormLayout(self.options_box)
        self.age_ref = QComboBox()
        self.age_ref.setAccessibleName("Reference date for ages")
        self.age_ref.addItem(INDEX_TEXT, "index")
        self.age_ref.addItem("A fixed date…", "date")
        self.age_ref.setToolTip(
            "Ages computed from a date of birth are taken at this date. Ages over 89 become 90+."
        )
        self.age_date = QDateEdit()
        self.age_date.setAccessibleName("Fixed reference date")
        self.age_date.setCalendarPopup(True)
        self.age_date.setDisplayFormat("yyyy-MM-dd")
        self.age_date.setDate(QDate.currentDate())
        self.age_ref.currentIndexChanged.connect(self._age_changed)
        self.age_date.dateChanged.connect(self._age_changed)
        age_row = QHBoxLayout()
        age_row.addWidget(self.age_ref, 1)
        age_row.addWidget(self.age_date)
        form.addRow("Reference date for ages:", wrap(age_row))

        self.zip3_label = QLabel()
        self.zip3_label.setWordWrap(True)
        self.zip3_label.setAccessibleName("ZIP3 table in use")
        self.zip3_button = QPushButton("Load newer Census table…")
        self.zip3_button.setAccessibleName("Load a newer Census ZCTA population table")
        self.zip3_button.setToolTip(
            "A Census ZCTA population file (DHC CSV layout, or a plain zcta,population CSV)."
        )
        self.zip3_button.clicked.connect(self._load_census)
        self.zip3_reset = QPushButton("Use bundled table")
        self.zip3_reset.setAccessibleName("Use the bundled ZIP3 table")
        self.zip3_reset.clicked.connect(lambda: self._set_zip3(None))
        zrow = QHBoxLayout()
        zrow.addWidget(self.zip3_label, 1)
        zrow.addWidget(self.zip3_button)
        zrow.addWidget(self.zip3_reset)
        form.addRow("ZIP3 population table:", wrap(zrow))

        self.free_text = QTableWidget(0, 2)
        self.free_text.setHorizontalHeaderLabels(["Free-text column", "Handling"])
        self.free_text.setAccessibleName("Free-text handling per column")
        self.free_text.verticalHeader().setVisible(False)
        self.free_text.horizontalHeader().setStretchLastSection(True)
        self.free_text.setColumnWidth(0, 220)
        self.free_text.setMaximumHeight(140)
        form.addRow("Free text:", self.free_text)

        self.seed = QSpinBox()
        self.seed.setAccessibleName("Seed")
        self.seed.setRange(0, SEED_MAX)
        self.seed.setToolTip("The same project, input and seed give byte-identical release files.")
        self.seed.valueChanged.connect(self._seed_changed)
        form.addRow("Seed:", self.seed)

        content = QWidget()
        lay = QVBoxLayout(content)
        lay.addWidget(heading(self.step.heading("Choose the pathway")))
        lay.addWidget(self.pathway_box)
        lay.addWidget(self.options_box)
        lay.addWidget(self.banner)
        lay.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # not a Tab stop: its controls are
        scroll.setFrameShape(QFrame.Shape.NoFrame)  # flush like the other steps
        scroll.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

        session.projectChanged.connect(self._refresh)

    def enter_reason(self) -> str | None:
        if self.session.project is None or self.session.extract is None:
            return f"Load the extract first ({Step.LOAD.short})."
        return None

    def blocker(self) -> str | None:
        project = self.session.project
        if project is not None and age_reference_missing(project):
            return AGE_REFERENCE_MISSING
        return self._salt_missing or None

    # -- show the project --------------------------------------------------------------
    def _refresh(self) -> None:
        project = self.session.project
        if project is None:
            return
        self._updating = True
        try:
            if project.pathway in self.pathway_buttons:
                self.pathway_buttons[project.pathway].setChecked(True)
            self.options_box.setTitle(f"{pathway_spec(project.pathway).title} options")
            ref = project.transform.age_reference
            missing = age_reference_missing(project)
            index_item = self.age_ref.model().item(0)  # type: ignore[attr-defined]
            index_item.setEnabled(not missing or ref != "index")
            index_item.setText(INDEX_TEXT if not missing else INDEX_TEXT_NONE)
            if missing:
                self.age_ref.setCurrentIndex(-1)  # no default: the user picks a date
                self.banner.show_warning(AGE_REFERENCE_MISSING)
            elif ref == "index":
                self.age_ref.setCurrentIndex(0)
            else:
                self.age_ref.setCurrentIndex(1)
                self.age_date.setDate(QDate.fromString(ref, "yyyy-MM-dd"))
            self.age_date.setEnabled(ref != "index")
            if not missing and self.banner.message == AGE_REFERENCE_MISSING:
                self.banner.clear()
            self.seed.setValue(min(project.seed, SEED_MAX))
            self._refresh_zip3()
            self._refresh_free_text()
            self._refresh_salt()
        finally:
            self._updating = False

    def _refresh_zip3(self) -> None:
        """The vintage of the ZIP3 table in use. Reading a table (the shipped one the first
        time, a user's Census file) parses a CSV with pandas: in a job, never here (at
        project open the load job imports pandas at the same time, and this thread
        waited for it)."""
        project = self.session.project
        assert project is not None
        self.zip3_reset.setEnabled(project.transform.zip3_table is not None)
        self._zip3_asked += 1
        vintage = backend.zip3_vintage_read(project)
        if vintage is not None:
            self.zip3_label.setText(vintage)
            return
        self.zip3_label.setText("Reading the ZIP3 table…")
        asked = self._zip3_asked

        def job(progress, cancel):  # type: ignore[no-untyped-def]
            return backend.zip3_vintage(project)

        def shown(vintage: str) -> None:
            if asked == self._zip3_asked:  # else a newer project's table is being read
                self.zip3_label.setText(vintage)

        def failed(exc: BaseException) -> None:
            if asked == self._zip3_asked:
                self.zip3_label.setText("The chosen table cannot be used.")
                self.banner.show_error(exc)

        self.runner.run(job, name="zip3 vintage", on_success=shown, on_error=failed)

    def _refresh_free_text(self) -> None:
        project = self.session.project
        assert project is not None
        cols = [
            f"{t.name}.{c.name}" for t in project.tables for c in t.by_class(ColumnClass.FREE_TEXT)
        ]
        self.free_text.setRowCount(len(cols))
        for r, key in enumerate(cols):
            item = QTableWidgetItem(key)
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.free_text.setItem(r, 0, item)
            combo = free_text_combo(
                project,
                key,
                f"Handling of {key}",
                lambda action, k=key: self.set_free_text(k, action),
            )
            self.free_text.setCellWidget(r, 1, combo)
        if not cols:
            self.free_text.setRowCount(1)
            item = QTableWidgetItem("No column is tagged free text.")
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.free_text.setItem(0, 0, item)

    def _refresh_salt(self) -> None:
        project = self.session.project
        assert project is not None
        show = pathway_spec(project.pathway).needs_salt
        self.salt_status.setVisible(show)
        self._salt_missing = ""
        exists, can_create = True, False
        if show:
            text, exists, can_create = backend.salt_status_text(project)
            self.salt_status.setText(text)
            if not exists:  # said once, here, where it is fixed (not again at the review)
                self._salt_missing = (
                    "Create the salt for this linkable release (Create salt)."
                    if can_create
                    else text.removeprefix("Salt: ")
                )
        self.salt_create.setVisible(show and not exists)
        self.salt_create.setEnabled(can_create)

    def _create_salt(self) -> None:
        project = self.session.project
        if project is None:
            return
        try:
            backend.create_salt(project)
        except Exception as exc:
            self.banner.show_error(exc)
        self._refresh_salt()
        self.readinessChanged.emit()

    # -- edits -------------------------------------------------------------------------
    def _set_pathway(self, pathway: Pathway) -> None:
        if self._updating or self.session.project is None:
            return
        self.session.update(pathway=pathway)

    def _age_changed(self, *_args: object) -> None:
        self.age_date.setEnabled(self.age_ref.currentData() == "date")
        if self._updating or self.session.project is None or self.age_ref.currentIndex() < 0:
            return
        ref = (
            "index"
            if self.age_ref.currentData() == "index"
            else self.age_date.date().toString("yyyy-MM-dd")
        )
        sh = self.session.project.transform
        self.session.update(transform=replace(sh, age_reference=ref))

    def _seed_changed(self, value: int) -> None:
        if self._updating or self.session.project is None:
            return
        self.session.update(seed=value)

    def set_free_text(self, key: str, action: FreeTextAction) -> None:
        project = self.session.project
        if self._updating or project is None:
            return
        sh = project.transform
        self.session.update(transform=replace(sh, free_text={**sh.free_text, key: action}))

    def _load_census(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Census ZCTA population table", str(Path.home()), "CSV files (*.csv *.txt)"
        )
        if not path:
            return

        def job(progress, cancel):  # type: ignore[no-untyped-def]
            return backend.load_census_table(Path(path))

        self.runner.run(
            job,
            name="census table",
            on_success=lambda _t: self._set_zip3(path),
            on_error=self.banner.show_error,
        )

    def _set_zip3(self, path: str | None) -> None:
        project = self.session.project
        if project is None:
            return
        self.banner.clear()
        self.session.update(transform=replace(project.transform, zip3_table=path))
