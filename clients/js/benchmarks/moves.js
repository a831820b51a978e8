#!/usr/bin/env node
/**
 * Time per move of each runtime in Node.js: node benchmarks/moves.js BUNDLE_DIR [--weights DIR]
 * [--golden FILE] [--repeat N]. Plays `choose` on every golden position (state -> cards) N times
 * after one warm-up pass, and prints the load time and the mean and median time per move of the
 * runtime-free path and of onnxruntime-node (one thread).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-node';
import { loadBot } from '../src/bundle/bundle.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { weights: { type: 'string' }, golden: { type: 'string' }, repeat: { type: 'string', default: '5' } },
});
const [dir] = positionals;
if (!dir) {
  console.error('usage: node benchmarks/moves.js BUNDLE_DIR [--weights DIR] [--golden FILE] [--repeat N]');
  process.exit(2);
}
const runtimes = {
  plain: { weights: values.weights },
  'onnxruntime-node': { ort, sessionOptions: { intraOpNumThreads: 1, interOpNumThreads: 1 } },
};
for (const [name, opts] of Object.entries(runtimes)) {
  let t = performance.now();
  const bot = await loadBot(dir, opts);
  const loadMs = performance.now() - t;
  const golden = JSON.parse(await readFile(values.golden ?? join(dir, bot.manifest.golden.file), 'utf8'));
  const states = golden.positions.map((p) => p.state);
  for (const s of states) await bot.choose(s);
  const times = [];
  for (let r = 0; r < Number(values.repeat); r++) {
    for (const s of states) {
      t = performance.now();
      await bot.choose(s);
      times.push(performance.now() - t);
    }
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(
    `${name.padEnd(17)} load ${loadMs.toFixed(0).padStart(4)} ms   per move: mean ${mean.toFixed(3)} ms, ` +
      `median ${times[times.length >> 1].toFixed(3)} ms (${times.length} moves)`,
  );
}
