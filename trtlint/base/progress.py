"""A rich progress display for long runs on a terminal (stderr).

``trtlint check`` uses it only for the text format on a TTY (never for machine formats, a report written to a
file, or when stderr is not a terminal), and it appears only once a run has taken longer than ``delay``
seconds, so a warm run prints nothing extra. It is transient: it disappears when the run ends.

``TRTLINT_PROGRESS_DELAY`` (seconds) overrides the default delay of 0.5 s: 0 shows the display from the first
update (what the tests use, so that they do not race the clock), a large value keeps it off.
"""

from __future__ import annotations

import sys
import time
from typing import Optional

_LABELS = {
    "discover": "discovering files",
    "extract": "extracting facts",
    "index": "joining the index",
    "check": "running the rules",
}


DEFAULT_DELAY = 0.5


def default_delay() -> float:
    """The delay before the display appears: ``TRTLINT_PROGRESS_DELAY`` when it is a number >= 0, else 0.5 s."""
    from trtlint.base.envvars import number

    value = number("TRTLINT_PROGRESS_DELAY")
    return DEFAULT_DELAY if value is None else value


class ProgressDisplay:
    def __init__(self, delay: Optional[float] = None, console=None):
        self.delay = default_delay() if delay is None else delay
        self.t0 = time.monotonic()
        self._console = console
        self._progress = None
        self._task = None
        self.shown = False
        self.updates = 0

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        console = self._console or Console(file=sys.stderr)
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("trtlint: {task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self._task = self._progress.add_task("", total=None)
        self.shown = True

    def __call__(self, phase: str, done: int, total: Optional[int]) -> None:
        self.updates += 1
        if self._progress is None:
            if time.monotonic() - self.t0 < self.delay:
                return
            self._start()
        total = total if total else None
        if phase != "extract":
            done, total = (done, total) if phase == "discover" else (0, None)
        self._progress.update(self._task, description=_LABELS.get(phase, phase), completed=done, total=total)
        if not self._progress.live.is_started:
            self._progress.start()

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
