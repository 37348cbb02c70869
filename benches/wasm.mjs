// Times the WASM build of the benchmark workloads in headless Chromium.
// Usage: node benches/wasm.mjs PKG_DIR DATA_DIR BATTLES.csv ROUNDS SLOW_ROUNDS  (from the
// repository root: the program library is timed on tests/data/llmfao/pairs.csv)
//   PKG_DIR: wasm-bindgen --target web output; DATA_DIR: what `bench-native data` wrote.
// Serves PKG_DIR, the data files and the battles CSV on a loopback port, runs the timing loop
// in the page with performance.now() (one warm-up run, then ROUNDS or SLOW_ROUNDS timed runs),
// prints JSON shaped like `bench-native time`'s.
import { basename, join } from 'node:path';
import { withBenchPage } from './bench_page.mjs';

const [pkg, dataDir, csv, roundsArg, slowArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 50);
const slow = Number(slowArg ?? 5);
const route = (path) => path === '/llmfao.csv' ? csv
  : path === '/pairs.csv' ? 'tests/data/llmfao/pairs.csv'
  : path.startsWith('/data/') ? join(dataDir, basename(path))
  : null;
const result = await withBenchPage(pkg, route, (page) =>
  page.evaluate(async ([rounds, slow]) => {
    const m = await import('/tribunal_benches.js');
    await m.default();
    const load = async (path) => new Uint8Array(await (await fetch(path)).arrayBuffer());
    const { time } = await import('/page_timer.js');
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
      map: { fit: time(slow, () => m.bench_grm_fit(grm, 'map')) },
      flat: { fit: time(slow, () => m.bench_grm_fit(grm, 'flat')) },
      flat_girth_tolerance: { fit: time(slow, () => m.bench_grm_fit(grm, 'flat_girth_tolerance')) },
    };
    const pairs = m.bench_parse_pairs(await load('/pairs.csv'));
    report.programs = { library: time(rounds, () => m.bench_program_library(pairs)) };
    pairs.free();
    const votes = m.bench_parse_votes(await load('/data/votes-5k-20.csv'));
    report['votes-5k-20.csv'] = { fit: time(rounds, () => m.bench_label_model(votes)) };
    votes.free();
    report.userAgent = navigator.userAgent;
    return report;
  }, [rounds, slow]));
console.log(JSON.stringify(result));
