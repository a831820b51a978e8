// The page's side of the bots' worker (worker.js): requests as promises. A request the worker
// answers with an error rejects with its words; when the worker itself fails (its script does
// not load, an error escapes it, a message cannot be read), every request waiting and every
// later one rejects with that failure, so the page says it instead of waiting for ever.

export class BotWorker {
  /** @param {URL | string} url the worker's module script */
  constructor(url) {
    this.worker = new Worker(url, { type: 'module' });
    /** @type {Map<number, {resolve: (value: any) => void, reject: (err: Error) => void}>} */
    this.pending = new Map();
    this.next = 0;
    /** @type {Error | null} */
    this.failure = null;
    this.worker.addEventListener('message', (event) => {
      const { id, error, ...answer } = event.data;
      const waiting = this.pending.get(id);
      if (!waiting) return;
      this.pending.delete(id);
      if (error !== undefined) waiting.reject(new Error(error));
      else waiting.resolve(answer);
    });
    this.worker.addEventListener('error', (event) => {
      event.preventDefault();
      this.fail(`the bots' worker stopped (reload the page to play again): ${event.message || 'its script could not be loaded or run'}`);
    });
    this.worker.addEventListener('messageerror', () => this.fail("the bots' worker sent a message that cannot be read"));
  }

  /** @param {string} why */
  fail(why) {
    this.failure = new Error(why);
    for (const { reject } of this.pending.values()) reject(this.failure);
    this.pending.clear();
  }

  /**
   * One request (worker.js lists them) and its answer.
   * @param {string} type
   * @param {object} [body]
   * @returns {Promise<any>}
   */
  request(type, body = {}) {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, type, ...body });
    });
  }
}
