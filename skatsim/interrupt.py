"""Ctrl-C that always stops a long job: held by the loops of chunked runs (tournaments,
:meth:`skatsim.runs.RunDir.fill`, simulations, bidding labels) and by :func:`skatsim_app.cli.main`.

Python turns SIGINT into ``KeyboardInterrupt`` at the next bytecode, wherever that is, and a
few places drop it: a finalizer (``__del__``, a weakref callback: Python reports it as
"Exception ignored" and goes on), C code that clears every error of the Python code it calls,
or an agent's own ``except BaseException``. The command then played on: seen on CI once in many
runs, a tournament waited two minutes for an agent after its Ctrl-C; and a tournament run from
Python played to its end once in about thirty interrupts under load, its ``KeyboardInterrupt``
raised in pandas code that NumPy called back and cleared (a dtype comparison).

:class:`ctrl_c` raises the interrupt as Python does, re-delivers one dropped in a finalizer within
moments (without the "Exception ignored" report), raises it again every ``again`` seconds while
the main thread is not handling it (no ``KeyboardInterrupt`` in an ``except`` or ``finally``
block, nor as the context of the exception handled there), until the command says it has
stopped, and raises it when the ``with`` block ends as if nothing had happened, so a job that
was interrupted never returns as finished. It changes nothing where SIGINT is ignored
(``nohup``, a background job) or handled by someone else (an enclosing :class:`ctrl_c`, a
trainer's own handler), nor off the main thread.

>>> with ctrl_c() as c:
...     c.stopped()
"""

from __future__ import annotations

import _thread
import signal
import sys
import threading
import time
from typing import Any

__all__ = ["ctrl_c"]


class ctrl_c:  # noqa: N801 - used as a context manager, like contextlib's
    """Install the SIGINT handler for the ``with`` block; :meth:`stopped` once the command has
    handled the interrupt (its message printed), so nothing is raised after it."""

    def __init__(self, again: float = 0.5) -> None:
        self.again = again
        self._done = False
        self._stopped = False
        self._watching = False
        self._dropped = False
        self._installed = False
        self._main = threading.get_ident()

    def __enter__(self) -> "ctrl_c":
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            signal.signal(signal.SIGINT, self._handler)
            self._old_hook = sys.unraisablehook
            sys.unraisablehook = self._unraisable
            self._installed = True
        return self

    def stopped(self) -> None:
        """The interrupt reached the command: no more re-delivery."""
        self._done = self._stopped = True

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        self._done = True
        if self._installed:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            sys.unraisablehook = self._old_hook
            self._installed = False
            if self._watching and not self._stopped and exc_type is None:
                raise KeyboardInterrupt  # pressed during the block, dropped, and the block ran on to its end

    def _handler(self, signum: int, frame: Any) -> None:
        if self._done:
            return
        if not self._watching:  # a raw thread: starting one takes none of threading's locks
            self._watching = True
            _thread.start_new_thread(self._watch, ())
        raise KeyboardInterrupt

    def _unraisable(self, unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and not self._done:
            self._dropped = True  # in a finalizer: the watcher raises it again in a moment
        else:
            self._old_hook(unraisable)

    def _watch(self) -> None:
        last = time.monotonic()
        while not self._done:
            time.sleep(0.05)
            now = time.monotonic()
            if self._done or not (self._dropped or now - last >= self.again):
                continue
            exc: Any = sys._current_exceptions().get(self._main)
            if isinstance(exc, tuple):  # Python 3.11: an exc_info triple
                exc = exc[1]
            if not _handling(exc):  # nobody is handling it: it was dropped
                self._dropped, last = False, now
                signal.pthread_kill(self._main, signal.SIGINT)  # a signal, to end a wait too


def _handling(exc: BaseException | None) -> bool:
    """``exc`` (the exception the main thread handles) is a ``KeyboardInterrupt`` or was raised
    while one was handled (an error in the clean-up after Ctrl-C)."""
    seen = 0
    while exc is not None and seen < 100:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc, seen = exc.__context__, seen + 1
    return False
