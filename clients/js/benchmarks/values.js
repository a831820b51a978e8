// The expert search's values (src/bots/search.js) at given positions, for pairing with
// Python's search: reads murlan-bot/1 move requests from stdin (JSON lines, each with its
// `state`, `record`, `seat` and `seed`) and writes, a line each, the search's move and each
// action's mean hand points (null where illegal) at the level's settings.
//
//     node benchmarks/values.js BUNDLE_DIR < REQUESTS.jsonl
//
// benchmarks/search_agreement.py (at the repository's root) writes the requests and reads
// the answers.
import { readFileSync } from 'node:fs';
import { loadBot } from '../src/bundle/bundle.js';
import { mulberry32 } from '../src/bots/levels.js';
import { SEAT_MODELS } from '../src/bots/models.js';
import { Search, handHistory, searchSettings } from '../src/bots/search.js';

const [dir] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node benchmarks/values.js BUNDLE_DIR < REQUESTS.jsonl');
  process.exit(2);
}
const requests = readFileSync(0, 'utf8').split('\n').filter(Boolean);
const bot = await loadBot(dir);
const search = new Search(bot, searchSettings(bot.manifest.levels.expert), SEAT_MODELS);
for (const line of requests) {
  const r = JSON.parse(line);
  const found = search.search(bot.position(r.state), handHistory(r.record, r.seat), mulberry32(r.seed >>> 0));
  const values = Array.from(found.values, (v) => (Number.isFinite(v) ? v : null));
  console.log(JSON.stringify({ action: found.action, prior: found.prior, values }));
}
