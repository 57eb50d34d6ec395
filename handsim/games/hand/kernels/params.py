"""Indices into the kernel rules vector, derived from :data:`handsim.games.hand.rules.PARAMS`.

Numba freezes module-level integers as compile-time constants, so kernels read options as
``rv[P_OPENING_THRESHOLD]``.  Choice options hold the index of their word in ``choices``.
"""

from handsim.games.hand.rules import ELIMINATION_MAX_ROUNDS, INDEX, PARAM_BY_NAME

P_JOKERS = INDEX["jokers"]
P_JOKER_PENALTY = INDEX["joker_penalty"]
P_ACE_LOW = INDEX["ace_low_value"]
P_ACE = INDEX["ace_value"]
P_MAX_JOKERS = INDEX["max_jokers_per_meld"]
P_MIN_NATURAL = INDEX["min_natural_cards_per_meld"]
P_MAX_RUN = INDEX["max_run_length"]
P_HAND_SIZE = INDEX["hand_size"]
P_STARTER = INDEX["starter"]
P_DISCARD_PICKUP = INDEX["discard_pickup"]
P_MAX_RESHUFFLES = INDEX["max_reshuffles"]
P_THRESHOLD = INDEX["opening_threshold"]
P_OPENING_RULE = INDEX["opening_rule"]
P_ASC_INCREMENT = INDEX["ascending_increment"]
P_OPENING_SCOPE = INDEX["opening_scope"]
P_LAYOFF_ON_OPENING = INDEX["layoff_on_opening_turn"]
P_JOKER_SWAP = INDEX["joker_swap"]
P_SET_JOKER_SWAP = INDEX["set_joker_swap"]
P_GO_OUT_DISCARD = INDEX["go_out_requires_discard"]
P_UNOPENED_PENALTY = INDEX["unopened_penalty"]
P_OUT_SCORE = INDEX["out_score"]
P_HAND_SCORE = INDEX["hand_score"]
P_UNOPENED_POINTS = INDEX["unopened_points"]
P_HAND_MIN_CARDS = INDEX["hand_min_new_meld_cards"]
P_HAND_WAIVES = INDEX["hand_waives_threshold"]
P_OPEN_NEEDS_PICKUP = INDEX["opening_requires_discard_pickup"]
P_HAND_DOUBLES = INDEX["hand_doubles_others"]
P_ROUNDS = INDEX["rounds"]
P_STANDINGS = INDEX["standings"]
P_DEALER_ROTATION = INDEX["dealer_rotation"]
P_PARTNERSHIP = INDEX["partnership"]
P_ELIMINATION = INDEX["elimination_score"]
N_PARAMS = len(INDEX)
#: The most rounds of an elimination match (RULES.md section 7).
ELIMINATION_CAP = ELIMINATION_MAX_ROUNDS

STARTER_DEALER_RIGHT = PARAM_BY_NAME["starter"].choices.index("dealer_right")
PICKUP_MUST_OPEN = PARAM_BY_NAME["discard_pickup"].choices.index("must_open")
PICKUP_NEW_MELD_ONLY = PARAM_BY_NAME["discard_pickup"].choices.index("new_meld_only")
PICKUP_MUST_OPEN_USING = PARAM_BY_NAME["discard_pickup"].choices.index("must_open_using")
OPENING_ASCENDING = PARAM_BY_NAME["opening_rule"].choices.index("ascending")
UNOPENED_FLAT = PARAM_BY_NAME["unopened_penalty"].choices.index("flat")
STANDINGS_LAST_LOSES = PARAM_BY_NAME["standings"].choices.index("last_loses")
SCOPE_TEAM = PARAM_BY_NAME["opening_scope"].choices.index("team")
SET_SWAP_FILL_SET = PARAM_BY_NAME["set_joker_swap"].choices.index("fill_set")
DEALER_HIGHEST_SCORER = PARAM_BY_NAME["dealer_rotation"].choices.index("highest_scorer")
