"""Classic Hand's policies (RULES.md §1-7), under the shared policy layer (:mod:`handsim.policies`).

* :mod:`.api` - what a policy may observe, plan and do (numba); policy files import it as
  ``handsim.policies.api``, which is this module;
* :mod:`.greedy`, :mod:`.hold_hand`, :mod:`.random_moves`, :mod:`.card_reader`, :mod:`.sampler` -
  the built-in policies, one module each;
* :mod:`.registry` - every classic Hand policy by name; :mod:`.engines` - the compiled drivers with
  the dispatch over a set of policies (built-in, or loaded from policy files);
* :mod:`.violations` - an illegal move of a policy, found by the engine, in words.
"""

#: The decision functions classic Hand's engine calls, each of ``(g, seat)``, in the order it calls
#: them, with what each returns (docs/policies.md).
DECISIONS = {
    "begin_round": "nothing",
    "begin_turn": "nothing",
    "choose_draw": "api.DRAW_STOCK (0) or api.DRAW_DISCARD (1)",
    "play": "the card type to discard (0..52), or api.NO_DISCARD (-1) when the hand is empty",
}
#: Those a policy must give.
REQUIRED = ("choose_draw", "play")
