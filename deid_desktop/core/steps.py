"""The desktop app's five steps, by id. Pages, the sidebar and any message that sends
the user to a step (core's included) name a ``Step``, never a number."""

from __future__ import annotations

from enum import IntEnum


class Step(IntEnum):
    """A wizard step; its value is its position (0-based), ``number`` what users see."""

    LOAD = 0
    TAG = 1
    PATHWAY = 2
    REVIEW = 3
    EXPORT = 4

    @property
    def number(self) -> int:
        return self.value + 1

    @property
    def title(self) -> str:
        return _TITLES[self]

    @property
    def ref(self) -> str:
        """How a message names the step: "Step 3 (Pathway)"."""
        return f"Step {self.number} ({self.title})"

    @property
    def short(self) -> str:
        """In a parenthesis: "step 1"."""
        return f"step {self.number}"

    def heading(self, text: str) -> str:
        """The page heading: "3  Choose the pathway"."""
        return f"{self.number}  {text}"


_TITLES = {
    Step.LOAD: "Load",
    Step.TAG: "Tag",
    Step.PATHWAY: "Pathway",
    Step.REVIEW: "Review",
    Step.EXPORT: "Export",
}
