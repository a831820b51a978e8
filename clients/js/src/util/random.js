/**
 * A small seeded generator, so every random choice of a game (deals, dealers, random bots)
 * flows from a seed the user sets: sfc32 (Chris Doty-Humphrey's small fast counting
 * generator, 128 bits of state), its state filled from the seed by splitmix32. Not the Python
 * side's generator: the two engines are compared on given deals and moves, never on draws.
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
