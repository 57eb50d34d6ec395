"""Every exception handsim raises on purpose, in one place.

Two families, which the command line turns into one-line errors with different exit codes:

* :class:`InputError` (a ``ValueError``): the input was wrong - an unknown rule option, a bad
  card, a policy that does not exist, a policy file that cannot be used, a study that cannot be
  run as asked.  The message says what was wrong and what is allowed.  Exit code 2.
* :class:`RunError` (a ``RuntimeError``): the input was fine but the run failed - an output
  could not be written (:class:`WriteError`, also an ``OSError``), the engine reported an
  internal error (a bug: :class:`EngineError`, :class:`StudyEngineError`), or a user-written
  policy made an illegal move (:class:`PolicyMoveError`).  Exit code 1.

The classes are re-exported where they were first defined (``handsim.games.hand.rules.RulesError``,
``handsim.cards.CardError``, ...), so older imports keep working.  This module imports nothing
heavy: the command line reads it at start-up.
"""

from __future__ import annotations


class HandsimError(Exception):
    """Base of every handsim exception."""


class InputError(HandsimError, ValueError):
    """Bad input: the one-line message names what was wrong and what is allowed."""


class RulesError(InputError):
    """An unknown option, a value outside its allowed range, or an unplayable combination."""


class CardError(InputError):
    """Card text that cannot be read, or cards that do not fit the deck."""


class PolicyError(InputError):
    """Unknown policy, unknown parameter or bad value."""


class PolicyFileError(PolicyError):
    """A policy file that cannot be used: missing, not UTF-8, failing to import, declaring no
    policy or a name that clashes, a decision function that is not compiled or has the wrong
    signature, a parameter default outside its range."""


class StudyError(InputError):
    """A study that cannot be run as asked (bad sizes, an existing output, a broken resume)."""


class TableError(InputError):
    """A Russian Hand table that is not a list of legal melds, or a position whose cards do not
    fit the deck (a joker, a third copy)."""


class ScoreInputError(InputError):
    """Round-end data that cannot be scored; the one-line message names the field."""


class InputFileError(InputError):
    """An input (a file, standard input, a saved text) that cannot be read as its format: missing,
    not UTF-8, malformed JSON or TOML, nested too deeply, a number too long to read.  The message
    names the input and, where it helps, the line and column (and an invisible character there)."""


class FolderInUse(InputError):
    """Another handsim process holds the output folder (see :class:`handsim._io.FolderLock`)."""


class RunError(HandsimError, RuntimeError):
    """A run that failed although its input was valid (exit code 1)."""


class EngineError(RunError):
    """The engine reported an internal error while replaying a deal: a bug, not bad input.

    Attributes
    ----------
    code : int
        The engine's error code.
    deal : int or None
        The deal index (None for a stacked deal).
    """

    def __init__(self, code: int, deal: int | None, message: str | None = None):
        self.code, self.deal = int(code), deal
        where = "a stacked deal" if deal is None else f"deal {deal}"
        super().__init__(message or f"engine error {self.code} in {where}")


class StudyEngineError(RunError):
    """The engine reported an internal error in a deal of a study: a bug, not bad input."""


class WriteError(OSError, RunError):
    """An output that cannot be written: a full device, no permission, a folder in the way.

    ``str(e)`` is one line, ``cannot write PATH: REASON``; ``errno`` and ``filename`` are those of
    the underlying :class:`OSError` (so ``except OSError`` still catches it).
    """

    def __init__(self, path, err: OSError | str):
        reason = err if isinstance(err, str) else (err.strerror or str(err))
        super().__init__(getattr(err, "errno", None), reason, str(path))
        self.text = f"cannot write {path}: {reason}"

    def __str__(self) -> str:
        return self.text


class PolicyMoveError(RunError):
    """A user-written policy made an illegal move (or never ended its turn or its round).

    The message is one line: the policy, the deal, the seat, the turn, the move, the rule it
    breaks, and the ``handsim show-deal`` command that reproduces it.
    """
