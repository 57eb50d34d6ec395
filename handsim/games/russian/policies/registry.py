"""The registry of Russian Hand's policies: every built-in policy by name, and the generated
dispatch of the engine (RULES.md §8).

Russian Hand has its own policy names (``greedy``, ``patient``, ``random``): a Russian Hand
policy cannot sit at a classic Hand table, nor the reverse, so each game keeps its registry.
It is an instance of the shared :class:`handsim.policies.registry.Registry`: the built-in
policies are the modules of :data:`BUILTIN_MODULES`, each declaring one
:class:`~handsim.policies.declare.Policy` (``game="russian"``) as ``POLICY``; their kernel ids
are their positions in that tuple.  ``python -m handsim.games.russian.policies.registry`` writes
:mod:`handsim.games.russian.kernels.dispatch` from it (a test checks it is current).
"""

from __future__ import annotations

from pathlib import Path

from handsim.policies.declare import Policy
from handsim.policies.registry import Registry

from . import DECISIONS

#: Russian Hand's policies (RULES.md §8): built-ins only, no policy files.
REGISTRY = Registry("russian", __package__, ("greedy", "patient", "random_play"), words="Russian Hand ")
#: Modules of the built-in policies, in kernel-id order.
BUILTIN_MODULES = REGISTRY.builtin_modules
#: Every Russian Hand policy by name.
POLICIES: dict[str, Policy] = REGISTRY.policies
#: Kernel id of each built-in policy.
BUILTIN_IDS: dict[str, int] = REGISTRY.builtin_ids
get = REGISTRY.get
policy_id = REGISTRY.policy_id

#: The generated dispatch module (see :func:`dispatch_source`).
DISPATCH_PATH = Path(__file__).resolve().parent.parent / "kernels" / "dispatch.py"


def dispatch_source() -> str:
    """The source of :mod:`handsim.games.russian.kernels.dispatch`: one ``@njit`` function per
    decision function of ``(g, seat)`` that calls the seat's policy by its kernel id."""
    from handsim.policies.dispatch import dispatch_source as source

    entries, preamble = REGISTRY.dispatch_entries()
    title = ("Policy dispatch of the Russian Hand engine, generated from its policy registry by\n"
             "``python -m handsim.games.russian.policies.registry``: do not edit (a test checks it is current).\n\n"
             "Each function calls the decision function of the seat's policy, told apart by its kernel id\n"
             "(the position of its module in ``handsim.games.russian.policies.registry.BUILTIN_MODULES``).\n")
    return source(entries, preamble, title, entry_points=tuple(DECISIONS), policy_id="g[0].pol[seat]")


if __name__ == "__main__":
    DISPATCH_PATH.write_text(dispatch_source())
    print(f"wrote {DISPATCH_PATH}")
