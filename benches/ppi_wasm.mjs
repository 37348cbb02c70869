// Times the prediction-powered report (benches/src/lib.rs `ppi_report`) in headless Chromium.
// Usage: node benches/ppi_wasm.mjs PKG_DIR ROUNDS LABELLED_BATTLES.csv...
// Prints JSON shaped like `bench-native ppi-time`'s: per file, the report without a bootstrap
// and with 1000 bootstrap rounds (median and minimum of ROUNDS timed runs after a warm-up).
import { withBenchPage } from './bench_page.mjs';

const [pkg, roundsArg, ...files] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 5);
const route = (path) => (path.startsWith('/file/') ? files[Number(path.slice(6))] : null);
const result = await withBenchPage(pkg, route, (page) =>
  page.evaluate(async ([rounds, count]) => {
    const m = await import('/tribunal_benches.js');
    await m.default();
    const { time } = await import('/page_timer.js');
    const report = {};
    for (let k = 0; k < count; k++) {
      const bytes = new Uint8Array(await (await fetch('/file/' + k)).arrayBuffer());
      report[k] = {
        asymptotic: time(rounds, () => m.bench_ppi_report(bytes, 0)),
        bootstrap_1000: time(rounds, () => m.bench_ppi_report(bytes, 1000)),
      };
    }
    report.userAgent = navigator.userAgent;
    return report;
  }, [rounds, files.length]));
for (const [k, file] of files.entries()) {
  result[file] = result[k];
  delete result[k];
}
console.log(JSON.stringify(result));
