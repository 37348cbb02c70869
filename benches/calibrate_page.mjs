// Times the Calibrate page's cross-validation in headless Chromium, as a user sees it: with the
// head kind and the training file chosen (the page's two web workers parse it on the choice),
// from the click on "Calibrate" to the cross-validation curve joined from both workers' folds
// (5 folds over 10 γ; the page measures it with performance.now() and shows it in #cal-cv).
// The refit and the test-set scores that follow are not part of the figure.
// Usage: node benches/calibrate_page.mjs URL HEAD TRAIN.csv RUNS
//   URL: a running `tribunal serve` of the release build (dist/); HEAD: ls or btl.
// Prints JSON: { median_ms, min_ms, runs, gamma }.
import { launchChromium } from '../tests/browser/chromium.mjs';

const [url, head, train, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 9);
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(new URL('calibrate', url).href);
  await page.waitForSelector('#cal-run');
  await page.selectOption('#cal-head', head);
  await page.setInputFiles('#cal-train', train);
  await page.setInputFiles('#cal-test', train);
  // A user clicks seconds after choosing the files: let the workers parse them.
  await page.waitForTimeout(2000);
  const times = [];
  let gamma = null;
  // One warm-up run, then RUNS timed runs on the same page (the workers keep the parsed file).
  for (let run = 0; run <= runs; run++) {
    await page.click('#cal-run');
    await page.waitForSelector('#cal-cv', { timeout: 120000 });
    const ms = Number(await page.getAttribute('#cal-cv', 'data-ms'));
    gamma = Number(await page.getAttribute('#cal-cv', 'data-gamma'));
    // Let the refit and scoring finish before the next click.
    await page.waitForFunction(() => !document.querySelector('#calibrate .busy'), null,
      { timeout: 120000 });
    if (run > 0) times.push(ms);
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({
    median_ms: times[Math.floor(times.length / 2)], min_ms: times[0], runs, gamma,
  }));
} finally {
  await browser.close();
}
