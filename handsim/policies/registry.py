"""Policy registries: every policy of a game by name - its built-ins, and (classic Hand) the ones
loaded from policy files (:mod:`handsim.policies.files`).

:class:`Registry` is written once; each game makes one.  A game's built-in policies are the
modules of its ``BUILTIN_MODULES``, each declaring one :class:`~handsim.policies.declare.Policy`
as ``POLICY``; their kernel ids are their positions in that tuple.  User-written policies get
their ids from the engine compiled for them (:mod:`handsim.games.hand.policies.engines`).

Each game's registry is made by its module ``handsim.games.<game>.policies.registry``
(:func:`registry_of` imports it on first use).  This module's names :data:`POLICIES`,
:func:`get`, :func:`register`, ... are the default game's registry, kept for one release.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Sequence

from ..errors import PolicyError, PolicyFileError
from .declare import Policy


class Registry:
    """The policies of one game, by name.

    Parameters
    ----------
    game : str
        The game its policies are declared for (:attr:`Policy.game`).
    package : str
        The package that holds the built-in policies' modules.
    builtin_modules : sequence of str
        Those modules, in kernel-id order.
    words : str
        Put before ``policy`` in messages: ``""`` (classic Hand), ``"Russian Hand "``.
    policy_files : bool
        Whether user-written policies may be registered (:meth:`register`); such a game compiles an
        engine for the policies of a line-up, which numbers them (``Engine.policy_id``), while a
        game without them plays every built-in in one engine, by the registry's kernel ids.

    Attributes
    ----------
    policies : dict of str to Policy
        Every known policy by name: the built-ins, then user policies as their files are loaded.
    builtin_ids : dict of str to int
        Kernel id of each built-in policy.
    """

    def __init__(self, game: str, package: str, builtin_modules: Sequence[str], words: str = "",
                 policy_files: bool = False):
        self.game, self.package, self.words, self.policy_files = game, package, words, policy_files
        self.builtin_modules = tuple(builtin_modules)
        self.policies: dict[str, Policy] = {}
        self.builtin_ids: dict[str, int] = {}
        REGISTRIES[game] = self
        for i, mod in enumerate(self.builtin_modules):
            policy = importlib.import_module(f"{package}.{mod}").POLICY
            if policy.game != game:  # pragma: no cover - a declaration error of ours
                raise PolicyError(f"{mod}: a {words or game + ' '}policy must be declared with game={game!r}")
            self.policies[policy.name] = policy
            self.builtin_ids[policy.name] = i

    def builtin_policies(self) -> list[Policy]:
        """The built-in policies, in kernel-id order."""
        return [p for p in self.policies.values() if p.builtin]

    def user_policies(self) -> list[Policy]:
        """The user-written policies loaded so far."""
        return [p for p in self.policies.values() if not p.builtin]

    def get(self, name: str) -> Policy:
        """The policy called ``name``.

        Raises
        ------
        PolicyError
            Unknown name (the message lists the known ones).
        """
        try:
            return self.policies[name]
        except KeyError:
            shown = repr(name) if len(name) <= 40 else repr(name[:37]) + "..."
            hint = (" (user-written policies need --policy-file FILE)"
                    if self.policy_files and not self.user_policies() else "")
            raise PolicyError(f"unknown {self.words}policy {shown}: allowed {', '.join(self.policies)}{hint}") from None

    def policy_id(self, name: str) -> int:
        """The kernel id of the built-in policy ``name``.

        Raises
        ------
        PolicyError
            Unknown name.
        """
        self.get(name)
        return self.builtin_ids[name]

    def register(self, policy: Policy, source: str) -> Policy:
        """Add a user-written policy declared in file ``source`` (checked; see
        :meth:`Policy.check`).  Registering the same declaration from the same file again is a no-op.

        Raises
        ------
        PolicyFileError
            A name that clashes with a built-in or with a policy of another file.
        """
        if not self.policy_files:  # pragma: no cover - no command registers them
            raise PolicyFileError(f"{source}: {self.words}policies cannot be loaded from policy files")
        policy = dataclasses.replace(policy, source=str(source))
        old = self.policies.get(policy.name)
        if old is not None:
            if old.builtin:
                raise PolicyFileError(f"{source}: policy name {policy.name!r} clashes with the built-in policy of that "
                                      f"name: choose another name")
            if old.source != policy.source:
                raise PolicyFileError(f"{source}: policy name {policy.name!r} is already declared in {old.source}: "
                                      f"choose another name")
        self.policies[policy.name] = policy
        return policy

    def dispatch_entries(self, builtins: Sequence[int] | None = None) -> tuple[list, list]:
        """Dispatch entries ``(kernel id, alias, declaration)`` and the import lines that bind the
        aliases, of the built-in policies of kernel ids ``builtins`` (default all), in id order
        (see :func:`handsim.policies.dispatch.dispatch_source`)."""
        entries, preamble = [], []
        for mod, policy in zip(self.builtin_modules, self.builtin_policies()):
            i = self.builtin_ids[policy.name]
            if builtins is not None and i not in builtins:
                continue
            preamble.append(f"from {self.package}.{mod} import POLICY as _P{i}")
            entries.append((i, f"_P{i}", policy))
        return entries, preamble


#: Each game's registry by game name, as the registries are made (:func:`registry_of`).
REGISTRIES: dict[str, Registry] = {}


def registry_of(game: str) -> Registry:
    """The policy registry of ``game`` (a name of :data:`handsim.games.GAMES`): classic Hand's is
    this module's :data:`REGISTRY`; another game's is made when its module
    ``handsim.games.<game>.policies.registry`` is first imported.

    Raises
    ------
    PolicyError
        An unknown game.
    """
    if game not in REGISTRIES:
        from handsim.games import GAMES

        if game not in GAMES:
            raise PolicyError(f"unknown game {game!r}: allowed {', '.join(GAMES)}")
        importlib.import_module(f"handsim.games.{game}.policies.registry")
    return REGISTRIES[game]


#: Names kept for one release: classic Hand's registry was made here; it is now made by
#: :mod:`handsim.games.hand.policies.registry`, and ``registry_of(DEFAULT_GAME)`` answers these.
_DEFAULT_GAME_NAMES = {"REGISTRY": None, "BUILTIN_MODULES": "builtin_modules", "POLICIES": "policies",
                       "BUILTIN_IDS": "builtin_ids", "builtin_policies": "builtin_policies",
                       "user_policies": "user_policies", "get": "get", "register": "register"}


def __getattr__(name: str):
    if name in _DEFAULT_GAME_NAMES:
        from handsim.games import DEFAULT_GAME

        registry = registry_of(DEFAULT_GAME)
        attr = _DEFAULT_GAME_NAMES[name]
        return registry if attr is None else getattr(registry, attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
