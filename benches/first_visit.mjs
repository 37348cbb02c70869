// What a visitor of a shared leaderboard downloads, and how long until its intervals show, over
// a slow connection. The server's session gets BATTLES.csv as a dataset and a saved leaderboard
// (1,000 bootstrap rounds, seed 0); each visit opens its share link in a fresh headless Chromium
// context and is timed from the navigation to every interval on the page.
// Usage: node benches/first_visit.mjs URL BATTLES.csv [RUNS] [MBIT] [RTT_MS]
//   URL: a running `tribunal serve` (release build, dist/ compressed: see benches/first_visit.sh)
// The browser reaches the server through a shaping proxy written here: one link of MBIT Mbit/s
// (default 10) each way, shared by every connection, and RTT_MS (default 40) of round trip, so
// every request — the page's, its web workers', its service worker's — pays the same as on a
// real connection. Three visits, RUNS times each (median):
//   uncompressed  `Accept-Encoding: identity`, service worker blocked: what the server sent
//                 before compression (the same files, whole)
//   first         what a first visit gets now (Brotli/gzip, service worker blocked so that
//                 only the network counts)
//   second        a second visit in the same profile (service worker installed by the first):
//                 immutable files come from its cache, the rest is revalidated
//   home          a first visit to the home page (service worker blocked): the seconds until
//                 index.html's loading sign shows and until the app has mounted and its
//                 buttons work (the Sessions card's "New session")
// Prints JSON: per visit, { bytes, requests, seconds } medians (home: also loading_seconds).
import { chromium } from 'playwright-core';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchOptions } from '../tests/browser/chromium.mjs';

const [url, csv, runsArg, mbitArg, rttArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 3);
const bytesPerMs = (Number(mbitArg ?? 10) * 1e6) / 8 / 1000;
const oneWayMs = Number(rttArg ?? 40) / 2;

// One direction of the link: chunks leave in order, each after the bytes before it have
// passed at the link's rate, and arrive one-way latency later.
function link() {
  let free = 0;
  return (chunk, deliver) => {
    const start = Math.max(Date.now(), free);
    free = start + chunk.length / bytesPerMs;
    setTimeout(() => deliver(chunk), free - Date.now() + oneWayMs);
  };
}

const target = new URL(url);
const up = link();
const down = link();
let transferred = 0;
const proxy = createServer((client) => {
  const server = connect(Number(target.port), target.hostname);
  client.on('data', (chunk) => up(chunk, (c) => server.write(c)));
  server.on('data', (chunk) => {
    transferred += chunk.length;
    down(chunk, (c) => client.write(c));
  });
  const close = () => { client.destroy(); server.destroy(); };
  client.on('error', close);
  server.on('error', close);
  client.on('close', () => setTimeout(() => server.end(), oneWayMs));
  server.on('close', () => setTimeout(() => client.end(), 2 * oneWayMs + 50));
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const shaped = `http://127.0.0.1:${proxy.address().port}`;

const api = async (path, init) => {
  const response = await fetch(new URL(path, url), init);
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
};
const session = await api('/api/sessions', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ title: 'first visit' }),
});
const auth = { authorization: `Bearer ${session.owner_token}` };
const dataset = await api(`/api/sessions/${session.id}/datasets?kind=battles&name=battles.csv`, {
  method: 'POST', headers: auth, body: readFileSync(csv),
});
const analysis = await api(`/api/sessions/${session.id}/analyses`, {
  method: 'POST',
  headers: { ...auth, 'content-type': 'application/json' },
  body: JSON.stringify({
    title: 'leaderboard',
    spec: {
      statistic: 'leaderboard', dataset: dataset.hash,
      bootstrap: { rounds: 1000, seed: 0, level: 0.95 }, anchor: null,
    },
  }),
});
const share = `${shaped}/s/${session.id}/a/${analysis.id}`;

async function visit(context) {
  const page = await context.newPage();
  const before = transferred;
  let requests = 0;
  context.on('requestfinished', () => { requests += 1; });
  const t0 = Date.now();
  await page.goto(share);
  await page.waitForFunction(
    () => !document.querySelector('#bootstrap-progress')
      && document.querySelectorAll('#leaderboard td[data-lower]').length > 0,
    null, { timeout: 600000, polling: 20 });
  const seconds = (Date.now() - t0) / 1000;
  await page.close();
  return { bytes: transferred - before, requests, seconds };
}

// The home page from a fresh profile: when the loading sign shows, when the app's buttons do.
async function homeVisit(context) {
  const page = await context.newPage();
  const before = transferred;
  const t0 = Date.now();
  const loading = page.waitForSelector('#loading', { state: 'visible', timeout: 60000 })
    .then(() => (Date.now() - t0) / 1000);
  await page.goto(`${shaped}/`, { waitUntil: 'commit' });
  const loadingSeconds = await loading;
  await page.waitForSelector('#new-session:not([disabled])', { state: 'visible', timeout: 60000 });
  const seconds = (Date.now() - t0) / 1000;
  await page.close();
  return { bytes: transferred - before, requests: 0, seconds, loading_seconds: loadingSeconds };
}

const profiles = [];
async function context(options) {
  const dir = mkdtempSync(join(tmpdir(), 'tribunal-first-visit-'));
  profiles.push(dir);
  return chromium.launchPersistentContext(dir, { ...launchOptions, ...options });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const results = { uncompressed: [], first: [], second: [], home: [] };
try {
  for (let run = 0; run < runs; run++) {
    const old = await context({
      serviceWorkers: 'block', extraHTTPHeaders: { 'Accept-Encoding': 'identity' },
    });
    results.uncompressed.push(await visit(old));
    await old.close();
    const fresh = await context({ serviceWorkers: 'block' });
    results.first.push(await visit(fresh));
    await fresh.close();
    const returning = await context({});
    const page = await returning.newPage();
    await page.goto(share);
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(
      () => document.querySelectorAll('#leaderboard td[data-lower]').length > 0,
      null, { timeout: 600000 });
    await page.close();
    results.second.push(await visit(returning));
    await returning.close();
    const home = await context({ serviceWorkers: 'block' });
    results.home.push(await homeVisit(home));
    await home.close();
  }
  const summary = {};
  for (const [name, visits] of Object.entries(results)) {
    summary[name] = {
      bytes: median(visits.map((v) => v.bytes)),
      requests: median(visits.map((v) => v.requests)),
      seconds: median(visits.map((v) => v.seconds)),
      ...(name === 'home' ? { loading_seconds: median(visits.map((v) => v.loading_seconds)) } : {}),
    };
  }
  console.log(JSON.stringify({
    link: { mbit: Number(mbitArg ?? 10), rtt_ms: Number(rttArg ?? 40) }, runs, ...summary,
  }));
} finally {
  for (const dir of profiles) rmSync(dir, { recursive: true, force: true });
  proxy.close();
}
