#!/usr/bin/env bash
# The committed study results/joker-penalty/: joker_penalty 15 vs 30 (classic rules, threshold
# 51) with joker-aware players: the card-reading player's joker parameter joker_play
# (0: lay jokers at once, 1: keep them until needed, 2: keep them until its own turn joker_turn).
# Line-ups, all on the same deals:
#   P:joker_play=J at every seat, J = 0, 1, 2     - what the table's joker play does to the level
#                                                   of scores, P(Hand), jokers left, round length;
#   P:joker_play=J + three default players, J = 0, 2 - the best joker play for one player
#                                                   (lineups.csv: against the all-default line-up,
#                                                   the same seat, same deals).
# DEALS deals per configuration and line-up (power calculation in the README).
#   POLICY=card-reader DEALS=50000 scripts/study_joker_penalty.sh
set -euo pipefail
cd "$(dirname "$0")/.."
POLICY="${POLICY:-card-reader}"
DEALS="${DEALS:-50000}"
OUT="${OUT:-results/joker-penalty}"
handsim simulate --joker-penalty 15 --joker-penalty 30 \
    --lineup "$POLICY:joker_play=1,$POLICY:joker_play=1,$POLICY:joker_play=1,$POLICY:joker_play=1" \
    --lineup "$POLICY:joker_play=0,$POLICY:joker_play=1,$POLICY:joker_play=1,$POLICY:joker_play=1" \
    --lineup "$POLICY:joker_play=2,$POLICY:joker_play=1,$POLICY:joker_play=1,$POLICY:joker_play=1" \
    --lineup "$POLICY:joker_play=0,$POLICY:joker_play=0,$POLICY:joker_play=0,$POLICY:joker_play=0" \
    --lineup "$POLICY:joker_play=2,$POLICY:joker_play=2,$POLICY:joker_play=2,$POLICY:joker_play=2" \
    --players 4 --deals "$DEALS" --seed 20261203 --jobs "${JOBS:-1}" --no-progress \
    --out "$OUT" "$@"
