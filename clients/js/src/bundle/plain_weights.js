/**
 * The runtime-free path: the policy's few dense layers in plain JavaScript, from the bundle's
 * `weights.bin` as `weights.json` describes it (murlan_env/bundle/plain_weights.py writes both;
 * `weights.fp16.*` hold the float16 model's weights, read here as float32, as its Casts do).
 *
 * Each layer is `y = W x + b` (W row-major, out x in) with an optional ReLU; the last layer's
 * outputs are the scores, and illegal actions score float32's minimum as in model.onnx.
 * Sums run in float64 and each layer's outputs are rounded to float32, so the scores differ
 * from onnxruntime's and PyTorch's float32 sums only by their rounding (the tolerance in
 * docs/js-client.md). Zero inputs (most of an observation, and every unit ReLU silenced) are
 * skipped.
 * @module
 */

export const WEIGHTS_FORMAT = 'murlan-weights/1';

/**
 * @typedef {object} DenseModel
 * @property {Array<{weight: Float32Array, bias: Float32Array, nOut: number, nIn: number, relu: boolean}>} layers
 * @property {number} maskedScore
 */

/**
 * Read the layers of `weights.json` (`layout`) from the bytes of `weights.bin`.
 * @param {object} layout
 * @param {ArrayBuffer | Uint8Array} bytes
 * @returns {DenseModel}
 */
export function denseModel(layout, bytes) {
  if (layout.format !== WEIGHTS_FORMAT) {
    throw new Error(`weights format ${JSON.stringify(layout.format)}, this client reads ${WEIGHTS_FORMAT}`);
  }
  const half = layout.dtype === 'float16';
  if ((!half && layout.dtype !== 'float32') || layout.byte_order !== 'little') {
    throw new Error(`weights must be little-endian float32 or float16, not ${layout.byte_order} ${layout.dtype}`);
  }
  const buf = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (buf.byteLength !== layout.bytes) throw new Error(`${layout.file} holds ${buf.byteLength} bytes, its description says ${layout.bytes}`);
  // A float32 copy at offset 0, aligned and read little-endian on any machine.
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const floats = new Float32Array(buf.byteLength / (half ? 2 : 4));
  for (let i = 0; i < floats.length; i++) floats[i] = half ? halfToFloat(view.getUint16(2 * i, true)) : view.getFloat32(4 * i, true);
  const part = ({ offset, shape }) => floats.subarray(offset, offset + shape.reduce((a, b) => a * b, 1));
  const layers = layout.layers.map((l, i) => {
    const [nOut, nIn] = l.weight.shape;
    if (l.bias.shape[0] !== nOut) throw new Error(`layer ${i}: bias of ${l.bias.shape[0]} for ${nOut} outputs`);
    if (l.activation !== null && l.activation !== 'relu') throw new Error(`layer ${i}: activation ${l.activation}`);
    return { weight: part(l.weight), bias: part(l.bias), nOut, nIn, relu: l.activation === 'relu' };
  });
  return { layers, maskedScore: layout.masked_score };
}

/**
 * Scores of one observation under a legal mask: the model's output for a batch of one.
 * @param {DenseModel} model
 * @param {Float32Array} obs
 * @param {Uint8Array} mask
 * @returns {Float32Array}
 */
export function denseScores(model, obs, mask) {
  let x = obs;
  for (const { weight, bias, nOut, nIn, relu } of model.layers) {
    if (x.length !== nIn) throw new Error(`a layer of ${nIn} inputs got ${x.length}`);
    const active = [];
    for (let i = 0; i < nIn; i++) if (x[i] !== 0) active.push(i);
    const y = new Float32Array(nOut);
    for (let o = 0; o < nOut; o++) {
      const row = o * nIn;
      let sum = bias[o];
      for (const i of active) sum += weight[row + i] * x[i];
      y[o] = relu && sum < 0 ? 0 : sum;
    }
    x = y;
  }
  const scores = new Float32Array(x.length);
  for (let a = 0; a < x.length; a++) scores[a] = mask[a] ? x[a] : model.maskedScore;
  return scores;
}

/**
 * The value of an IEEE 754 half-precision number given by its 16 bits.
 * @param {number} h
 * @returns {number}
 */
export function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}
