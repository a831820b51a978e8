// The sources' JSDoc types as TypeScript reads them (`npm run check`: tsc --checkJs, no emit),
// so an app written in TypeScript gets the types the docs promise.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLIENT } from './helpers.js';

test('tsc --checkJs accepts the sources', () => {
  const tsc = join(CLIENT, 'node_modules', 'typescript', 'bin', 'tsc');
  const out = spawnSync(process.execPath, [tsc, '-p', CLIENT], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stdout + out.stderr);
});
