/**
 * murlan-client: play a murlan bundle (bot.json, model.onnx or weights.bin) from JavaScript.
 * See docs/js-client.md.
 * @module
 */

export { loadBot, readContract, readPosition, readRules, MurlanBot, argmaxLegal, BUNDLE_FORMAT, PLAIN_TOLERANCE, weightsName } from './bot.js';
export { actionTable, actionOfCounts, beats, legalMask, startCard, PASS } from './actions.js';
export { CARD_NAMES, RANKS, SUITS, cardRank, parseCard, parseCards, formatCards, rankCounts } from './cards.js';
export { encode, checkLayout, ruleFeatures, PIECE_SIZES } from './observation.js';
export { cardsOfAction } from './moves.js';
export { denseModel, denseScores, halfToFloat } from './dense.js';
export { canonicalJson, sha256 } from './files.js';
export { verifyGolden, allMatch, reportLines, GOLDEN_FORMAT } from './verify.js';
