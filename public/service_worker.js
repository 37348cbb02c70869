// Tribunal's service worker: the page stays usable offline for what it has already loaded.
// Same-origin GETs of the app (the page, its scripts, WASM and styles) and of a session's view
// and datasets go to the network first; each answer is kept, and served when the network is
// gone. Nothing else is touched: other methods, other origins, the WebSocket, the session
// export and every other API route pass straight through.
const CACHE = 'tribunal-v1';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

const cacheable = (url) => {
  if (url.pathname === '/ws') return false;
  if (!url.pathname.startsWith('/api/')) return true;
  return /^\/api\/sessions\/[0-9a-f]+(\/datasets\/[^/]+)?$/.test(url.pathname);
};

async function networkFirst(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) {
      await cache.put(request, response.clone());
      // Every app path is the same index.html: keep it as the offline page for all of them.
      if (request.mode === 'navigate') await cache.put('/', response.clone());
    }
    return response;
  } catch (error) {
    const cached = (await cache.match(request, { ignoreSearch: false }))
      ?? (request.mode === 'navigate' ? await cache.match('/') : undefined);
    if (cached) return cached;
    throw error;
  }
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || !cacheable(url)) return;
  event.respondWith(networkFirst(request));
});
