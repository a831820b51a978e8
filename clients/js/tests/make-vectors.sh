#!/usr/bin/env bash
# The files the node tests read besides the shipped bundles, all written by the Python side
# (no expected value in the tests is written by hand). For each shipped bundle
# (murlan_env/bots/policies/*/): the weights of each of its model files for the runtime-free
# path (weights.bin and weights.json, weights.fp16.*; murlan_env.bots.plain_weights) and a fresh golden set regenerated with another
# seed (`murlan golden`); for the engine, transitions from every phase and variant and
# lock-step matches (`murlan vectors transitions|lockstep`); for the records, valid and
# corrupted records with the Python validator's verdict (`murlan vectors records`). Run from anywhere: npm run vectors
# (SEED, POSITIONS, MATCHES (lock-step matches, default 8) to change them, MURLAN_VECTORS to
# write elsewhere; the tests read the same variable).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
out="${MURLAN_VECTORS:-$root/clients/js/tests/vectors}"
seed="${SEED:-7}"
positions="${POSITIONS:-400}"
cd "$root"
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
for dir in murlan_env/bots/policies/*/; do
  name="$(basename "$dir")"
  mkdir -p "$out/$name"
  for model in "$dir"*.onnx; do  # model.onnx -> weights.json/.bin, model.fp16.onnx -> weights.fp16.*
    python -c 'import sys; from murlan_env.bots.plain_weights import write_plain_weights as w; w(*sys.argv[1:])' \
      "$model" "$out/$name"
  done
  python -m murlan_cli golden "$dir" --seed "$seed" --positions "$positions" --out "$out/$name/fresh.json"
done
python -m murlan_cli vectors transitions --seed "$seed" --out "$out/transitions.json"
python -m murlan_cli vectors lockstep --seed "$seed" --matches "${MATCHES:-8}" --out "$out/lockstep.jsonl"
python -m murlan_cli vectors records --seed "$seed" --out "$out/records.json"
