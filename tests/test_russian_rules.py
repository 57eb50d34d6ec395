"""Russian Hand's options (``handsim.games.russian.rules``, RULES.md §8)."""

from __future__ import annotations

import numpy as np
import pytest

from handsim.games.russian.rules import (
    INDEX,
    PARAMS,
    RussianRules,
    options_text,
    rules_table_markdown,
)
from handsim.games.hand.rules import RulesError


def test_the_preset_is_the_defaults_of_the_source():
    r = RussianRules.preset("russian")
    assert r.to_dict() == {"hand_size": 7, "first_round": "new_melds", "stock_out_end": "must_draw",
                           "ace_value": 11}
    assert r == RussianRules()
    # every option is declared once, with a RULES.md section and a help text
    assert [p.name for p in PARAMS] == list(r.to_dict())
    assert all(p.section in ("1", "8") and p.help for p in PARAMS)


def test_overrides_are_checked():
    r = RussianRules.preset().with_settings(["stock-out-end=last_card", "first_round=one-meld", "hand_size=9"])
    assert (r.stock_out_end, r.first_round, r.hand_size) == ("last_card", "one_meld", 9)
    assert r.replace(ace_value=1).ace_value == 1
    with pytest.raises(RulesError, match="invalid value 'sometimes' for rule 'stock_out_end': allowed must_draw or last_card"):
        r.with_settings(["stock_out_end=sometimes"])
    with pytest.raises(RulesError, match="unknown Russian Hand rule 'jokers'"):
        RussianRules.preset(jokers=2)
    with pytest.raises(RulesError, match="allowed an integer from 3 to 20"):
        RussianRules.preset(hand_size=2)
    with pytest.raises(RulesError, match="unknown Russian Hand preset 'classic'"):
        RussianRules.preset("classic")
    with pytest.raises(RulesError, match="expected key=value"):
        r.with_settings(["hand_size"])


def test_players():
    r = RussianRules.preset()
    for n in (2, 3, 4, 5):
        r.validate(n)
    for n in (1, 6):
        with pytest.raises(RulesError, match=f"2 to 5 players, not {n}"):
            r.validate(n)
    # 5 x 20 = 100 cards leave a stock of 4; that is allowed; 6 x ... is not a player count
    RussianRules.preset(hand_size=20).validate(5)


def test_kernel_vector_and_values():
    r = RussianRules.preset(first_round="free", stock_out_end="last_card")
    v = r.to_vector()
    assert v.dtype == np.int64 and len(v) == len(PARAMS)
    assert v[INDEX["hand_size"]] == 7
    assert v[INDEX["first_round"]] == 2 and v[INDEX["stock_out_end"]] == 1
    assert RussianRules.preset().rank_values().tolist() == [0, 11, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert RussianRules.preset(ace_value=1).rank_values()[1] == 1


def test_printable_options():
    text = options_text(RussianRules.preset(stock_out_end="last_card"))
    for p in PARAMS:
        assert p.name in text
    assert "last_card*" in text and "must_draw or last_card" in text
    assert "2 to 5 single players" in text
    md = rules_table_markdown()
    assert md.count("\n") == len(PARAMS) + 1 and "| `stock_out_end` | `must_draw` |" in md
