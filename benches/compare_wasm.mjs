// Times `tribunal stats compare`'s report in headless Chromium (the benches crate's WASM build):
// one warm-up, then RUNS timed runs of the whole report — the file's bytes parsed, every
// statistic, a 1,000-round paired bootstrap — every pair and each system against BASELINE.
// Usage: node benches/compare_wasm.mjs PKG_DIR SCORES.csv RUNS BASELINE; prints JSON.
import { withBenchPage } from './bench_page.mjs';

const [pkg, csv, runsArg, baseline] = process.argv.slice(2);
const runs = Number(runsArg ?? 3);
const route = (path) => (path === '/scores.csv' ? csv : null);
const result = await withBenchPage(pkg, route, (page) =>
  page.evaluate(async ([runs, baseline]) => {
    const m = await import('/tribunal_benches.js');
    await m.default();
    const { time } = await import('/page_timer.js');
    const bytes = new Uint8Array(await (await fetch('/scores.csv')).arrayBuffer());
    return {
      all: time(runs, () => m.bench_compare(bytes, 1000, '')),
      baseline: time(runs, () => m.bench_compare(bytes, 1000, baseline)),
    };
  }, [runs, baseline]));
console.log(JSON.stringify(result));
