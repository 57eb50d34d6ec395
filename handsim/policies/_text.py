"""Text helpers shared by the policy files (:mod:`.files`) and the engines (:mod:`.engines`)."""

from __future__ import annotations


def first_line(text: str) -> str:
    """The first line of a (numba) error message that says something: blank lines and rules of
    ``-``/``=`` skipped, white space folded, at most 300 characters."""
    for line in str(text).splitlines():
        line = line.strip()
        if line and not line.startswith(("-", "=")):
            return " ".join(line.split())[:300]
    return "numba could not compile them"
