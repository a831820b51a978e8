// A headless Chromium computes bot moves in a page (page/) with onnxruntime-web (wasm) and
// the runtime-free path, for every model file (float32, float16), checked there against each
// shipped bundle's golden set. The page is served from 127.0.0.1; Chromium is driven through
// chromedriver's WebDriver HTTP API (CHROMIUM and CHROMEDRIVER name other binaries). Without
// them the test skips, naming the command that installs them (as tests/test_web_browser.py).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { delimiter, extname, join, normalize } from 'node:path';
import { after, before, test } from 'node:test';
import { BUNDLES, CLIENT, POLICIES, VECTORS, readJsonFile, vectorsOf } from './helpers.js';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json', '.wasm': 'application/wasm' };
// The page reads the vectors at /tests/vectors/, wherever MURLAN_VECTORS put them.
const ROOTS = [['/policies/', POLICIES], ['/tests/vectors/', VECTORS], ['/', CLIENT]];

/** A static server of the client folder, the shipped policies and the vectors, on 127.0.0.1. */
function serve() {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const [prefix, root] = ROOTS.find(([p]) => path.startsWith(p));
    const file = normalize(join(root, path.slice(prefix.length)));
    if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function freePort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const CHROMEDRIVER = process.env.CHROMEDRIVER ?? 'chromedriver';

/** Whether a command is a file, or a file on PATH. */
function found(command) {
  if (command.includes('/')) return existsSync(command);
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, command)));
}

const MISSING = [CHROMIUM, CHROMEDRIVER].filter((c) => !found(c));
const SKIP = MISSING.length
  ? `needs Chromium and chromedriver (not found: ${MISSING.join(', ')}): apt-get install chromium chromium-driver`
  : false;

let server;
let driver;
let webdriver;

async function wd(method, path, body) {
  const res = await fetch(`${webdriver}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`webdriver ${method} ${path}: ${JSON.stringify(json.value)}`);
  return json.value;
}

before(async () => {
  if (SKIP) return;
  for (const name of BUNDLES) vectorsOf(name);
  server = await serve();
  const port = await freePort();
  driver = spawn(CHROMEDRIVER, [`--port=${port}`], { stdio: 'ignore' });
  webdriver = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await wd('GET', '/status')).ready) break;
    } catch (e) {
      if (i > 100) throw e;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
});

after(async () => {
  driver?.kill();
  await new Promise((r) => server?.close(r) ?? r());
});

test('a bot moves in a headless Chromium page with onnxruntime-web', { timeout: 300_000, skip: SKIP }, async () => {
  const { sessionId } = await wd('POST', '/session', {
    capabilities: {
      alwaysMatch: {
        browserName: 'chrome',
        'goog:chromeOptions': {
          binary: CHROMIUM,
          args: ['--headless=new', '--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
        },
      },
    },
  });
  try {
    await wd('POST', `/session/${sessionId}/timeouts`, { script: 240_000, pageLoad: 60_000 });
    const query = BUNDLES.map((b) => `bundle=${encodeURIComponent(b)}`).join('&');
    await wd('POST', `/session/${sessionId}/url`, { url: `http://127.0.0.1:${server.address().port}/page/index.html?${query}` });
    const results = await wd('POST', `/session/${sessionId}/execute/async`, {
      script: 'const done = arguments[arguments.length - 1]; window.murlanResult.then(done);',
      args: [],
    });
    assert.equal(results.error, undefined, results.error);
    const expected = BUNDLES.flatMap((b) => readJsonFile(join(POLICIES, b, 'bot.json')).models.map((m) => `${b} ${m.precision}`));
    assert.deepEqual(Object.keys(results).sort(), expected.sort());
    for (const [name, r] of Object.entries(results)) {
      assert.ok(r.ok, `${name}:\n${r.lines.join('\n')}`);
      assert.ok(r.ortVersion, 'onnxruntime-web ran in the page');
      assert.deepEqual(Object.keys(r.report.runtimes), ['onnxruntime', 'plain']);
      assert.equal(r.move.action, r.golden.action);
      assert.equal(r.move.play, r.golden.cards);
    }
  } finally {
    await wd('DELETE', `/session/${sessionId}`);
  }
});
