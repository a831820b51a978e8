/**
 * murlan-client: play a murlan bundle (bot.json, model.onnx or weights.bin) from JavaScript.
 * See docs/js-client.md.
 * @module
 */

export { loadBot, readContract, readPosition, readRules, MurlanBot, argmaxLegal, BUNDLE_FORMAT, PLAIN_TOLERANCE, weightsName } from './bots/bot.js';
export { actionTable, actionOfCounts, beats, legalMask, startCard, PASS } from './game/actions.js';
export { CARD_NAMES, RANKS, SUITS, cardRank, parseCard, parseCards, formatCards, rankCounts } from './game/cards.js';
export { encode, checkLayout, ruleFeatures, PIECE_SIZES } from './game/observation.js';
export { cardsOfAction } from './game/moves.js';
export { denseModel, denseScores, halfToFloat } from './bots/dense.js';
export { canonicalJson, sha256 } from './files.js';
export { levelPlayer, greedyAction, randomAction, sampleFromScores, mulberry32, MIXABLE } from './bots/levels.js';
export { verifyGolden, allMatch, reportLines, GOLDEN_FORMAT } from './bots/verify.js';
