"""The ``handsim`` command-line interface (click).

``cli`` is the click group; ``main`` is the console script entry point
(``handsim = "handsim.cli:main"`` in pyproject.toml).
"""

from __future__ import annotations

from .cli import handsim as cli

__all__ = ["cli", "main"]


def main(args=None):
    """Run the ``handsim`` command (``args`` default to ``sys.argv[1:]``)."""
    return cli.main(args=args, prog_name="handsim")
