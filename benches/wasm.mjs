// Times the WASM build of the benchmark workloads in headless Chromium.
// Usage: node benches/wasm.mjs PKG_DIR FILE.csv ROUNDS   (PKG_DIR: wasm-bindgen --target web output)
// Serves PKG_DIR and the CSV on a loopback port, runs the timing loop in the page with
// performance.now(), prints JSON shaped like bench-native's.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [pkg, csv, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 50);
const types = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };
const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url, 'http://x');
    const body = url.pathname === '/data.csv' ? await readFile(csv)
      : url.pathname === '/' ? '<!DOCTYPE html><title>bench</title>'
      : await readFile(join(pkg, url.pathname.replace(/^\/+/, '').replace(/\.\./g, '')));
    const ext = url.pathname.match(/\.[a-z]+$/)?.[0] ?? '.html';
    res.writeHead(200, { 'content-type': types[ext] ?? 'application/octet-stream' });
    res.end(body);
  } catch {
    res.writeHead(404);
    res.end();
  }
}).listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const base = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage();
  await page.goto(base + '/');
  const result = await page.evaluate(async (rounds) => {
    const m = await import('/tribunal_benches.js');
    await m.default();
    const bytes = new Uint8Array(await (await fetch('/data.csv')).arrayBuffer());
    const time = (f) => {
      f();
      const s = [];
      for (let i = 0; i < rounds; i++) {
        const t0 = performance.now();
        f();
        s.push((performance.now() - t0) / 1000);
      }
      s.sort((a, b) => a - b);
      return { median_s: s[Math.floor(s.length / 2)], min_s: s[0], rounds };
    };
    const parsed = m.bench_parse(bytes);
    return {
      csv_to_leaderboard: time(() => m.bench_csv_to_leaderboard(bytes)),
      fit_only: time(() => m.bench_fit_only(parsed)),
      userAgent: navigator.userAgent,
    };
  }, rounds);
  console.log(JSON.stringify(result));
} finally {
  await browser.close();
  server.close();
}
