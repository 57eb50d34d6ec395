"""Study files: several studies, tournaments and tuning runs run as one experiment
(``handsim batch FILE.toml``).

A study file is TOML::

    [batch]
    title = "House rules, one switch at a time"   # the index report's title (optional)

    [defaults]            # keys every part takes whose command has that option (and kind)
    policy = "card-reader"
    deals = 40000
    seed = 20261202

    [run.saudi-ascending] # a part named saudi-ascending: its output folder is OUT/saudi-ascending
    vary = {opening_rule = ["fixed", "ascending"]}

    [run.tune-51]
    kind = "tune"         # simulate (the default), tournament or tune
    policy = "hold-hand"
    param = {bail_turn = "4:20:2"}

    [run.matches-51]
    lineup = [["@{tune-51}/best.toml", "greedy", "greedy", "greedy"]]   # {NAME}: an earlier part's folder

The keys of a part are the options of its command (``--joker-penalty`` is ``joker_penalty``,
repeatable options take a list); ``kind`` and ``out`` (the part's folder, relative to the
batch's folder) are the batch's own.  This module reads the file's structure, the parts, their
folders and their references (:func:`load_plan`), and keeps the batch's record and its index
report; the option values themselves are checked by the commands' own converters
(``handsim.cli.batch``).
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from handsim.errors import StudyError

__all__ = ["BATCH_FILE", "KINDS", "BatchError", "Part", "Plan", "load_plan", "check_record", "write_record",
           "write_index"]

#: The commands a part may run.
KINDS = ("simulate", "tournament", "tune")
#: The batch's record in its folder: the study file's hash and the parts (``--resume`` checks it).
BATCH_FILE = "batch.json"
#: Keys of a part that are the batch's, not the command's.
PART_KEYS = ("kind", "out")
_TOP_KEYS = ("batch", "defaults", "run")
_BATCH_KEYS = ("title",)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")
_REF = re.compile(r"\{([^{}]*)\}")


class BatchError(StudyError):
    """A study file that cannot be run: the one-line message names the file, the entry and the key."""


@dataclass
class Part:
    """One part of a batch: a study, a tournament or a tuning run.

    ``options`` are the command's options as the file gives them (defaults merged in, references
    ``{NAME}`` replaced by that part's folder); ``refs`` the parts it refers to.
    """

    name: str
    kind: str
    out: Path
    options: dict
    refs: tuple[str, ...] = ()
    from_defaults: frozenset = field(default_factory=frozenset)

    @property
    def entry(self) -> str:
        """The part's table in the file, as an error message names it."""
        return f"[run.{self.name}]"


@dataclass
class Plan:
    """A study file read: its parts in the file's order and the folder they go to."""

    file: Path
    sha256: str
    title: str
    out: Path
    parts: list[Part]
    defaults: dict


def _fail(file, entry: str, key: str | None, why: str) -> BatchError:
    where = f"{file}: {entry}" + (f" {key}" if key else "")
    return BatchError(f"{where}: {why}")


def _refs_in(value) -> list[str]:
    if isinstance(value, str):
        return _REF.findall(value)
    if isinstance(value, list):
        return [r for v in value for r in _refs_in(v)]
    if isinstance(value, dict):
        return [r for v in value.values() for r in _refs_in(v)]
    return []


def _replace_refs(value, folders: dict[str, Path]):
    if isinstance(value, str):
        return _REF.sub(lambda m: str(folders[m.group(1)]), value)
    if isinstance(value, list):
        return [_replace_refs(v, folders) for v in value]
    if isinstance(value, dict):
        return {k: _replace_refs(v, folders) for k, v in value.items()}
    return value


