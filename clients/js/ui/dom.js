// The DOM helper and the small words every part of the table uses.

/**
 * An element with attributes (`text` sets its text, `on*` functions become listeners) and
 * children (strings, nodes, arrays of them; null skipped).
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...any} children
 * @returns {HTMLElement}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'text') node.textContent = value;
    else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  node.append(...children.flat(Infinity).filter((c) => c !== null && c !== undefined));
  return node;
}

export const PLACES = ['1st', '2nd', '3rd', '4th'];

/** "1 card", "2 cards". @param {number} n @param {string} word */
export const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A time a move in words ("1 s", "0.3 s"). @param {number} ms */
export const budgetWords = (ms) => `${Number((ms / 1000).toFixed(2))} s`;

/**
 * The thinking sign's words: "thinking…", and for a search level with a time budget the most
 * it may take ("thinking… up to 1 s").
 * @param {number | null | undefined} budgetMs
 */
export const thinkingWords = (budgetMs) => (budgetMs ? `thinking… up to ${budgetWords(budgetMs)}` : 'thinking…');
