/**
 * Reading a bundle's files from a directory (Node.js) or a URL (browsers, or Node's fetch),
 * and sha256 with Web Crypto where it is (Node.js, and pages in a secure context), else with
 * src/util/sha256.js (a page over plain http to a LAN address has no `crypto.subtle`).
 * @module
 */

import { sha256Digest } from '../util/sha256.js';

const isUrl = (source) => source instanceof URL || /^(https?|file|blob|data):/.test(String(source));

/**
 * The bytes of file `name` of the bundle at `source` (a directory path or a base URL).
 * @param {string | URL} source
 * @param {string} name
 * @returns {Promise<Uint8Array>}
 */
export async function readBytes(source, name) {
  if (isUrl(source) || typeof process === 'undefined' || !process.versions?.node) {
    const base = String(source).endsWith('/') ? String(source) : `${source}/`;
    const url = new URL(name, new URL(base, globalThis.location?.href));
    if (url.protocol === 'file:') return readBytes(decodeURIComponent(url.pathname.replace(/[^/]*$/, '')), name);
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  }
  const { readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  return new Uint8Array(await readFile(join(String(source), name)));
}

/**
 * A JSON file of the bundle at `source`.
 * @param {string | URL} source
 * @param {string} name
 * @returns {Promise<any>}
 */
export async function readJson(source, name) {
  const text = new TextDecoder().decode(await readBytes(source, name));
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${name} is not valid JSON: ${e.message}`);
  }
}

/**
 * Hex sha256 of bytes or of a string's UTF-8.
 * @param {Uint8Array | string} data
 * @returns {Promise<string>}
 */
export async function sha256(data) {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  const subtle = globalThis.crypto?.subtle;
  const digest = subtle ? await subtle.digest('SHA-256', /** @type {BufferSource} */ (bytes)) : sha256Digest(bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * JSON with sorted object keys and no spaces, as Python's
 * `json.dumps(value, sort_keys=True, separators=(",", ":"))` writes it (the bundle's hashes).
 * @param {any} value
 * @returns {string}
 */
export function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
