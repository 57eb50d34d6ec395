#!/usr/bin/env bash
# The committed study results/policy-ladder/: a duplicate tournament (handsim tournament, pairs
# design: every pair of policies at equal strength, every seating of every deal) of random,
# greedy, hold-hand (HOLD: the tuned one, e.g. @results/hold-hand-bailout/vs-greedy/tune-51/best.toml),
# card-reader under the presets classic, saudi and qahwa, DEALS deals per preset (power
# calculation in the README).  The sampling player is about 250 times slower than card-reader,
# so it plays its own duplicate tournament against card-reader, SAMPLER_DEALS deals, under the
# presets in SAMPLER_PRESETS (default: classic saudi qahwa).
#   HOLD=@results/hold-hand-bailout/vs-greedy/tune-51/best.toml DEALS=8000 SAMPLER_DEALS=600 \
#       scripts/study_policy_ladder.sh
set -euo pipefail
cd "$(dirname "$0")/.."
HOLD="${HOLD:-@results/hold-hand-bailout/vs-greedy/tune-51/best.toml}"
DEALS="${DEALS:-8000}"
SAMPLER_DEALS="${SAMPLER_DEALS:-600}"
SAMPLER_PRESETS="${SAMPLER_PRESETS:-classic saudi qahwa}"
OUT="${OUT:-results/policy-ladder}"
for PRESET in classic saudi qahwa; do
    handsim tournament --policy random --policy greedy --policy "$HOLD" --policy card-reader \
        --preset "$PRESET" --players 4 --deals "$DEALS" --seed 20261206 --jobs "${JOBS:-1}" \
        --no-progress --out "$OUT/$PRESET"
done
for PRESET in $SAMPLER_PRESETS; do
    handsim tournament --policy sampler --policy card-reader \
        --preset "$PRESET" --players 4 --deals "$SAMPLER_DEALS" --seed 20261207 --jobs "${JOBS:-1}" \
        --no-progress --out "$OUT/$PRESET-sampler"
done
