"""A policy with its parameters as a TOML file (``best.toml`` of ``handsim tune``), and ``@FILE``.

The file holds a ``[policy]`` table: ``name`` and one key per parameter::

    [policy]
    name = "hold-hand"
    bail_turn = 8
    bail_opponent_cards = 3

A user-written policy also names its policy file (``file = "my_policies.py"``, relative to the
TOML file's folder), which is loaded when the TOML file is read.

Wherever a policy is given on the command line (``--policy``, ``--lineup`` items, ``--against``,
``handsim tune POLICY``), ``@best.toml`` stands for the policy the file describes.  Other tables
(``[tuned]``: where the parameters came from) do not change the policy; the rules and the number
of players it was tuned for are compared with the run's (:func:`tuned_notes`), which says so
when they differ.
"""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._io import atomic_write
from ..policies import PolicyError, PolicySpec, parse_policy

__all__ = ["read_policy_toml", "expand_policy_ref", "expand_lineup_refs", "write_policy_toml", "policy_text",
           "tuned_notes"]


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def policy_text(name: str, params: Mapping[str, Any]) -> str:
    """``"hold-hand:bail_turn=8,bail_opponent_cards=3"`` (the text :func:`handsim.policies.parse_policy` reads)."""
    if not params:
        return name
    return name + ":" + ",".join(f"{k}={_num(v)}" for k, v in params.items())


def read_policy_toml(path) -> str:
    """The policy text described by the ``[policy]`` table of a TOML file.

    Raises
    ------
    handsim.policies.PolicyError
        A missing or unreadable file, bad TOML, no ``[policy]`` table or no ``name`` in it, or a
        parameter that is not a number (one line naming the file); unknown policies and parameters
        are refused when the text is parsed.
    """
    from .._io import InputFileError, read_toml

    p = Path(path)
    try:
        data = read_toml(p, "policy file")  # also: not UTF-8, nested too deeply, numbers too long
    except InputFileError as e:
        raise PolicyError(str(e)) from None
    table = data.get("policy")
    if not isinstance(table, dict):
        raise PolicyError(f"policy file {str(p)!r} has no [policy] table (name = \"...\" and its parameters)")
    name = table.get("name")
    if not isinstance(name, str) or not name.strip():
        raise PolicyError(f"policy file {str(p)!r}: [policy] needs name = \"<policy>\"")
    source = table.get("file")
    if source is not None:
        if not isinstance(source, str) or not source.strip():
            raise PolicyError(f"policy file {str(p)!r}: file = must name the Python file of the policy")
        from ..policies import load_policy_files

        load_policy_files([p.parent / source])
    params = {}
    for k, v in table.items():
        if k in ("name", "file"):
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not math.isfinite(v)):
            raise PolicyError(f"policy file {str(p)!r}: parameter {k} = {v!r:.40} is not a number")
        params[k] = v
    text = policy_text(name.strip(), params)
    from ..policies.registry import POLICIES

    if name.strip() in POLICIES:  # (another game's policies are checked by that game)
        try:
            parse_policy(text)
        except PolicyError as e:  # a value out of range, an unknown parameter: say which file holds it
            raise PolicyError(f"policy file {str(p)!r}: {e}") from None
    return text


def expand_policy_ref(text: str) -> str:
    """``@FILE`` -> the policy text of that file; anything else unchanged."""
    t = str(text).strip()
    if t.startswith("@"):
        return read_policy_toml(t[1:])
    return str(text)


def expand_lineup_refs(text: str) -> list[str]:
    """A line-up string with ``@FILE`` items, as a list of policy texts."""
    from ..policies import split_lineup

    return [expand_policy_ref(x) for x in split_lineup(text)]


