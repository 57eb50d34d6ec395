"""The registry of Russian Hand's policies: every built-in policy by name, and the generated
dispatch of the engine (RULES.md §8).

Russian Hand has its own policy names (``greedy``, ``patient``, ``random``): a Russian Hand
policy cannot sit at a classic Hand table, nor the reverse, so each game keeps its registry.
Built-in policies are the modules of :data:`BUILTIN_MODULES`, each declaring one
:class:`~handsim.policies.declare.Policy` (``game="russian"``) as ``POLICY``; their kernel ids
are their positions in that tuple.  ``python -m handsim.games.russian.policies.registry`` writes
:mod:`handsim.games.russian.kernels.dispatch` from it (a test checks it is current).
"""

from __future__ import annotations

import importlib
from pathlib import Path

from handsim.errors import PolicyError
from handsim.policies.declare import GAME_ENTRY_POINTS, Policy

#: Modules of the built-in policies, in kernel-id order.
BUILTIN_MODULES = ("greedy", "patient", "random_play")

#: Every Russian Hand policy by name.
POLICIES: dict[str, Policy] = {}
#: Kernel id of each built-in policy.
BUILTIN_IDS: dict[str, int] = {}

#: The generated dispatch module (see :func:`dispatch_source`).
DISPATCH_PATH = Path(__file__).resolve().parent.parent / "kernels" / "dispatch.py"


def _load_builtins() -> None:
    for i, mod in enumerate(BUILTIN_MODULES):
        policy = importlib.import_module(f"{__package__}.{mod}").POLICY
        if policy.game != "russian":  # pragma: no cover - a declaration error of ours
            raise PolicyError(f"{mod}: a Russian Hand policy must be declared with game='russian'")
        POLICIES[policy.name] = policy
        BUILTIN_IDS[policy.name] = i


def get(name: str) -> Policy:
    """The Russian Hand policy called ``name``.

    Raises
    ------
    PolicyError
        Unknown name (the message lists the known ones).
    """
    try:
        return POLICIES[name]
    except KeyError:
        shown = repr(name) if len(name) <= 40 else repr(name[:37]) + "..."
        raise PolicyError(f"unknown Russian Hand policy {shown}: allowed {', '.join(POLICIES)}") from None


def policy_id(name: str) -> int:
    """The kernel id of the policy ``name``."""
    get(name)
    return BUILTIN_IDS[name]


def dispatch_source() -> str:
    """The source of :mod:`handsim.games.russian.kernels.dispatch`: one ``@njit`` function per
    decision function of ``(g, seat)`` that calls the seat's policy by its kernel id."""
    from handsim.policies.engines import dispatch_source as source

    entries, preamble = [], []
    for mod in BUILTIN_MODULES:
        policy = importlib.import_module(f"{__package__}.{mod}").POLICY
        i = BUILTIN_IDS[policy.name]
        preamble.append(f"from handsim.games.russian.policies.{mod} import POLICY as _P{i}")
        entries.append((i, f"_P{i}", policy))
    title = ("Policy dispatch of the Russian Hand engine, generated from its policy registry by\n"
             "``python -m handsim.games.russian.policies.registry``: do not edit (a test checks it is current).\n\n"
             "Each function calls the decision function of the seat's policy, told apart by its kernel id\n"
             "(the position of its module in ``handsim.games.russian.policies.registry.BUILTIN_MODULES``).\n")
    return source(entries, preamble, title, entry_points=GAME_ENTRY_POINTS["russian"], policy_id="g[0].pol[seat]")


_load_builtins()


if __name__ == "__main__":
    DISPATCH_PATH.write_text(dispatch_source())
    print(f"wrote {DISPATCH_PATH}")
