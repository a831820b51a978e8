#!/usr/bin/env node
/**
 * murlan-verify BUNDLE_DIR [--golden FILE] [--runtime plain|onnx|all] [--precision P] [--weights DIR]
 *
 * Checks golden vectors (the bundle's golden.json, or FILE) against this client: matches per
 * observation piece, the legal mask, the golden action's cards, and per runtime the scores,
 * the argmax and the whole move. Exit status 0 when everything matches, 1 on any mismatch,
 * 2 when the bundle or the arguments cannot be used. The runtime-free path reads weights.json
 * and weights.bin from the bundle, or from DIR.
 */
import { parseArgs } from 'node:util';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadBot } from '../src/bundle/bundle.js';
import { sha256 } from '../src/bundle/files.js';
import { allMatch, reportLines, verifyGolden } from '../src/bundle/golden.js';

const usage =
  'usage: murlan-verify BUNDLE_DIR [--golden FILE] [--runtime plain|onnx|all] [--precision float32|float16] [--weights DIR]';

async function main() {
  let args;
  try {
    args = parseArgs({
      allowPositionals: true,
      options: {
        golden: { type: 'string' },
        runtime: { type: 'string', default: 'all' },
        precision: { type: 'string', default: 'float32' },
        weights: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    console.error(`${e.message}\n${usage}`);
    return 2;
  }
  if (args.values.help) {
    console.log(usage);
    return 0;
  }
  if (args.positionals.length !== 1 || !['plain', 'onnx', 'all'].includes(args.values.runtime)) {
    console.error(usage);
    return 2;
  }
  const [dir] = args.positionals;
  const { precision } = args.values;
  let bots;
  let golden;
  try {
    bots = [];
    if (args.values.runtime !== 'onnx') bots.push(await loadBot(dir, { weights: args.values.weights, precision }));
    if (args.values.runtime !== 'plain') {
      const ort = await import('onnxruntime-node').catch(() => {
        throw new Error('onnxruntime-node is not installed (npm install onnxruntime-node --onnxruntime-node-install-cuda=skip), or use --runtime plain');
      });
      bots.push(await loadBot(dir, { ort, precision }));
    }
    const own = bots[0].manifest.golden;
    const file = args.values.golden ?? join(dir, own?.file ?? 'golden.json');
    const bytes = await readFile(file);
    if (!args.values.golden && own?.sha256 && (await sha256(bytes)) !== own.sha256) {
      throw new Error(`${file}: sha256 does not match bot.json (a changed golden set: give it with --golden)`);
    }
    golden = JSON.parse(new TextDecoder().decode(bytes));
    console.log(`bundle ${dir} (${bots[0].manifest.format}), golden ${file}: ${golden.positions.length} positions, seed ${golden.seed}`);
  } catch (e) {
    console.error(`murlan-verify: ${e.message}`);
    return 2;
  }
  const report = await verifyGolden(bots, golden);
  for (const line of reportLines(report)) console.log(line);
  const ok = allMatch(report);
  console.log(ok ? 'all match' : 'MISMATCH');
  return ok ? 0 : 1;
}

process.exitCode = await main();
