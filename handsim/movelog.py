"""Checking a file of move logs, for every game: one move log (a JSON object) a line, each handed
to the game's check of one deal (:func:`handsim.games.hand.checker.check_deal` for classic Hand,
:func:`handsim.games.russian.checker.check_deal` for Russian Hand)."""

from __future__ import annotations

from typing import Any, Callable, Iterable

#: A game's check of one move log: the discrepancies it finds, one line each (empty: consistent).
Check = Callable[[Any], list]


def check_file(path, check: Check) -> tuple[int, list[tuple[Any, str]]]:
    """Check every deal of a JSON-lines file of move logs.

    Parameters
    ----------
    path : str or os.PathLike
        One move log per line (blank lines are skipped; a UTF-8 byte-order mark is read past).
    check : callable
        The game's check of one move log, returning its discrepancies.

    Returns
    -------
    n_deals : int
        Deals (non-blank lines) read.
    problems : list of (deal, str)
        Every discrepancy with the ``deal`` number it belongs to (None for a line that is
        not JSON; its message names the line).

    Raises
    ------
    OSError
        If the file cannot be read.
    """
    with open(path, encoding="utf-8-sig") as f:
        return check_lines(f, check)


def check_lines(lines: Iterable[str], check: Check) -> tuple[int, list[tuple[Any, str]]]:
    """:func:`check_file` of lines of text already read (e.g. standard input): one move log a line,
    blank lines skipped, lines numbered from 1."""
    from ._io import InputFileError, parse_json

    n_deals = 0
    problems: list[tuple[Any, str]] = []
    for line_no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        n_deals += 1
        try:
            trace = parse_json(line, f"line {line_no}")
        except InputFileError as e:
            problems.append((None, f"line {line_no}: not a JSON object: {e}"))
            continue
        deal = trace.get("deal") if isinstance(trace, dict) else None
        problems.extend((deal, message) for message in check(trace))
    return n_deals, problems
