/**
 * Reading the JSON values of a record: keys, seats, integers and card strings, or a fault
 * (murlan_env/records/values.py). Each reader returns the value it checked or throws
 * RecordError at the location it is given, with the value shown in the reason. Seats,
 * dealers, points, scores and the target are JSON integers (never 3.0 or true); a card string
 * names cards separated by single spaces, nothing before the first or after the last.
 * @module
 */

import { parseCards } from '../game/cards.js';
import { JsonFloat, pyJson, strRepr } from '../util/pytext.js';
import { RecordError } from './files.js';

/**
 * A value as JSON for messages, shortened.
 * @param {any} x
 * @param {number} [limit]
 * @returns {string}
 */
export function show(x, limit = 80) {
  const text = pyJson(x);
  return text.length <= limit ? text : `${text.slice(0, limit - 3)}...`;
}

/**
 * A top-level value of a record; a missing key is a fault at that key.
 * @param {any} record
 * @param {string} key
 */
export function topValue(record, key) {
  if (!Object.hasOwn(record, key)) throw new RecordError(key, `the record has no ${strRepr(key)} key`);
  return record[key];
}

/**
 * Fault at `where` for the first of `keys` that `obj` (the `what`) lacks.
 * @param {any} obj
 * @param {readonly string[]} keys
 * @param {string} where
 * @param {string} what
 */
export function requireKeys(obj, keys, where, what) {
  for (const key of keys) {
    if (!Object.hasOwn(obj, key)) throw new RecordError(where, `the ${what} has no ${strRepr(key)} key`);
  }
}

/**
 * A JSON integer: not a bool, not a float such as 3.0.
 * @param {any} x
 * @returns {boolean}
 */
export function isInt(x) {
  return (typeof x === 'number' && Number.isInteger(x)) || typeof x === 'bigint';
}

/**
 * A seat, an integer 0-3.
 * @param {any} x
 * @param {string} where
 * @param {string} what
 * @returns {number}
 */
export function seat(x, where, what) {
  if (!isInt(x) || !(x >= 0 && x < 4)) throw new RecordError(where, `${what} must be a seat, an integer 0-3, got ${show(x)}`);
  return Number(x);
}

/**
 * A list of JSON integers, of `length` items when given.
 * @param {any} x
 * @param {string} where
 * @param {string} what
 * @param {number} [length]
 * @returns {Array<number | bigint>}
 */
export function intList(x, where, what, length) {
  if (!Array.isArray(x) || !x.every(isInt)) throw new RecordError(where, `${what} must be a list of integers, got ${show(x)}`);
  if (length !== undefined && x.length !== length) throw new RecordError(where, `${what} must list ${length} integers, got ${x.length}`);
  return x;
}

/**
 * Card ids of a card string: cards separated by single spaces, "" for none.
 * @param {any} x
 * @param {string} where
 * @param {string} what
 * @returns {number[]}
 */
export function cardIdsOf(x, where, what) {
  if (typeof x !== 'string') throw new RecordError(where, `${what} must be a string of cards ("" for none), got ${show(x)}`);
  if (x.split(/\s+/).filter(Boolean).join(' ') !== x) {
    throw new RecordError(where, `${what}: cards are separated by single spaces, with no space before or after them, got ${strRepr(x)}`);
  }
  try {
    return parseCards(x);
  } catch (err) {
    throw new RecordError(where, `${what}: ${/** @type {Error} */ (err).message}`);
  }
}

/**
 * The card id of a string naming exactly one card.
 * @param {any} x
 * @param {string} where
 * @param {string} what
 * @returns {number}
 */
export function oneCard(x, where, what) {
  if (typeof x !== 'string') throw new RecordError(where, `${what} must be one card such as "7D", got ${show(x)}`);
  const ids = cardIdsOf(x, where, what);
  if (ids.length !== 1) throw new RecordError(where, `${what} must be exactly one card, got ${strRepr(x)}`);
  return ids[0];
}

export { JsonFloat };
