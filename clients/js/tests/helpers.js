/**
 * Paths the tests share: the shipped bundles (murlan_env/bots/policies/) and the vectors the
 * Python side generates into tests/vectors/ (tests/make-vectors.sh, `npm run vectors`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLIENT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO = join(CLIENT, '..', '..');
// MURLAN_POLICIES: another folder of bundles to test (default: the shipped ones).
export const POLICIES = process.env.MURLAN_POLICIES ?? join(REPO, 'murlan_env', 'bots', 'policies');
// MURLAN_VECTORS: where tests/make-vectors.sh wrote them (default: tests/vectors).
export const VECTORS = process.env.MURLAN_VECTORS ?? join(CLIENT, 'tests', 'vectors');

/** Names of the shipped bundles. */
export const BUNDLES = readdirSync(POLICIES, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(POLICIES, d.name, 'bot.json')))
  .map((d) => d.name)
  .sort();

/**
 * The generated vectors' folder of a bundle; throws, naming the command, when it is missing.
 * @param {string} name
 */
export function vectorsOf(name) {
  const dir = join(VECTORS, name);
  if (!existsSync(join(dir, 'weights.json')) || !existsSync(join(dir, 'fresh.json'))) {
    throw new Error(`${dir}: no generated vectors; run \`npm run vectors\` in clients/js first`);
  }
  return dir;
}

/** @param {string} path */
export function readJsonFile(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}
