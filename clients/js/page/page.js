// Runs in the browser: each bundle named in the query, each of its model files checked with
// onnxruntime-web and the runtime-free path against its golden set; the reports land in window.murlanResult.
import * as ort from 'onnxruntime-web';
import { loadBot } from '/src/bundle/bundle.js';
import { allMatch, reportLines, verifyGolden } from '/src/bundle/golden.js';

ort.env.wasm.wasmPaths = new URL('/node_modules/onnxruntime-web/dist/', location.href).href;
ort.env.wasm.numThreads = 1; // no cross-origin isolation needed

async function run() {
  const results = {};
  for (const name of new URLSearchParams(location.search).getAll('bundle')) {
    const bundle = new URL(`/policies/${name}/`, location.href);
    const weights = new URL(`/tests/vectors/${name}/`, location.href);
    const manifest = await (await fetch(new URL('bot.json', bundle))).json();
    const golden = await (await fetch(new URL(manifest.golden.file, bundle))).json();
    // Every model file of the bundle (float32, float16), by onnxruntime-web and the plain path.
    for (const { precision } of manifest.models) {
      const web = await loadBot(bundle, { ort, precision });
      const plain = await loadBot(bundle, { weights, precision });
      const report = await verifyGolden([web, plain], golden);
      const first = golden.positions[0];
      const move = await web.choose(first.state);
      results[`${name} ${precision}`] = {
        ok: allMatch(report),
        report,
        lines: reportLines(report),
        ortVersion: ort.env.versions?.web ?? null,
        move: { action: move.action, play: move.play },
        golden: { action: first.action, cards: first.cards },
      };
    }
  }
  document.getElementById('out').textContent = JSON.stringify(results, null, 1);
  return results;
}

window.murlanResult = run().catch((e) => ({ error: String(e?.stack ?? e) }));