def tuned_notes(refs, configs, players) -> list[str]:
    """Notes for the ``@FILE`` policies among ``refs`` whose ``[tuned]`` table says they were tuned
    under other rules, for another number of players than the run's, or against another field than
    the other seats of a line-up the run plays them in (the field compared as a multiset of labels;
    a policy given alone, which a tournament pairs with every other, is not compared).

    Parameters
    ----------
    refs : iterable of str
        Policy texts and line-up texts as given on the command line (``@FILE`` items are read).
    configs : sequence of handsim.games.hand.rules.Rules
        The run's rule configurations (a study may vary them).
    players : int or "2v2"
        The run's number of players.

    Returns
    -------
    list of str
        One line per file, e.g. ``best.toml was tuned under classic + opening_threshold=71, this
        run plays classic: its parameters were chosen for other rules``; empty when they agree or
        the file records nothing (a hand-written file).
    """
    from ..policies import split_lineup

    run_rules = sorted({r.note() for r in configs})
    fields = _fields(refs)
    notes, seen = [], set()
    for text in refs:
        for item in split_lineup(str(text)):
            t = item.strip()
            if not t.startswith("@") or t in seen:
                continue
            seen.add(t)
            try:
                tuned = tomllib.loads(Path(t[1:]).read_text(encoding="utf-8-sig")).get("tuned")
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):  # read_policy_toml has said what is wrong
                continue
            if not isinstance(tuned, dict):
                continue
            rules, n = tuned.get("rules"), tuned.get("players")
            why = []
            others = [r for r in run_rules if r != rules] if isinstance(rules, str) else []
            if others:  # every configuration of the run that is not the tuned one
                why.append(f"under {rules}, this run plays {' / '.join(others)}"
                           + (" as well" if rules in run_rules else ""))
            if ((isinstance(n, int) and not isinstance(n, bool)) or n == "2v2") and str(n) != str(players):
                why.append(f"for {n} players, this run has {players}")
            against = tuned.get("against")
            if isinstance(against, str) and against.strip():
                want = sorted(a.strip() for a in split_lineup(against))
                other = [f for f in fields.get(t, []) if sorted(f.split(",")) != want]
                if other:
                    why.append(f"against {against}, this run plays it against {' / '.join(other)}")
            if why:
                notes.append(f"{t[1:]} was tuned {'; '.join(why)}: its parameters were chosen for another game")
    return notes


def _fields(refs) -> dict[str, list[str]]:
    """For each ``@FILE`` item of the line-ups among ``refs`` (texts of two or more policies), the
    policies of the other seats of each line-up it plays in, as canonical labels joined by commas,
    in line-up order (a file that cannot be read, or an item that does not parse, gives none:
    :func:`read_policy_toml` and the line-up's own check say what is wrong)."""
    from ..policies import split_lineup

    out: dict[str, list[str]] = {}
    for text in refs:
        items = [x.strip() for x in split_lineup(str(text))]
        if len(items) < 2:
            continue
        try:
            labels = [parse_policy(expand_policy_ref(x)).label for x in items]
        except (PolicyError, OSError, ValueError):
            continue
        for i, x in enumerate(items):
            if x.startswith("@"):
                field = ",".join(labels[:i] + labels[i + 1:])
                if field not in out.setdefault(x, []):
                    out[x].append(field)
    return out


def write_policy_toml(path, spec: PolicySpec, info: Mapping[str, Any] | None = None, comment: str = "") -> None:
    """Write ``spec`` as a ``[policy]`` table (every parameter, defaults included) and ``info`` as a
    ``[tuned]`` table of plain values, atomically.  The file reads back to ``spec``."""
    lines = [f"# {line}" if line else "#" for line in comment.splitlines()]
    lines += ["[policy]", f"name = {json.dumps(spec.name)}"]
    if not spec.policy.builtin:  # a user-written policy: where it is declared
        lines.append(f"file = {json.dumps(spec.policy.source)}")
    lines += [f"{k} = {_num(v)}" for k, v in spec.params]
    if info:
        lines += ["", "[tuned]"]
        for k, v in info.items():
            lines.append(f"{k} = {_toml_value(v)}")
    text = "\n".join(lines) + "\n"
    back = parse_policy(read_text_policy(text))
    if back != spec:  # pragma: no cover - a bug, not an input error
        raise RuntimeError(f"best.toml would not read back to {spec.label}")
    atomic_write(Path(path), text.encode("utf-8"))


def read_text_policy(text: str) -> str:
    """The policy text of TOML ``text`` (as :func:`read_policy_toml`, from a string)."""
    table = tomllib.loads(text)["policy"]
    return policy_text(table["name"], {k: v for k, v in table.items() if k not in ("name", "file")})


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return json.dumps(str(v), ensure_ascii=False)
