"""Text helpers of the policy layer: numba's error messages in one line, and the illegal-move message."""

from __future__ import annotations


def first_line(text: str) -> str:
    """The first line of a (numba) error message that says something: blank lines and rules of
    ``-``/``=`` skipped, white space folded, at most 300 characters."""
    for line in str(text).splitlines():
        line = line.strip()
        if line and not line.startswith(("-", "=")):
            return " ".join(line.split())[:300]
    return "numba could not compile them"


#: What comes before the replay command in an illegal-move message (the command stays last, to be
#: copied whole).
REPLAY = "; replay it: "


def add_context(message: str, context: str) -> str:
    """``message`` with ``context`` put before its replay command (which stays last, to be copied)."""
    head, sep, cmd = message.partition(REPLAY)
    return f"{head}{context}{sep}{cmd}"
