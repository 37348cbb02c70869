// Times the WASM build of the benchmark workloads in headless Chromium.
// Usage: node benches/wasm.mjs PKG_DIR DATA_DIR BATTLES.csv ROUNDS SLOW_ROUNDS  (from the
// repository root: the program library is timed on tests/data/llmfao/pairs.csv)
//   PKG_DIR: wasm-bindgen --target web output; DATA_DIR: what `bench-native data` wrote.
// Serves PKG_DIR, the data files and the battles CSV on a loopback port, runs the timing loop
// in the page with performance.now() (one warm-up run, then ROUNDS or SLOW_ROUNDS timed runs),
// prints JSON shaped like `bench-native time`'s.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { launchChromium } from '../tests/browser/chromium.mjs';

const [pkg, dataDir, csv, roundsArg, slowArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 50);
const slow = Number(slowArg ?? 5);
const types = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };
const clean = (p) => p.replace(/^\/+/, '').replace(/\.\./g, '');
const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url, 'http://x');
    const body = url.pathname === '/llmfao.csv' ? await readFile(csv)
      : url.pathname === '/pairs.csv' ? await readFile('tests/data/llmfao/pairs.csv')
      : url.pathname === '/' ? '<!DOCTYPE html><title>bench</title>'
      : url.pathname.startsWith('/data/') ? await readFile(join(dataDir, basename(url.pathname)))
      : await readFile(join(pkg, clean(url.pathname)));
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

const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(base + '/');
  const result = await page.evaluate(async ([rounds, slow]) => {
    const m = await import('/tribunal_benches.js');
    await m.default();
    const load = async (path) => new Uint8Array(await (await fetch(path)).arrayBuffer());
    const time = (n, f) => {
      const value = f();
      const s = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        f();
        s.push((performance.now() - t0) / 1000);
      }
      s.sort((a, b) => a - b);
      return { median_s: s[Math.floor(s.length / 2)], min_s: s[0], rounds: n, value };
    };
    const report = {};
    const bytes = await load('/llmfao.csv');
    const llmfao = m.bench_parse(bytes);
    report.llmfao = {
      csv_to_leaderboard: time(rounds, () => m.bench_csv_to_leaderboard(bytes)),
      fit_only: time(rounds, () => m.bench_fit_only(llmfao)),
    };
    for (const name of ['battles-100k.csv', 'battles-1m.csv']) {
      const battles = m.bench_parse(await load('/data/' + name));
      report[name] = {
        fit_only: time(rounds, () => m.bench_fit_only(battles)),
        bootstrap: time(slow, () => m.bench_bt_bootstrap(battles)),
      };
      battles.free();
    }
    const alpha = m.bench_parse_ratings(await load('/data/alpha-10k.csv'));
    report['alpha-10k.csv'] = { bootstrap: time(slow, () => m.bench_alpha_bootstrap(alpha)) };
    const kappa = m.bench_parse_ratings(await load('/data/kappa-10k.csv'));
    report['kappa-10k.csv'] = { bootstrap: time(slow, () => m.bench_kappa_bootstrap(kappa)) };
    for (const [name, btl] of [['cal-ls-384.csv', false], ['cal-ls-4096.csv', false],
      ['cal-btl-384.csv', true], ['cal-btl-4096.csv', true]]) {
      const data = m.bench_parse_calibration(await load('/data/' + name), btl);
      report[name] = { cv: time(slow, () => m.bench_calibration_cv(data)) };
      data.free();
    }
    const grm = m.bench_parse_ratings(await load('/data/grm-1000x4.csv'));
    report['grm-1000x4.csv'] = {
      map: { fit: time(slow, () => m.bench_grm_fit(grm, false)) },
      flat: { fit: time(slow, () => m.bench_grm_fit(grm, true)) },
    };
    const pairs = m.bench_parse_pairs(await load('/pairs.csv'));
    report.programs = { library: time(rounds, () => m.bench_program_library(pairs)) };
    pairs.free();
    const votes = m.bench_parse_votes(await load('/data/votes-5k-20.csv'));
    report['votes-5k-20.csv'] = { fit: time(rounds, () => m.bench_label_model(votes)) };
    votes.free();
    report.userAgent = navigator.userAgent;
    return report;
  }, [rounds, slow]);
  result.chromium = browser.version();
  console.log(JSON.stringify(result));
} finally {
  await browser.close();
  server.close();
}
