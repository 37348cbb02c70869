// Tribunal's service worker: a second visit starts from what the first one loaded, and the
// page stays usable offline for it. The app's content-hashed files (Trunk's `name-<hex>.ext`:
// the WASM, its JS, styles — a new build has new names) are served from the cache first and
// fetched only once. Every other same-origin GET of the app (the page itself, the workers'
// scripts) and of a session's view and datasets goes to the network first; each answer is
// kept, and served when the network is gone. Nothing else is touched: other methods, other
// origins, the WebSocket, the session export and every other API route pass straight through.
const CACHE = 'tribunal-v2';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil((async () => {
  for (const name of await caches.keys()) {
    if (name !== CACHE) await caches.delete(name);
  }
  await self.clients.claim();
})()));

const contentHashed = (url) => /-[0-9a-f]{10,}(_bg)?\.[a-z0-9]+$/.test(url.pathname);

async function cacheFirst(request) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

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
      // Every app path is the same index.html: keep it as the offline page for all of them,
      // and forget the content-hashed files of builds it no longer names.
      if (request.mode === 'navigate') {
        await cache.put('/', response.clone());
        const page = await response.clone().text();
        for (const key of await cache.keys()) {
          const path = new URL(key.url).pathname;
          if (contentHashed(new URL(key.url)) && !page.includes(path)) await cache.delete(key);
        }
      }
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
  event.respondWith(contentHashed(url) ? cacheFirst(request) : networkFirst(request));
});
