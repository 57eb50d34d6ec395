"""The policy registry: every policy by name - the built-ins, and the ones loaded from policy
files (:mod:`handsim.policies.files`).

Built-in policies are the modules of :data:`BUILTIN_MODULES`, each declaring one
:class:`~handsim.policies.declare.Policy` as ``POLICY``; their kernel ids are their positions in
that tuple.  User-written policies get their ids from the engine compiled for them
(:mod:`handsim.policies.engines`).
"""

from __future__ import annotations

import dataclasses
import importlib

from ..errors import PolicyError, PolicyFileError
from .declare import Policy

#: Modules of the built-in policies, in kernel-id order.
BUILTIN_MODULES = ("greedy", "hold_hand", "random_moves", "card_reader", "sampler")

#: Every known policy by name: the built-ins, then user policies as their files are loaded.
POLICIES: dict[str, Policy] = {}
#: Kernel id of each built-in policy.
BUILTIN_IDS: dict[str, int] = {}


def _load_builtins() -> None:
    for i, mod in enumerate(BUILTIN_MODULES):
        policy = importlib.import_module(f"{__package__}.{mod}").POLICY
        POLICIES[policy.name] = policy
        BUILTIN_IDS[policy.name] = i


def builtin_policies() -> list[Policy]:
    """The built-in policies, in kernel-id order."""
    return [p for p in POLICIES.values() if p.builtin]


def user_policies() -> list[Policy]:
    """The user-written policies loaded so far."""
    return [p for p in POLICIES.values() if not p.builtin]


def get(name: str) -> Policy:
    """The policy called ``name``.

    Raises
    ------
    PolicyError
        Unknown name (the message lists the known ones).
    """
    try:
        return POLICIES[name]
    except KeyError:
        shown = repr(name) if len(name) <= 40 else repr(name[:37]) + "..."
        raise PolicyError(f"unknown policy {shown}: allowed {', '.join(POLICIES)}"
                          + ("" if user_policies() else " (user-written policies need --policy-file FILE)")) from None


def register(policy: Policy, source: str) -> Policy:
    """Add a user-written policy declared in file ``source`` (checked; see
    :meth:`Policy.check`).  Registering the same declaration from the same file again is a no-op.

    Raises
    ------
    PolicyFileError
        A name that clashes with a built-in or with a policy of another file.
    """
    policy = dataclasses.replace(policy, source=str(source))
    old = POLICIES.get(policy.name)
    if old is not None:
        if old.builtin:
            raise PolicyFileError(f"{source}: policy name {policy.name!r} clashes with the built-in policy of that "
                                  f"name: choose another name")
        if old.source != policy.source:
            raise PolicyFileError(f"{source}: policy name {policy.name!r} is already declared in {old.source}: "
                                  f"choose another name")
    POLICIES[policy.name] = policy
    return policy


_load_builtins()