def load_plan(path, out=None) -> Plan:
    """Read a study file's structure.

    Parameters
    ----------
    path : str or Path
        The study file (TOML, UTF-8).
    out : str or Path, optional
        The batch's folder; default: the folder that holds the file.

    Returns
    -------
    Plan

    Raises
    ------
    BatchError
        One line naming the file, the entry and the key: an unknown table or key of the batch, a
        part that is not a table, an unknown ``kind``, a bad ``out``, two parts writing to the
        same folder (or one inside another's), a reference ``{NAME}`` to no part or to a part that
        runs later, no parts.
    handsim.errors.InputFileError
        The file cannot be read or is not TOML.
    """
    from handsim._io import read_bytes, read_toml

    path = Path(path)
    data = read_toml(path, "study file")
    sha = hashlib.sha256(read_bytes(path, "study file")).hexdigest()
    for key in data:
        if key not in _TOP_KEYS:
            raise _fail(path, f"[{key}]", None, "unknown table: a study file has [batch], [defaults] and [run.NAME] "
                                                "tables")
    for key in _TOP_KEYS:
        if key in data and not isinstance(data[key], dict):
            raise _fail(path, key, None, f"must be a table ([{key}]{'.NAME' if key == 'run' else ''})")
    batch = data.get("batch", {})
    for key, value in batch.items():
        if key not in _BATCH_KEYS:
            raise _fail(path, "[batch]", key, f"unknown key (allowed: {', '.join(_BATCH_KEYS)})")
        if not isinstance(value, str):
            raise _fail(path, "[batch]", key, "must be a string")
    defaults = data.get("defaults", {})
    if "out" in defaults:
        raise _fail(path, "[defaults]", "out", "is a part's own key: give it in each [run.NAME]")
    if defaults.get("kind", "simulate") not in KINDS:
        raise _fail(path, "[defaults]", "kind", f"unknown kind {defaults['kind']!r} (allowed: {', '.join(KINDS)})")
    runs = data.get("run", {})
    if not runs:
        raise _fail(path, "[run.NAME]", None, "no parts: the file lists none (a part is a table [run.NAME])")
    out = Path(out) if out is not None else path.parent
    parts: list[Part] = []
    folders: dict[str, Path] = {}
    for name, table in runs.items():
        entry = f"[run.{name}]"
        if not isinstance(table, dict):
            raise _fail(path, entry, None, "must be a table of the command's options")
        if not _NAME.match(name) or name in (".", ".."):
            raise _fail(path, entry, None, "a part's name is its folder's: letters, digits, '-', '_' and '.'")
        kind = table.get("kind", defaults.get("kind", "simulate"))
        if kind not in KINDS:
            raise _fail(path, entry, "kind", f"unknown kind {kind!r} (allowed: {', '.join(KINDS)})")
        rel = table.get("out", name)
        if not isinstance(rel, str) or not rel.strip() or Path(rel).is_absolute() or ".." in Path(rel).parts:
            raise _fail(path, entry, "out", "must be a folder inside the batch's folder (a relative path, no '..')")
        folder = out / rel
        for other, f in folders.items():
            a, b = Path(folder), Path(f)
            if a == b or a in b.parents or b in a.parents:
                raise _fail(path, entry, "out", f"{folder} is also the output of [run.{other}] (or holds it, or "
                                                "lies in it): every part needs a folder of its own")
        if Path(rel) == Path("."):
            raise _fail(path, entry, "out", "is the batch's folder itself: every part needs a folder of its own")
        options = {k: v for k, v in table.items() if k not in PART_KEYS}
        merged = {**{k: v for k, v in defaults.items() if k not in options and k != "kind"}, **options}
        refs = []
        for key, value in merged.items():
            for ref in _refs_in(value):
                where = "[defaults]" if key not in options else entry
                if ref not in runs:
                    raise _fail(path, where, key, f"{{{ref}}} names no part (a reference {{NAME}} is the folder "
                                                  "of the part [run.NAME])")
                if ref not in folders:
                    raise _fail(path, where, key, f"{{{ref}}} names a part that does not run before this one "
                                                  "(parts run in the file's order)")
                refs.append(ref)
        merged = _replace_refs(merged, folders)
        parts.append(Part(name, kind, folder, merged, tuple(dict.fromkeys(refs)),
                          frozenset(k for k in merged if k not in options)))
        folders[name] = folder
    title = batch.get("title") or f"Batch {path.name}"
    return Plan(path, sha, title, out, parts, {k: v for k, v in defaults.items() if k != "kind"})


