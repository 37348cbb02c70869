// One program of the sandbox (`program_sandbox.js`) runs here, in a dedicated worker of its own.
// The server sends this file with a Content-Security-Policy of its own that allows `eval` (the
// program is compiled with `new Function`) and no network at all (`default-src 'none'`); the
// network APIs are removed as well before the program is evaluated.
// Messages: the worker says `{ ready: true }` once loaded; then `{ code }` compiles the program
// and is answered `{ compiled: true }` or `{ compiled: false, error }`, and each
// `{ i, query, response }` is answered `{ i, value }` or `{ i, error }`.
for (const name of ['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource', 'importScripts',
                    'indexedDB', 'caches', 'BroadcastChannel', 'Worker', 'SharedWorker']) {
  let o = self;
  while (o) {
    try { delete o[name]; } catch (e) { /* not configurable: shadowed below */ }
    o = Object.getPrototypeOf(o);
  }
  try { Object.defineProperty(self, name, { value: undefined, configurable: false }); } catch (e) {}
}
let judge = null;
let loadError = null;
self.onmessage = (event) => {
  const m = event.data;
  if (m.code !== undefined) {
    try {
      judge = new Function(m.code + '\n;return typeof judgingFunction === "function" ? judgingFunction : null;')();
      if (!judge) loadError = 'defines no judgingFunction(query, response)';
    } catch (e) {
      loadError = 'does not compile: ' + String(e && e.message || e);
    }
    self.postMessage(loadError ? { compiled: false, error: loadError } : { compiled: true });
    return;
  }
  if (loadError) { self.postMessage({ i: m.i, error: loadError }); return; }
  try {
    const value = judge(m.query, m.response);
    if (typeof value === 'number' && Number.isFinite(value)) {
      self.postMessage({ i: m.i, value });
    } else {
      self.postMessage({ i: m.i, error: 'returned ' + (typeof value === 'number' ? String(value) : typeof value) + ', not a finite number' });
    }
  } catch (e) {
    self.postMessage({ i: m.i, error: 'threw ' + String(e && e.name || 'an error') + ': ' + String(e && e.message || e).slice(0, 120) });
  }
};
self.postMessage({ ready: true });
