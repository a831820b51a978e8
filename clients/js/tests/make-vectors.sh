#!/usr/bin/env bash
# The files the node tests read besides the shipped bundles, all written by the Python side
# (no expected value in the tests is written by hand). For each shipped bundle
# (murlan_env/bots/policies/*/): the weights of each of its model files for the runtime-free
# path (weights.bin and weights.json, weights.fp16.*; murlan_env.bundle.plain_weights), a fresh
# golden set regenerated with another seed (`murlan golden`), and at its positions the
# murlan-bot/1 requests a bot is sent, the greedy bot's actions and the actions a level's
# sampling draws for given uniform draws (protocol.json); the golden set, every request's state
# and every 16th request's record are checked against murlan_env/schemas first. For the engine, transitions
# from every phase and variant and lock-step matches (`murlan conformance
# transitions|lockstep`); for the records, valid and corrupted records with the Python
# validator's verdict (`murlan conformance records`); for the search, the expert level's belief
# and rollouts for fixed worlds and uniforms (`murlan conformance search`); for the rule bot,
# positions from real play under every variant with its move and its moves' log-probabilities as
# a scoring model (`murlan conformance rule`); for the levels, the draws of their generator and
# positions from real play with each non-search level's move for the decision's seed (`murlan
# conformance levels`); every conformance file is checked against its schema in
# murlan_env/schemas. Run from anywhere: npm run vectors (SEED,
# POSITIONS, MATCHES (lock-step matches, default 8) to change them, MURLAN_VECTORS to write
# elsewhere; the tests read the same variable).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
out="${MURLAN_VECTORS:-$root/clients/js/tests/vectors}"
seed="${SEED:-7}"
positions="${POSITIONS:-400}"
cd "$root"
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
# Each bundle's files, and the engine's, records', search's and rule bot's vectors, are
# written by processes of their own, side by side.
bundle_vectors() {
  local dir="$1" name
  name="$(basename "$dir")"
  mkdir -p "$out/$name"
  for model in "$dir"*.onnx; do  # model.onnx -> weights.json/.bin, model.fp16.onnx -> weights.fp16.*
    python -c 'import sys; from murlan_env.bundle.plain_weights import write_plain_weights as w; w(*sys.argv[1:])' \
      "$model" "$out/$name"
  done
  python -m murlan_cli golden "$dir" --seed "$seed" --positions "$positions" --out "$out/$name/fresh.json"
  python -c 'import json, sys
from murlan_env.bots.baseline import GreedyBot
from murlan_env.bundle.golden import bot_actions, sampled_actions
from murlan_env.bots.process import golden_requests
from murlan_env.schemas import validator
golden = json.load(open(sys.argv[1]))
validator("golden").validate(golden)
out = {"requests": golden_requests(golden), "greedy": bot_actions(golden, GreedyBot())}
draws = [(i * 0.6180339887498949) % 1.0 for i in range(len(golden["positions"]))]
out["samples"] = [
    {"temperature": t, "draws": draws, "actions": sampled_actions(golden, t, draws)}
    for t in (0.5, 1.0)
]
state, record = validator("state"), validator("record")
for n, request in enumerate(out["requests"]):
    state.validate(request["state"])
    if n % 16 == 0:  # the records, long and alike, as tests/test_schemas.py checks them
        record.validate(request["record"])
json.dump(out, open(sys.argv[2], "w"))' "$out/$name/fresh.json" "$out/$name/protocol.json"
}
conformance_vectors() {
  python -m murlan_cli conformance transitions --seed "$seed" --out "$out/transitions.json"
  python -m murlan_cli conformance lockstep --seed "$seed" --matches "${MATCHES:-8}" --out "$out/lockstep.jsonl"
  python -m murlan_cli conformance records --seed "$seed" --out "$out/records.json"
  python -m murlan_cli conformance search --seed "$seed" --out "$out/search.json"
  python -m murlan_cli conformance rule --seed "$seed" --out "$out/rule.json"
  python -m murlan_cli conformance levels --seed "$seed" --out "$out/levels.json"
  python -c 'import json, sys
from murlan_env.schemas import validator
folder = sys.argv[1]
for name, schema in [("transitions.json", "transitions"), ("records.json", "record-vectors"),
                     ("search.json", "search-vectors"), ("rule.json", "rule-vectors"),
                     ("levels.json", "levels")]:
    validator(schema).validate(json.load(open(f"{folder}/{name}")))
lockstep = validator("transitions")
for line in open(f"{folder}/lockstep.jsonl"):
    lockstep.validate(json.loads(line))' "$out"
}
mkdir -p "$out"
pids=()
for dir in murlan_env/bots/policies/*/; do
  bundle_vectors "$dir" &
  pids+=("$!")
done
conformance_vectors &
pids+=("$!")
failed=0
for pid in "${pids[@]}"; do
  wait "$pid" || failed=1
done
exit "$failed"
