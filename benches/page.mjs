// Times the Leaderboard page end to end in headless Chromium, as a user sees it: from picking a
// battles CSV to the table showing every bootstrap interval (default settings: 1000 rounds,
// seed 0, split across the page's two web workers). Includes reading the file, parsing it in
// the workers, the point fit, the rounds and the summary.
// Usage: node benches/page.mjs URL BATTLES.csv RUNS
//   URL: a running `tribunal serve` of the release build (dist/).
// Prints JSON: { median_s, min_s, runs, rows, settings }.
import { launchChromium } from '../tests/browser/chromium.mjs';

const [url, csv, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 5);
const browser = await launchChromium();
try {
  const times = [];
  let rows = 0;
  let summary = '';
  // One warm-up run (compiles the WASM in the workers), then RUNS timed runs, each on a fresh
  // page so no worker state carries over.
  for (let run = 0; run <= runs; run++) {
    const page = await browser.newPage();
    await page.goto(new URL('leaderboard', url).href);
    await page.waitForSelector('#csv-input');
    // A user picks a file seconds after the page opens: let the workers finish starting.
    await page.waitForTimeout(1500);
    const t0 = Date.now();
    await page.setInputFiles('#csv-input', csv);
    await page.waitForFunction(
      () => !document.querySelector('#bootstrap-progress')
        && document.querySelectorAll('#leaderboard td[data-lower]').length > 0,
      null, { timeout: 600000, polling: 5 });
    const seconds = (Date.now() - t0) / 1000;
    if (run > 0) times.push(seconds);
    rows = await page.$$eval('#leaderboard td[data-lower]', (tds) => tds.length);
    summary = await page.textContent('#leaderboard .summary');
    await page.close();
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({
    median_s: times[Math.floor(times.length / 2)], min_s: times[0], runs, rows, summary,
  }));
} finally {
  await browser.close();
}
