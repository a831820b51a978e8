#!/usr/bin/env node
/**
 * murlan-replay FILE   (FILE "-": standard input)
 *
 * Checks a murlan-record/1 game record against the rules, with the Python validator's verdict
 * (`murlan replay`): exit status 0 and a summary for a valid record; 1 for an invalid one, its
 * first fault on stdout ("FILE: invalid record at hand 1 play 4: ..."); 2 for a file that is
 * no record at all (unreadable, not JSON, not a JSON object) or bad arguments, one line on
 * stderr.
 */
import { readFileSync } from 'node:fs';
import { RecordError, loads } from '../src/records/files.js';
import { validate } from '../src/records/validator.js';

const usage = 'usage: murlan-replay FILE (a murlan-record/1 JSON file, or - for standard input)';

/**
 * @param {string[]} argv
 * @returns {number}
 */
function main(argv) {
  if (argv.length !== 1 || argv[0] === '--help' || argv[0] === '-h') {
    if (argv[0] === '--help' || argv[0] === '-h') {
      console.log(usage);
      return 0;
    }
    console.error(usage);
    return 2;
  }
  const name = argv[0];
  let data;
  try {
    data = readFileSync(name === '-' ? 0 : name);
  } catch (err) {
    console.error(`murlan-replay: cannot read ${name}: ${/** @type {any} */ (err).code ?? err}`);
    return 2;
  }
  let record;
  try {
    record = loads(new Uint8Array(data));
  } catch (err) {
    if (!(err instanceof RecordError)) throw err;
    console.error(`murlan-replay: ${name} is not a game record (${err.reason}); give a murlan-record/1 JSON file`);
    return 2;
  }
  const verdict = validate(record);
  if (!verdict.valid) {
    console.log(`${name}: invalid record at ${verdict.fault}: ${verdict.reason}`);
    return 1;
  }
  const winners = record.winners;
  const status = winners.length === 0 ? 'match goes on' : winners.length === 1 ? `won by seat ${winners[0]}` : `drawn between seats ${winners.join(', ')}`;
  console.log(`${name}: valid murlan-record/1, ${record.hands.length} hand(s), ${status}`);
  console.log(`scores: ${record.scores.map((v, s) => `seat ${s}: ${v}`).join('  ')}   target: ${record.target}`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
