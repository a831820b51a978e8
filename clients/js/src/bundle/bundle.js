/**
 * A bundle's bot: load `bot.json` and the model, then turn positions into moves (Python's
 * `BundleBot`, murlan_env/bots/policy.py, over murlan_env/bundle/files.py, with
 * murlan_env/bundle/manifest.py's checks of bot.json).
 *
 * ```js
 * import { loadBot } from 'murlan-client';
 * const bot = await loadBot('path/or/url/of/bundle');           // runtime-free (weights.bin)
 * const move = await bot.choose(position);                      // { action, cards, play, ... }
 * ```
 * With `{ ort }` (the `onnxruntime-node` or `onnxruntime-web` module) the bot runs
 * `model.onnx` with that runtime instead of multiplying the weights itself.
 * @module
 */

import { actionCatalogue, actionOfCounts, KINDS, legalMask, PASS, startCard } from '../game/combos.js';
import { CARD_NAMES, N_RANKS, RANKS, cardRank, parseCards, rankCounts } from '../game/cards.js';
import { denseModel, denseScores } from './plain_weights.js';
import { canonicalJson, readBytes, readJson, sha256 } from './files.js';
import { cardsOfAction } from '../game/moves.js';
import { checkLayout, encode, N_SEATS, ruleFeatures } from '../game/observation.js';
import { ruleValue } from '../game/rules.js';

/** The bundle format this client reads. */
export const BUNDLE_FORMAT = 'murlan-bundle/4';
export const ENV_VERSION = 'murlan_v1';

/**
 * @typedef {object} Contract what the encoder and move chooser read from bot.json
 * @property {import('../game/combos.js').ActionCatalogue} catalogue the action catalogue
 * @property {Array<{name: string, offset: number, size: number}>} pieces the observation layout
 * @property {number[]} giveBack the ranks the exchange may give back
 * @property {Array<[string, boolean | string]>} features the rules piece's entries
 */

/**
 * bot.json's contract, checked: the action catalogue and observation layout against their
 * hashes and against what this client knows how to encode.
 * @param {object} manifest bot.json
 * @returns {Promise<Contract>}
 */
export async function readContract(manifest) {
  if (manifest.format !== BUNDLE_FORMAT) {
    const fix = String(manifest.format).startsWith('murlan-bundle/')
      ? 'upgrade it with `murlan golden BUNDLE_DIR --upgrade` or re-export it with `murlan export`'
      : 'is this a murlan bundle?';
    throw new Error(`bot.json: format ${JSON.stringify(manifest.format)}, this client reads ${BUNDLE_FORMAT}: ${fix}`);
  }
  if (!manifest.files || typeof manifest.files !== 'object') throw new Error('bot.json: no file list (files)');
  if (manifest.env_version !== ENV_VERSION) {
    throw new Error(`bot.json: env_version ${JSON.stringify(manifest.env_version)}, this client plays ${ENV_VERSION}`);
  }
  const { actions, observation, exchange } = manifest.contract;
  const rows = actions.table.map(({ id, kind, ranks }) => ({ id, kind, ranks }));
  if ((await sha256(canonicalJson(rows))) !== actions.sha256) {
    throw new Error('bot.json: the action catalogue does not match its sha256');
  }
  const pieces = observation.pieces;
  const layoutText = JSON.stringify(pieces.map((p) => [p.name, p.offset, p.size]));
  if ((await sha256(layoutText)) !== observation.sha256) {
    throw new Error('bot.json: the observation layout does not match its sha256');
  }
  const catalogue = actionCatalogue(rows);
  const features = ruleFeatures(manifest.contract.rules.flags);
  const size = checkLayout(pieces, catalogue.size, features.length);
  if (size !== observation.size) throw new Error(`bot.json: observation size ${observation.size}, its pieces add up to ${size}`);
  const giveBack = exchange.ids.map((id) => {
    const rank = catalogue.singleOfRank.indexOf(id);
    if (rank < 0) throw new Error(`bot.json: exchange id ${id} is not a single`);
    return rank;
  });
  return { catalogue, pieces, giveBack, features };
}

/**
 * Load a bundle and check it: format, env version, the hashes of its action catalogue and
 * observation layout, and every file it reads (the model file, or weights.json and
 * weights.bin) against bot.json's file list.
 * @param {string | URL} source a directory (Node.js) or a base URL
 * @param {object} [opts]
 * @param {any} [opts.ort] an onnxruntime module (node or web): run a model file with it;
 *   without it the bot multiplies the weights itself (weights.json, weights.bin)
 * @param {string | URL} [opts.weights] where the plain weights lie (weights.json and
 *   weights.bin for model.onnx; default: the bundle, whose file list holds their sha256)
 * @param {string} [opts.precision] which model file ("float32", the default, or "float16")
 * @param {object} [opts.sessionOptions] passed to `ort.InferenceSession.create`
 * @returns {Promise<MurlanBot>}
 */
