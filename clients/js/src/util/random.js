/**
 * A small seeded generator, so every random choice of a game (deals, dealers, random bots)
 * flows from a seed the user sets: sfc32 (Chris Doty-Humphrey's small fast counting
 * generator, 128 bits of state), its state filled from the seed by splitmix32. Not the Python
 * side's generator: the two engines are compared on given deals and moves, never on draws.
 *
 * And the generator a level's decisions draw from, the Python side's own (`drawUniform`,
 * murlan_env/bots/draws.py): counter-based SplitMix64 keyed by a decision seed and a draw
 * index, so a level makes Python's moves for the same seeds (docs/bundle.md).
 * @module
 */

/**
 * A generator of uniform numbers in [0, 1) (32 random bits each) from an integer seed.
 * @param {number} seed any safe integer
 * @returns {() => number}
 */
export function seededRandom(seed) {
  if (!Number.isSafeInteger(seed)) throw new Error(`a seed is an integer, got ${JSON.stringify(seed)}`);
  let x = (seed >>> 0) ^ Math.imul(Math.floor(seed / 2 ** 32) | 0, 0x9e3779b9);
  const split = () => {
    x = (x + 0x9e3779b9) | 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split();
  let b = split();
  let c = split();
  let d = split();
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

/** The high 32 bits of the 64-bit product of two unsigned 32-bit numbers (16-bit pieces). */
function mulHigh(a, b) {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = ((a0 * b0) >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  return a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16);
}

/**
 * SplitMix64's output number `index` for `seed` (see `drawBits`) in unsigned 32-bit halves
 * h and l (64-bit products mod 2^64 as mulHigh(l, ml) + h * ml + l * mh for the high half):
 * the uniform, and the halves into `halves` when given. Local variables only: about 60 ns.
 * @param {number} seed
 * @param {number} index
 * @param {Uint32Array} [halves]
 * @returns {number}
 */
function splitMix(seed, index, halves) {
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) throw new Error(`a decision seed is an integer in [0, 2^32), got ${JSON.stringify(seed)}`);
  if (!Number.isInteger(index) || index < 0 || index >= 2 ** 31) throw new Error(`a draw index is an integer in [0, 2^31), got ${JSON.stringify(index)}`);
  // (index + 1) * 0x9E3779B97F4A7C15 (SplitMix64's increment), plus the seed with its carry
  let l = index + 1;
  let h = (mulHigh(l, 0x7f4a7c15) + Math.imul(l, 0x9e3779b9)) >>> 0;
  const low = (Math.imul(l, 0x7f4a7c15) >>> 0) + seed;
  l = low >>> 0;
  h = (h + (low > 0xffffffff ? 1 : 0)) >>> 0;
  // z ^= z >> 30; z *= 0xBF58476D1CE4E5B9
  l = (l ^ ((l >>> 30) | (h << 2))) >>> 0;
  h = (h ^ (h >>> 30)) >>> 0;
  h = (mulHigh(l, 0x1ce4e5b9) + Math.imul(h, 0x1ce4e5b9) + Math.imul(l, 0xbf58476d)) >>> 0;
  l = Math.imul(l, 0x1ce4e5b9) >>> 0;
  // z ^= z >> 27; z *= 0x94D049BB133111EB
  l = (l ^ ((l >>> 27) | (h << 5))) >>> 0;
  h = (h ^ (h >>> 27)) >>> 0;
  h = (mulHigh(l, 0x133111eb) + Math.imul(h, 0x133111eb) + Math.imul(l, 0x94d049bb)) >>> 0;
  l = Math.imul(l, 0x133111eb) >>> 0;
  // z ^= z >> 31
  l = (l ^ ((l >>> 31) | (h << 1))) >>> 0;
  h = (h ^ (h >>> 31)) >>> 0;
  if (halves) {
    halves[0] = h;
    halves[1] = l;
  }
  return (h * 2097152 + (l >>> 11)) * 2 ** -53;
}

const HALVES = new Uint32Array(2);

/**
 * Draw `index` of a decision seed's stream as 64 bits: SplitMix64's output number `index`
 * (from 0) when seeded with `seed`, which needs no state: `z = seed + (index + 1) *
 * 0x9E3779B97F4A7C15`, then `z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27;
 * z *= 0x94D049BB133111EB; z ^= z >> 31`, all mod 2^64 (murlan_env/bots/draws.py
 * `draw_bits`).
 * @param {number} seed a decision seed, an integer in [0, 2^32)
 * @param {number} index the draw's index (0: the mix draw, 1: the play draw)
 * @returns {bigint}
 */
export function drawBits(seed, index) {
  splitMix(seed, index, HALVES);
  return (BigInt(HALVES[0]) << 32n) | BigInt(HALVES[1]);
}

/**
 * Draw `index` of a decision seed's stream as a uniform float in [0, 1): its top 53 bits
 * times 2^-53 (murlan_env/bots/draws.py `uniforms`), exact in a double.
 * @param {number} seed
 * @param {number} index
 * @returns {number}
 */
export function drawUniform(seed, index) {
  return splitMix(seed, index);
}
