// Move times of the expert search (src/bots/search.js) in Node.js on one thread: for each
// setting (the level as the bundle states it, then time budgets), every request of a file of
// murlan-bot/1 move requests (JSON lines, each with its `record` and `state`) is answered as
// murlan-bot --level expert answers it; prints median and p95 wall and CPU ms per move.
//
//     node benchmarks/search.js BUNDLE_DIR REQUESTS.jsonl [BUDGET_MS ...]
//
// benchmarks/js_search_speed.py (at the repository's root) writes the requests from real play
// and runs this on one core.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { loadBot } from '../src/bundle/bundle.js';
import { levelPlayer } from '../src/bots/levels.js';
import { SEAT_MODELS } from '../src/bots/models.js';

const [dir, file, ...budgets] = process.argv.slice(2);
if (!dir || !file) {
  console.error('usage: node benchmarks/search.js BUNDLE_DIR REQUESTS.jsonl [BUDGET_MS ...]');
  process.exit(2);
}
const requests = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
const bot = await loadBot(dir);
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const settings = [['level (no budget)', {}], ...budgets.map((ms) => [`budget ${ms} ms`, { budgetMs: Number(ms) }])];
const player0 = levelPlayer(bot, 'expert', { models: SEAT_MODELS });
console.log(`CPU: ${cpus()[0].model}; Node.js ${process.version}; ${requests.length} positions; seat models missing: ${player0.missingModels.join(', ') || 'none'}`);
console.log('| setting | median wall ms | p95 wall ms | median CPU ms | p95 CPU ms |');
console.log('|---|---|---|---|---|');
for (const [name, opts] of settings) {
  const player = levelPlayer(bot, 'expert', { models: SEAT_MODELS, ...opts });
  const wall = [];
  const cpu = [];
  for (const r of requests) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await player.choose(r.state, r.seed >>> 0, { record: r.record, seat: r.seat });
    const c = process.cpuUsage(c0);
    wall.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000);
  }
  const f = (x) => x.toFixed(0);
  console.log(`| ${name} | ${f(quantile(wall, 0.5))} | ${f(quantile(wall, 0.95))} | ${f(quantile(cpu, 0.5))} | ${f(quantile(cpu, 0.95))} |`);
}