export async function loadBot(source, { ort, weights, precision = 'float32', sessionOptions } = {}) {
  const manifest = await readJson(source, 'bot.json');
  const contract = await readContract(manifest);
  const model = manifest.models.find((m) => m.precision === precision);
  if (!model) throw new Error(`bot.json: no ${precision} model (it has ${manifest.models.map((m) => m.precision).join(', ')})`);
  const checked = async (name, bytes) => {
    const entry = manifest.files[name];
    if (!entry) throw new Error(`bot.json: ${name} is not in its file list`);
    if ((await sha256(bytes)) !== entry.sha256) throw new Error(`${name}: sha256 does not match bot.json's file list`);
    return bytes;
  };
  let run;
  let dense = null;
  if (ort) {
    const bytes = await checked(model.file, await readBytes(source, model.file));
    if ((await sha256(bytes)) !== model.sha256) throw new Error(`${model.file}: sha256 does not match bot.json`);
    const session = await ort.InferenceSession.create(bytes, sessionOptions ?? {});
    const [obsName, maskName] = manifest.contract.decision.inputs.map((i) => i.name);
    const outName = manifest.contract.decision.outputs[0].name;
    run = async (obs, mask) => {
      const feeds = {
        [obsName]: new ort.Tensor('float32', obs, [1, obs.length]),
        [maskName]: new ort.Tensor('bool', mask, [1, mask.length]),
      };
      const out = await session.run(feeds);
      return Float32Array.from(out[outName].data);
    };
  } else {
    // From the bundle, both files are checked against its file list; from elsewhere
    // (opts.weights), weights.bin against the sha256 its description gives.
    const where = weights ?? source;
    const inBundle = async (name) => (weights ? readBytes(where, name) : checked(name, await readBytes(where, name)));
    const descriptionName = weightsName(model.file);
    const text = new TextDecoder().decode(await inBundle(descriptionName));
    let weightsSpec;
    try {
      weightsSpec = JSON.parse(text);
    } catch (e) {
      throw new Error(`${descriptionName} is not valid JSON: ${e.message}`);
    }
    const bytes = await inBundle(weightsSpec.file);
    if ((await sha256(bytes)) !== weightsSpec.sha256) throw new Error(`${weightsSpec.file}: sha256 does not match its description`);
    dense = denseModel(weightsSpec, bytes);
    run = async (obs, mask) => denseScores(dense, obs, mask);
  }
  const tolerance = ort ? model.tolerance : Math.max(model.tolerance, PLAIN_TOLERANCE);
  const bot = new MurlanBot(manifest, contract, run, ort ? 'onnxruntime' : 'plain', tolerance);
  bot.dense = dense;
  return bot;
}

/**
 * The description of a model file's plain weights: `model.onnx` -> `weights.json`,
 * `model.fp16.onnx` -> `weights.fp16.json` (murlan_env/bundle/plain_weights.py names them so).
 * @param {string} modelFile
 * @returns {string}
 */
export function weightsName(modelFile) {
  const stem = modelFile.replace(/\.onnx$/, '');
  return `${stem.startsWith('model') ? `weights${stem.slice(5)}` : `${stem}.weights`}.json`;
}

/**
 * The least |score - golden score| on legal actions the runtime-free path is held to (else
 * its model file's tolerance, when larger): sums in another order and precision than
 * onnxruntime's float32 ones differ by their rounding (measured: under 2e-5 on the shipped
 * bundles; see docs/js-client.md).
 */
export const PLAIN_TOLERANCE = 1e-4;

/**
 * @typedef {object} Move
 * @property {number} action action id (an index of the action catalogue)
 * @property {string[]} cards the concrete cards, [] for a pass
 * @property {string} play the cards as one string ("7S 7H", "" for a pass)
 * @property {string} kind "pass", "single", "pair", ...
 * @property {Float32Array} scores (A,) the model's scores, illegal actions at float32's minimum
 * @property {Float32Array} obs the observation the model read
 * @property {Uint8Array} mask the legal actions
 */

export class MurlanBot {
  /**
   * @param {object} manifest bot.json
   * @param {Contract} contract
   * @param {(obs: Float32Array, mask: Uint8Array) => Promise<Float32Array>} run
   * @param {string} runtime
   * @param {number} tolerance
   */
  constructor(manifest, { catalogue, pieces, giveBack, features }, run, runtime, tolerance) {
    this.manifest = manifest;
    this.features = features;
    this.catalogue = catalogue;
    this.pieces = pieces;
    this.giveBack = giveBack;
    /** Largest |score - golden score| this runtime is held to. */
    this.tolerance = tolerance;
    this.run = run;
    /** "plain" (the weights in JavaScript) or "onnxruntime". */
    this.runtime = runtime;
    /** The variant flags the policy was trained for. */
    this.rules = readRules(manifest.rules);
    /** @type {import('./plain_weights.js').DenseModel | null} the dense layers on the plain runtime (what a search runs) */
    this.dense = null;
  }

