/**
 * The `murlan-record/1` format's name and keys, `RecordError`, and reading and writing record
 * files (`loads`, `dumps`), as murlan_env/records/files.py.
 * @module
 */

import { isObject, parseJson, pyJson, pyType } from '../util/pytext.js';

export const RECORD_FORMAT = 'murlan-record/1';
export const TOP_KEYS = Object.freeze(['format', 'rules', 'hands', 'scores', 'target', 'winners']);
export const HAND_KEYS = Object.freeze(['dealer', 'deal', 'exchange', 'plays', 'finish', 'points']);
export const EXCHANGE_KEYS = Object.freeze(['last', 'first', 'last_gives', 'first_gives']);

/** A record that breaks the format or the rules: `fault` says where, `reason` why. */
export class RecordError extends Error {
  /**
   * @param {string} fault
   * @param {string} reason
   */
  constructor(fault, reason) {
    super(`${fault}: ${reason}`);
    this.name = 'RecordError';
    this.fault = fault;
    this.reason = reason;
  }
}

/**
 * Parse a record's JSON text (as Python reads it: see `parseJson`); malformed JSON or a value
 * that is no object raises RecordError("json").
 * @param {string | Uint8Array} text
 * @returns {any}
 */
export function loads(text) {
  let obj;
  try {
    const str = typeof text === 'string' ? text : new TextDecoder('utf-8', { fatal: true }).decode(text);
    obj = parseJson(str.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new RecordError('json', `not valid JSON: ${/** @type {Error} */ (err).message}`);
  }
  if (!isObject(obj)) throw new RecordError('json', `a record is a JSON object, got a JSON ${pyType(obj)}`);
  return obj;
}

/**
 * JSON text of a record, one play per line and short lists on one line (as the Python side
 * writes record files).
 * @param {any} record
 * @returns {string}
 */
export function dumps(record) {
  const scalar = (x) => x === null || typeof x !== 'object';
  /** @returns {string} */
  const write = (x, indent) => {
    if (scalar(x)) return pyJson(x);
    const items = Array.isArray(x) ? x : Object.values(x);
    if (items.every(scalar)) return pyJson(x);
    const pad = ' '.repeat(indent);
    const inner = ' '.repeat(indent + 2);
    if (!Array.isArray(x)) {
      return `{\n${Object.entries(x).map(([k, v]) => `${inner}${pyJson(k)}: ${write(v, indent + 2)}`).join(',\n')}\n${pad}}`;
    }
    return `[\n${x.map((v) => `${inner}${write(v, indent + 2)}`).join(',\n')}\n${pad}]`;
  };
  return `${write(record, 0)}\n`;
}
