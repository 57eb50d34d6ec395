"""The version of handsim (the one in pyproject.toml; a test checks they agree)."""

__version__ = "0.1.0"
