// Starts the share-link worker: loads the wasm-bindgen shim Trunk built for the `link-worker`
// binary and its WASM (a script of its own, as for the statistics worker: `worker-src 'self'`).
importScripts('/link-worker.js');
wasm_bindgen({ module_or_path: '/link-worker_bg.wasm' });
