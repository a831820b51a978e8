/**
 * Values written as the Python side writes them in its messages (`repr`, `json.dumps`), so a
 * fault or an illegal move reads the same, word for word, in both languages; and `parseJson`,
 * a JSON reader that keeps what `JSON.parse` loses and Python's reader keeps: a number written
 * with a fraction or an exponent stays a float (`3.0` is no seat), an integer beyond 2**53 stays
 * exact (a BigInt).
 * @module
 */

/** A JSON number written with a fraction or an exponent (Python reads it as a float). */
export class JsonFloat {
  /** @param {number} value */
  constructor(value) {
    this.value = value;
  }
}

/**
 * Python's `repr` of a float.
 * @param {number} x
 * @returns {string}
 */
export function floatRepr(x) {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e');
  const exp = Number(expText);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  if (exp >= -5 + 1 && exp < 16) {
    if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
    const frac = digits.slice(exp + 1);
    return `${sign}${whole}.${frac || '0'}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/**
 * Python's `repr` of a str.
 * @param {string} s
 * @returns {string}
 */
export function strRepr(s) {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || (code >= 0x7f && code < 0xa0)) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

/**
 * Whether a JSON value is an object (Python: a dict).
 * @param {any} x
 * @returns {boolean}
 */
export function isObject(x) {
  return x !== null && typeof x === 'object' && !Array.isArray(x) && !(x instanceof JsonFloat);
}

/**
 * Python's `repr` of a JSON value (None, True, 3, 1.5, 'text', [..], {'k': ..}).
 * @param {any} x
 * @returns {string}
 */
export function pyRepr(x) {
  if (x === null || x === undefined) return 'None';
  if (x === true) return 'True';
  if (x === false) return 'False';
  if (typeof x === 'bigint') return String(x);
  if (typeof x === 'number') return Number.isInteger(x) ? String(x) : floatRepr(x);
  if (x instanceof JsonFloat) return floatRepr(x.value);
  if (typeof x === 'string') return strRepr(x);
  if (Array.isArray(x)) return `[${x.map(pyRepr).join(', ')}]`;
  return `{${Object.entries(x).map(([k, v]) => `${strRepr(k)}: ${pyRepr(v)}`).join(', ')}}`;
}

/**
 * Python's `json.dumps` of a JSON value (default separators, ASCII only).
 * @param {any} x
 * @returns {string}
 */
export function pyJson(x) {
  if (x === null || x === undefined) return 'null';
  if (x === true) return 'true';
  if (x === false) return 'false';
  if (typeof x === 'bigint') return String(x);
  if (typeof x === 'number') return Number.isInteger(x) ? String(x) : jsonFloat(x);
  if (x instanceof JsonFloat) return jsonFloat(x.value);
  if (typeof x === 'string') return JSON.stringify(x).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (Array.isArray(x)) return `[${x.map(pyJson).join(', ')}]`;
  return `{${Object.entries(x).map(([k, v]) => `${pyJson(k)}: ${pyJson(v)}`).join(', ')}}`;
}

/** @param {number} x */
function jsonFloat(x) {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  return floatRepr(x);
}

/**
 * Python's name of a JSON value's type: dict, list, str, int, float, bool, NoneType.
 * @param {any} x
 * @returns {string}
 */
export function pyType(x) {
  if (x === null || x === undefined) return 'NoneType';
  if (typeof x === 'boolean') return 'bool';
  if (typeof x === 'bigint') return 'int';
  if (typeof x === 'number') return Number.isInteger(x) ? 'int' : 'float';
  if (x instanceof JsonFloat) return 'float';
  if (typeof x === 'string') return 'str';
  return Array.isArray(x) ? 'list' : 'dict';
}

/**
 * Parse JSON text as Python's `json.loads` reads it: floats (a fraction or an exponent, and
 * NaN, Infinity, -Infinity) as JsonFloat, integers beyond 2**53 as BigInt, the last of
 * repeated keys. Throws a SyntaxError naming the position of the fault.
 * @param {string} text
 * @returns {any}
 */
export function parseJson(text) {
  let i = 0;
  const fail = (what) => {
    throw new SyntaxError(`${what} at char ${i}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
  const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
  /** @returns {any} */
  const value = (depth) => {
    if (depth > 900) fail('nested too deeply');
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const out = {};
      ws();
      if (text[i] === '}') {
        i++;
        return out;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expecting a property name in double quotes');
        const key = /** @type {string} */ (value(depth + 1));
        ws();
        if (text[i] !== ':') fail("expecting ':'");
        i++;
        Object.defineProperty(out, key, { value: value(depth + 1), enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return out;
        }
        fail("expecting ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const out = [];
      ws();
      if (text[i] === ']') {
        i++;
        return out;
      }
      for (;;) {
        out.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return out;
        }
        fail("expecting ',' or ']'");
      }
    }
    if (c === '"') {
      STRING.lastIndex = i;
      const m = STRING.exec(text);
      if (!m) fail('bad string');
      i += m[0].length;
      return JSON.parse(m[0]);
    }
    for (const [word, v] of [['true', true], ['false', false], ['null', null], ['NaN', new JsonFloat(NaN)], ['Infinity', new JsonFloat(Infinity)], ['-Infinity', new JsonFloat(-Infinity)]]) {
      if (text.startsWith(/** @type {string} */ (word), i)) {
        i += /** @type {string} */ (word).length;
        return v;
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) fail('expecting a value');
    i += m[0].length;
    if (m[1] !== undefined || m[2] !== undefined) return new JsonFloat(Number(m[0]));
    const n = Number(m[0]);
    return Number.isSafeInteger(n) ? n : BigInt(m[0]);
  };
  const out = value(0);
  ws();
  if (i < text.length) fail('extra data');
  return out;
}
