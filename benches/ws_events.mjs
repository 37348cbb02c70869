// Times the worker's WebSocket stream into one headless Chromium page: the page asks for the
// seeded demo stream (`start_demo`, N battles, no pause between them; the worker stores each
// event in SQLite before it sends it) and counts the `battle` messages until the N-th, with
// performance.now() from sending the request. One warm-up stream, then RUNS timed streams,
// each on a new connection (and a new stream in the store).
// Usage: node benches/ws_events.mjs URL N RUNS
//   URL: a running `tribunal serve` (its /api/health is the page's origin).
// Prints JSON: { median_s, min_s, runs, events, events_per_s (median), chromium }.
import { launchChromium } from '../tests/browser/chromium.mjs';

const [url, nArg, runsArg] = process.argv.slice(2);
const n = Number(nArg ?? 10000);
const runs = Number(runsArg ?? 5);
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(new URL('/api/health', url).href);
  const times = [];
  for (let run = 0; run <= runs; run++) {
    const seconds = await page.evaluate(([n, seed]) => new Promise((resolve, reject) => {
      const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/ws');
      let seen = 0;
      let t0 = 0;
      ws.onopen = () => {
        t0 = performance.now();
        ws.send(JSON.stringify({ v: 1, type: 'start_demo', seed, battles: n, interval_ms: 0 }));
      };
      ws.onmessage = (m) => {
        const msg = JSON.parse(m.data);
        if (msg.type === 'battle' && ++seen === n) {
          const s = (performance.now() - t0) / 1000;
          ws.close();
          resolve(s);
        } else if (msg.type === 'error') {
          reject(new Error(msg.message));
        }
      };
      ws.onerror = () => reject(new Error('websocket error'));
    }), [n, run]);
    if (run > 0) times.push(seconds);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(JSON.stringify({
    median_s: median, min_s: times[0], runs, events: n, events_per_s: n / median,
    chromium: browser.version(),
  }));
} finally {
  await browser.close();
}
