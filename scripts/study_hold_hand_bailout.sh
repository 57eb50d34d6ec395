#!/usr/bin/env bash
# The committed study results/hold-hand-bailout/: hold-hand's bail-out (bail_turn x
# bail_opponent_cards) tuned per opening threshold 51/71/91 against a FIELD of three players
# (run once with FIELD=greedy and once with FIELD=card-reader), each winner confirmed on fresh
# deals (handsim tune), and the grid beyond its edge; then, with the tuned hold-hand (best.toml
# of the first grid):
#   9-round matches, tuned hold-hand + 3 FIELD  - its match win rate and the opponents' cost
#   (line-ups against FIELD x 4, same deals: lineups.csv);
#   the table with 0, 1, 2, 3 tuned hold-hand players among FIELD players.
# DEALS tuning deals per candidate, MATCHES matches (power calculation in the README).
#   FIELD=greedy DEALS=20000 MATCHES=20000 scripts/study_hold_hand_bailout.sh
#   FIELD=card-reader DEALS=10000 MATCHES=10000 BAIL_TURN=1:13:3 BAIL_CARDS=0:8:4 EDGE=0 \
#       scripts/study_hold_hand_bailout.sh     (the card-reader field: a coarser grid, no edge grid)
set -euo pipefail
cd "$(dirname "$0")/.."
FIELD="${FIELD:-greedy}"
DEALS="${DEALS:-20000}"
MATCHES="${MATCHES:-20000}"
BAIL_TURN="${BAIL_TURN:-4:20:2}"
BAIL_CARDS="${BAIL_CARDS:-0:8:2}"
EDGE="${EDGE:-1}"
OUT="${OUT:-results/hold-hand-bailout}/vs-$FIELD"
for T in 51 71 91; do
    handsim tune hold-hand --param "bail_turn=$BAIL_TURN" --param "bail_opponent_cards=$BAIL_CARDS" \
        --against "$FIELD,$FIELD,$FIELD" --threshold "$T" --deals "$DEALS" --seed 20261204 \
        --jobs "${JOBS:-1}" --no-progress --out "$OUT/tune-$T"
    # the winner lay on the edge of that grid (bail_turn 4): the grid beyond it, same deals
    if [ "$EDGE" = 1 ]; then
        handsim tune hold-hand --param bail_turn=1:4 --param bail_opponent_cards=8:14:2 \
            --against "$FIELD,$FIELD,$FIELD" --threshold "$T" --deals "$DEALS" --seed 20261204 \
            --jobs "${JOBS:-1}" --no-progress --out "$OUT/edge-$T"
    fi
    H="@$OUT/tune-$T/best.toml"
    handsim simulate --threshold "$T" --rounds 9 --standings last_loses \
        --policy "$FIELD" --lineup "$H,$FIELD,$FIELD,$FIELD" --lineup "$H,$H,$FIELD,$FIELD" \
        --lineup "$H,$H,$H,$FIELD" \
        --deals "$MATCHES" --seed 20261205 --jobs "${JOBS:-1}" --no-progress --out "$OUT/matches-$T"
done
