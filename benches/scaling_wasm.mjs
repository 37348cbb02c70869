// The scaling table's browser column (issue 44): each case that `python3 benches/scaling.py
// native` ran (DIR/<kind>-<N>/spec.json and roles.json: the spec the CLI recorded and its files
// by role) rerun in headless Chromium as the page's web worker runs a saved analysis —
// `tribunal::analysis::run` compiled to WASM, one thread (benches/src/lib.rs `SpecRun`).
// Each case gets a freshly loaded page, so the WASM memory read after the run (linear memory
// only grows) is that case's peak. Times the run alone (parsing included, as natively), once.
// Usage: node benches/scaling_wasm.mjs PKG_DIR DIR OUT.json [CASE...]
// (CASE: a directory name such as ppi-100000; default: every DIR/*/spec.json). Cases already
// in OUT.json are kept; an error is recorded as the case's `error`.
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { withBenchPage } from './bench_page.mjs';

const [pkg, dir, out, ...only] = process.argv.slice(2);
const cases = only.length ? only
  : (await readdir(dir)).filter((c) => existsSync(join(dir, c, 'spec.json'))).sort();
const results = existsSync(out) ? JSON.parse(await readFile(out, 'utf8')) : { runs: {} };
let files = [];
const route = (path) => (path.startsWith('/file/') ? files[Number(path.slice(6))] : null);
await withBenchPage(pkg, route, async (page) => {
  const url = page.url();
  for (const name of cases) {
    const spec = await readFile(join(dir, name, 'spec.json'), 'utf8');
    const roles = Object.entries(JSON.parse(await readFile(join(dir, name, 'roles.json'), 'utf8')));
    files = roles.map(([, path]) => path);
    await page.goto(url);
    const result = await page.evaluate(async ([spec, roles]) => {
      const m = await import('/tribunal_benches.js');
      const wasm = await m.default();
      try {
        const run = new m.SpecRun(spec);
        for (const [k, role] of roles.entries()) {
          run.add(role, new Uint8Array(await (await fetch('/file/' + k)).arrayBuffer()));
        }
        const t0 = performance.now();
        const kind = run.run();
        const seconds = (performance.now() - t0) / 1000;
        return { kind, seconds, wasm_memory_mib: wasm.memory.buffer.byteLength / 2 ** 20 };
      } catch (e) {
        return { error: String(e), wasm_memory_mib: wasm.memory.buffer.byteLength / 2 ** 20 };
      }
    }, [spec, roles.map(([role]) => role)]);
    results.runs[name] = result;
    results.userAgent = await page.evaluate(() => navigator.userAgent);
    process.stderr.write(`${name}: ${JSON.stringify(result)}\n`);
    await writeFile(out, JSON.stringify(results, null, 1));
  }
  return {};
});
