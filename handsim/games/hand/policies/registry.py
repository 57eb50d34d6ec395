"""The registry of classic Hand's policies (RULES.md §1-7): every built-in policy by name, and
the user-written policies as their files are loaded (:mod:`handsim.policies.files`).

It is an instance of the shared :class:`handsim.policies.registry.Registry`: the built-in
policies are the modules of :data:`BUILTIN_MODULES`, each declaring one
:class:`~handsim.policies.declare.Policy` as ``POLICY``; their kernel ids are their positions in
that tuple.  ``python -m handsim.games.hand.policies.engines`` writes
:mod:`handsim.games.hand.kernels.dispatch` from it (a test checks it is current).
"""

from __future__ import annotations

from handsim.policies.declare import Policy
from handsim.policies.registry import Registry

#: Classic Hand's policies (RULES.md §1-7), with policy files.
REGISTRY = Registry("hand", __package__, ("greedy", "hold_hand", "random_moves", "card_reader", "sampler", "searcher"),
                    policy_files=True)
#: Modules of the built-in policies, in kernel-id order.
BUILTIN_MODULES = REGISTRY.builtin_modules
#: Every known policy by name: the built-ins, then user policies as their files are loaded.
POLICIES: dict[str, Policy] = REGISTRY.policies
#: Kernel id of each built-in policy.
BUILTIN_IDS: dict[str, int] = REGISTRY.builtin_ids
builtin_policies = REGISTRY.builtin_policies
user_policies = REGISTRY.user_policies
get = REGISTRY.get
register = REGISTRY.register
