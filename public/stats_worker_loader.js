// Starts a statistics worker: loads the wasm-bindgen shim Trunk built for the `stats-worker`
// binary and its WASM. A script of its own (rather than gloo-worker's Blob loader) so that the
// page's Content-Security-Policy can allow workers from this origin only (`worker-src 'self'`).
importScripts('/stats-worker.js');
wasm_bindgen({ module_or_path: '/stats-worker_bg.wasm' });