  /**
   * A position in the app's terms (see `readPosition`) as the encoder's.
   * @param {object} position
   * @returns {import('../game/observation.js').Position}
   */
  position(position) {
    const pos = readPosition(this.catalogue, position, this.rules);
    const why = this.rulesConflict(pos.rules);
    if (why) throw new Error(`this bot does not play these rules: ${why}`);
    return pos;
  }

  /**
   * Why the policy does not play these variant flags (null when it does): a flag at a value
   * outside bot.json's `supported_rules` (absent there: only the trained value), or outside
   * `supported`, a level's own `supported_rules`, when given.
   * @param {object} rules
   * @param {Record<string, any[]>} [supported]
   * @returns {string | null}
   */
  rulesConflict(rules, supported = this.manifest.supported_rules) {
    const bad = [];
    for (const [flag, value] of Object.entries(readRules(rules))) {
      if (!(flag in this.manifest.rules)) {
        bad.push(`${flag} (no such rule flag)`);
        continue;
      }
      const allowed = (supported?.[flag] ?? [this.manifest.rules[flag]]).map((v) => readRules({ v }).v);
      if (!allowed.includes(value)) bad.push(`${flag}=${value} (it plays ${allowed.join('|')})`);
    }
    return bad.length ? bad.join(', ') : null;
  }

  /**
   * The observation vector of a position.
   * @param {object} position
   * @returns {Float32Array}
   */
  encode(position) {
    return encode(this.pieces, this.position(position), this.features);
  }

  /**
   * The legal-action mask of a position (1 = legal).
   * @param {object} position
   * @returns {Uint8Array}
   */
  legalMask(position) {
    const pos = this.position(position);
    return this.#mask(pos);
  }

  /**
   * The model's scores of an observation under a mask.
   * @param {Float32Array} obs
   * @param {Uint8Array} mask
   * @returns {Promise<Float32Array>}
   */
  scores(obs, mask) {
    return this.run(obs, mask);
  }

  /**
   * The bot's move: the legal action of highest score (ties: the lowest id), as cards.
   * @param {object} position
   * @returns {Promise<Move>}
   */
  async choose(position) {
    const pos = this.position(position);
    const obs = encode(this.pieces, pos, this.features);
    const mask = this.#mask(pos);
    if (!mask.some(Boolean)) throw new Error('no legal move in this position');
    const scores = await this.run(obs, mask);
    const action = argmaxLegal(scores, mask);
    return this.#moveOf(pos, action, { scores, obs, mask });
  }

  /**
   * Another legal action of a position as a move (a level's sampled or mixed-in choice),
   * with the scores, observation and mask of `base` (the bot's `choose` there).
   * @param {object} position
   * @param {number} action
   * @param {Move} base
   * @returns {Move}
   */
  move(position, action, base) {
    if (!base.mask[action]) throw new Error(`action ${action} is not legal here`);
    return this.#moveOf(this.position(position), action, base);
  }

  /**
   * @param {import('../game/observation.js').Position} pos
   * @param {number} action
   * @param {{scores: Float32Array, obs: Float32Array, mask: Uint8Array}} model
   * @returns {Move}
   */
  #moveOf(pos, action, { scores, obs, mask }) {
    const cards = cardsOfAction(this.catalogue, action, pos.hand, {
      exchange: pos.exchange,
      received: pos.received,
      startDuty: pos.startDuty,
      startCard: startCard(pos.rules),
    });
    const names = cards.map((c) => CARD_NAMES[c]);
    return { action, cards: names, play: names.join(' '), kind: KINDS[this.catalogue.kind[action]], scores, obs, mask };
  }

  /** @param {import('../game/observation.js').Position} pos */
  #mask(pos) {
    return legalMask(this.catalogue, pos.rules, {
      handCounts: rankCounts(pos.hand),
      table: pos.table,
      exchange: pos.exchange,
      startDuty: pos.startDuty,
      received: pos.received >= 0 ? cardRank(pos.received) : -1,
    }, this.giveBack);
  }
}

/**
 * The legal action of highest score; ties go to the lowest action id (numpy's argmax).
 * @param {Float32Array} scores
 * @param {Uint8Array} mask
 * @returns {number}
 */
export function argmaxLegal(scores, mask) {
  let best = -1;
  for (let a = 0; a < scores.length; a++) {
    if (mask[a] && (best < 0 || scores[a] > scores[best])) best = a;
  }
  return best;
}