def record(plan: Plan) -> dict:
    """The batch's record (``OUT/batch.json``): the file, its SHA-256 and the parts."""
    return {"kind": "batch", "file": plan.file.name, "sha256": plan.sha256,
            "parts": [{"name": p.name, "kind": p.kind, "out": str(p.out)} for p in plan.parts]}


def write_record(plan: Plan) -> None:
    """Write ``OUT/batch.json`` (atomically)."""
    from handsim._io import atomic_write

    plan.out.mkdir(parents=True, exist_ok=True)
    atomic_write(plan.out / BATCH_FILE, (json.dumps(record(plan), indent=2) + "\n").encode("utf-8"))


def check_record(plan: Plan) -> None:
    """Refuse to resume a batch whose file changed since it started (or that never started).

    Raises
    ------
    BatchError
        No ``OUT/batch.json``, or one of another file or another version of the file.
    """
    from handsim._io import read_json

    path = plan.out / BATCH_FILE
    if not path.is_file():
        raise BatchError(f"nothing to resume in {plan.out}: no {BATCH_FILE} there (the batch never started; run it "
                         "without --resume)")
    saved = read_json(path, BATCH_FILE)
    if not isinstance(saved, dict) or saved.get("kind") != "batch":
        raise BatchError(f"{path}: not a batch's record (written by handsim batch)")
    if saved.get("sha256") != plan.sha256:
        raise BatchError(f"{plan.file} changed since the batch in {plan.out} started (its SHA-256 is recorded in "
                         f"{path}): restore the file, or run the new one into another --out")


def write_index(plan: Plan, status: dict[str, str], commands: dict[str, str]) -> list[Path]:
    """The batch's index report, ``OUT/index.md`` and ``OUT/index.html``: each part with its kind,
    its status and links to its report, and the command that runs it alone.

    Parameters
    ----------
    plan : Plan
    status : dict of str to str
        Part name -> ``done`` or ``not finished``.
    commands : dict of str to str
        Part name -> the ``handsim`` command line that runs it alone.

    Returns
    -------
    list of Path
        The files written.
    """
    from handsim._io import atomic_write
    from handsim.report import html as html_renderer
    from handsim.report import markdown as md_renderer
    from handsim.report.document import Column, Document, Paragraph, Section, Table

    rows = []
    for p in plan.parts:
        rel = p.out.relative_to(plan.out).as_posix()
        links = " · ".join(f"[{f}]({rel}/{f})" for f in ("report.html", "report.md") if (p.out / f).is_file())
        rows.append((f"`{p.name}`", f"handsim {p.kind}", status.get(p.name, "not finished"), links or "–"))
    done = sum(status.get(p.name) == "done" for p in plan.parts)
    # absolute paths: the index is read later, from anywhere (the file's bare name worked only in its folder,
    # and without --out only when the batch wrote beside its file)
    resume = shlex.join(["handsim", "batch", str(Path(plan.file).resolve()), "--out", str(Path(plan.out).resolve()),
                         "--resume"])
    doc = Document(plan.title, lead=f"{done} of {len(plan.parts)} parts done, run from the study file "
                                    f"`{plan.file.name}` (`{resume}` finishes what is left).")
    doc.add(Section("Parts").add(Table((Column("part"), Column("command"), Column("status"), Column("report")),
                                       tuple(rows))))
    doc.add(Section("Each part alone").add(
        Paragraph("Each part is one command; run alone, it gives the same results:"),
        *[Paragraph(f"`{commands[p.name]}`") for p in plan.parts if p.name in commands]))
    written = []
    for name, text in (("index.md", md_renderer.render(doc)), ("index.html", html_renderer.render(doc))):
        atomic_write(plan.out / name, text.encode("utf-8"))
        written.append(plan.out / name)
    return written
