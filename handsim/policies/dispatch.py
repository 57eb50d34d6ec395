"""Generated policy dispatch: the source of a game's dispatch module over a set of policies.

numba resolves the functions a kernel calls when it compiles it, so an engine calls its policies
through a generated module: one ``@njit`` function per decision function that calls the seat's
policy by its kernel id.  Each game writes its built-in dispatch with :func:`dispatch_source`
(classic Hand: ``python -m handsim.games.hand.policies.engines``; Russian Hand:
``python -m handsim.games.russian.policies.registry``), and a test checks each is current.
"""

from __future__ import annotations

from typing import Collection, Mapping, Sequence

from .declare import ENTRY_POINTS, Policy


def dispatch_source(entries: Sequence[tuple[int, str, Policy]], preamble: Sequence[str], title: str,
                    entry_points: Sequence[str] = ENTRY_POINTS, policy_id: str = "g.pol[seat]",
                    guarded: Collection[int] = (), on_raise: Mapping[str, str] | None = None) -> str:
    """Python source of a dispatch module: for each decision function, one ``@njit`` function of
    ``(g, seat)`` that calls the seat's policy by its kernel id (``policy_id``, an expression of
    ``g`` and ``seat``: ``g.pol[seat]`` for classic Hand).

    ``entries`` are ``(kernel id, alias of the declaration in the module, declaration)``; the
    first entry's functions are the fall-back.  ``preamble`` are the lines that bind the aliases.
    ``entry_points``: the decision functions of the game (``choose_draw`` and ``play`` return a value).

    ``guarded``: the kernel ids (user-written policies, never the fall-back) whose calls are
    wrapped in ``try: ... except Exception:``, so that an exception one raises in compiled code
    (an index out of range under numba's bounds checks) stops the round instead of the process;
    ``on_raise[ep]`` is the expression (of ``g``) evaluated then, for ``choose_draw`` and ``play``
    also their value.
    """
    lines = [f'"""{title}"""', "", "from numba import njit", ""]
    lines += list(preamble)
    lines.append("")
    for i, alias, policy in entries:
        for ep in entry_points:
            if getattr(policy, ep) is not None:
                lines.append(f"_p{i}_{ep} = {alias}.{ep}")
    for ep in entry_points:
        having = [(i, p) for i, _, p in entries if getattr(p, ep) is not None]
        lines += ["", "", "@njit(cache=True)", f"def {ep}(g, seat):"]
        returns = ep in ("choose_draw", "play")
        if not having:
            lines.append("    return")
            continue
        lines.append(f"    p = {policy_id}")
        if returns:
            first, rest = having[0], having[1:]
            for i, _ in rest:
                if i in guarded:
                    lines += [f"    if p == {i}:", "        try:", f"            r{i} = _p{i}_{ep}(g, seat)",
                              "        except Exception:", f"            r{i} = {on_raise[ep]}", f"        return r{i}"]
                else:
                    lines += [f"    if p == {i}:", f"        return _p{i}_{ep}(g, seat)"]
            lines.append(f"    return _p{first[0]}_{ep}(g, seat)")
        else:
            for i, _ in having:
                if i in guarded:
                    lines += [f"    if p == {i}:", "        try:", f"            _p{i}_{ep}(g, seat)",
                              "        except Exception:", f"            {on_raise[ep]}"]
                else:
                    lines += [f"    if p == {i}:", f"        _p{i}_{ep}(g, seat)"]
    return "\n".join(lines) + "\n"