/**
 * Read a position in the app's terms: the seat to act's view, keyed by the observation's
 * piece names as golden.json's `state` writes it. Seat slots are egocentric (0 = the seat to
 * act, then the next seats in turn order).
 *
 * | key            | value                                                                |
 * |----------------|----------------------------------------------------------------------|
 * | `my_hand`      | my cards: "3S 7H 7D" (or an array of card names or ids)              |
 * | `played`       | per slot, what it played this hand: ranks "7 7 K" or cards "7S 7H"   |
 * | `cards_left`   | per slot, the cards it holds                                         |
 * | `table_action` | action id of the play to beat (0: empty table); or `table`: its cards |
 * | `table_seat`   | slot that made it (null on an empty table)                           |
 * | `passed`       | per slot, passed since the play to beat                              |
 * | `places`       | per slot, finishing place 0..3 (0 = 1st) or null while playing       |
 * | `scores`       | per slot, match score                                                |
 * | `target`       | 21, 31, 41 or 51                                                     |
 * | `phase`        | "play" or "exchange" (choosing the card to give back)                |
 * | `start_duty`   | true when my play must contain the start card                        |
 * | `exchange`     | {received, gave}: cards of this hand's exchange, each null when none |
 * | `rules`        | the game's variant flags (default: the bundle's)                     |
 *
 * Other keys (`seat`, `unseen`) are ignored: unseen cards follow from the others.
 * @param {import('../game/combos.js').ActionCatalogue} catalogue
 * @param {object} p
 * @param {object} defaultRules
 * @returns {import('../game/observation.js').Position}
 */
export function readPosition(catalogue, p, defaultRules) {
  const four = (name, value) => {
    if (!Array.isArray(value) || value.length !== N_SEATS) throw new Error(`position.${name} must list ${N_SEATS} seat slots`);
    return value;
  };
  const oneCard = (value) => {
    if (value === null || value === undefined || value === -1 || value === '') return -1;
    const ids = parseCards(typeof value === 'number' ? [value] : value);
    if (ids.length !== 1) throw new Error(`expected one card, got ${JSON.stringify(value)}`);
    return ids[0];
  };
  let action = PASS;
  if (p.table_action !== undefined && p.table_action !== null) action = p.table_action;
  else if (p.table !== undefined && p.table !== null) {
    action = actionOfCounts(catalogue, rankCounts(parseCards(p.table)));
    if (action < 0) throw new Error(`position.table: ${JSON.stringify(p.table)} is no combination`);
  }
  if (!Number.isInteger(action) || action < 0 || action >= catalogue.size) throw new Error(`position.table_action: ${action} is no action id`);
  const slot = p.table_seat ?? -1;
  if ((action === PASS) !== (slot < 0)) throw new Error('position: table_action and table_seat must be both set or both empty');
  if (p.phase !== 'play' && p.phase !== 'exchange') throw new Error(`position.phase must be "play" or "exchange", got ${JSON.stringify(p.phase)}`);
  return {
    hand: parseCards(p.my_hand),
    played: four('played', p.played).map(rankCountsOf),
    cardsLeft: four('cards_left', p.cards_left),
    table: action,
    tableSlot: slot,
    passed: four('passed', p.passed).map(Boolean),
    places: four('places', p.places).map((x) => (x === null || x === undefined ? -1 : x)),
    scores: four('scores', p.scores),
    target: p.target,
    exchange: p.phase === 'exchange',
    startDuty: Boolean(p.start_duty),
    received: oneCard(p.exchange?.received),
    gave: oneCard(p.exchange?.gave),
    rules: { ...readRules(defaultRules), ...readRules(p.rules) },
  };
}

/**
 * Cards per rank of what a slot played: rank names ("7 7 K"), card names ("7S 7H") or ids.
 * @param {string | Array<string | number>} played
 * @returns {number[]}
 */
function rankCountsOf(played) {
  const items = typeof played === 'string' ? played.split(/\s+/).filter(Boolean) : played;
  const counts = new Array(N_RANKS).fill(0);
  for (const item of items) {
    const r = typeof item === 'string' ? RANKS.indexOf(item.toUpperCase()) : -1;
    counts[r >= 0 ? r : cardRank(parseCards([item])[0])] += 1;
  }
  return counts;
}

/**
 * Variant flags with their values as JavaScript values. bot.json, golden.json and records
 * write booleans and strings ("leader", "3C"); an app may also write a boolean as a word
 * ("true"), as the command line does.
 * @param {object | undefined} rules
 * @returns {object}
 */
export function readRules(rules) {
  const out = {};
  for (const [flag, value] of Object.entries(rules ?? {})) {
    out[flag] = ruleValue(value);
  }
  return out;
}
