#!/usr/bin/env bash
# The committed study results/partnership/: 2 v 2 matches (partnership preset, 5 rounds each)
# under opening_scope player and team, with three line-ups (positions 1 & 3 are team A,
# 2 & 4 team B):
#   greedy x4                                      - the baseline;
#   hold-hand, greedy, greedy, greedy              - team A: one hold-hand + a plain greedy partner;
#   hold-hand, greedy, greedy:support_hand=1, greedy - the same with a supporting partner.
# 100,000 matches x 5 rounds = 500,000 deals per configuration and line-up; 2 x 3 x 500,000 =
# 3 million rounds.  Every line-up plays the same deals (common random numbers), so the value
# of support_hand is a paired comparison (lineups.csv).
set -euo pipefail
cd "$(dirname "$0")/.."
handsim simulate --players 2v2 \
    --vary opening_scope=player,team \
    --policy greedy \
    --lineup hold-hand,greedy,greedy,greedy \
    --lineup hold-hand,greedy,greedy:support_hand=1,greedy \
    --rounds 5 --deals 100000 --seed 20261130 --jobs "${JOBS:-2}" \
    --out results/partnership "$@"
