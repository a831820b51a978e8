// The JSON API, shared by the pages (the DOM helper and the table are the client's: /clients/js/ui/).

let pending = 0;

/** An API answer with a 4xx/5xx status: `message` is the server's error in words. */
export class ApiFailure extends Error {
  constructor(status, body) {
    super((body && body.error) || `the server answered HTTP ${status}`);
    this.status = status;
    this.body = body || {};
  }
}

function setBusy(delta) {
  pending += delta;
  document.body.dataset.busy = pending > 0 ? "1" : "0";
}

/** Call the API: `body` is sent as JSON; resolves to the parsed answer or throws ApiFailure. */
export async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  setBusy(+1);
  try {
    let response;
    try {
      response = await fetch(path, init);
    } catch {
      const message = "Cannot reach the murlan server: is it still running? (start it again with "
        + "murlan serve, then reload this page)";
      showGlobalError(message);
      throw new ApiFailure(0, { error: message });
    }
    showGlobalError("");
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null;
    }
    if (!response.ok) throw new ApiFailure(response.status, data);
    return data;
  } finally {
    setBusy(-1);
  }
}

/** Show an error that belongs to no page (e.g. the server is gone). */
export function showGlobalError(message) {
  const box = document.getElementById("global-error");
  box.textContent = message || "";
  box.hidden = !message;
}
