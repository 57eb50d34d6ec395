"""A guard, nothing else (the project is described in pyproject.toml).

Older pips (23, which Python 3.10's venv brings) do not refuse a project whose ``requires-python``
the interpreter does not meet before they resolve its dependencies: on Python 3.10 they spend many
minutes backtracking through old versions of numpy, scipy, dask... instead of saying so.  The build
backend runs this file first (as ``__main__``), and it says so at once.
"""

import sys

if sys.version_info < (3, 11):
    sys.exit(f"handsim needs Python 3.11 or newer; this is Python {'.'.join(map(str, sys.version_info[:3]))}. "
             "Make the virtual environment with a newer Python, e.g. python3.11 -m venv .venv")

if __name__ == "__main__":  # run by the build backend; an 'import setup' does nothing
    from setuptools import setup

    setup()
