"""The examples of every --help run as shown: a file an example reads exists in the checkout or
is written by an earlier example of the same help (--out DIR, > FILE)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from handsim.cli import cli

ROOT = Path(__file__).resolve().parents[1]
_PATHLIKE = re.compile(r"\.(json|jsonl|toml|py|csv|md|npz)$|^(results|examples|docs)/")


def _examples(text: str) -> list[list[str]]:
    """The words of each ``$ handsim ...`` example line (continuations joined, comments dropped)."""
    lines, out = text.replace("\\\n", " ").splitlines(), []
    for line in lines:
        line = line.strip()
        if line.startswith("$ "):
            out.append(shlex.split(line[2:], comments=True))
    return out


def _files_read(words: list[str], written: list[str]) -> list[str]:
    """The files the words of one example read that neither exist nor were written before them
    (``written``, which the example's own ``--out DIR`` and ``> FILE`` join, in order)."""
    missing = []
    for i, w in enumerate(words):
        prev = words[i - 1] if i else ""
        if prev in ("--out", ">"):
            written.append(w.rstrip("/"))
            continue
        for part in w.split(","):
            part = part.split("=", 1)[-1] if part.startswith("--") else part
            part = part.lstrip("@")
            if prev == "<" or ("://" not in part and _PATHLIKE.search(part)):
                if not (ROOT / part).exists() and not any(part == d or part.startswith(d + "/") for d in written):
                    missing.append(part)
    return missing


def _commands():
    yield "", cli
    for name, cmd in cli.commands.items():
        yield name, cmd


@pytest.mark.parametrize("name", [n for n, _ in _commands()])
def test_every_file_an_example_reads_exists_or_an_earlier_example_writes_it(name):
    r = CliRunner().invoke(cli, [*([name] if name else []), "--help"], terminal_width=200)
    assert r.exit_code == 0, r.output
    examples = _examples(r.output)
    assert examples, f"handsim {name} --help has no example"
    written: list[str] = []
    for words in examples:
        missing = _files_read(words, written)
        assert not missing, f"handsim {name} --help: {' '.join(words)!r} reads {missing}: no such file in the " \
                            "checkout, and no earlier example writes it"
