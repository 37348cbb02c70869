// Drives the judge-runs card of the Reliability page (A/A, self-consistency, position bias) in
// headless Chromium (Debian's /usr/bin/chromium) with playwright-core.
// Usage: node run_checks.mjs URL AA_CSV CONSISTENCY_CSV POSITION_CSV ABBA_CSV BAD_CSV SCREENSHOT_PNG
// Prints one JSON object: what the card showed. Assertions live in tests/reliability_browser.rs.
import { launchChromium, openPage } from './chromium.mjs';

const [url, aa, consistency, position, abba, bad, screenshot] = process.argv.slice(2);
const browser = await launchChromium();
try {
  const { page, pageErrors } = await openPage(browser, url);
  await page.waitForSelector('#runs-run', { timeout: 120000 });
  const set = async (id, value) => {
    await page.fill(id, value);
    await page.dispatchEvent(id, 'change');
  };
  const check = async (file, selector) => {
    await page.setInputFiles('#runs-input', file);
    await page.click('#runs-run');
    await page.waitForSelector(selector, { timeout: 120000 });
  };

  // A/A: two runs and a gold rater, nominal pass/fail.
  await set('#runs-a', 'run1');
  await set('#runs-b', 'run2');
  await set('#runs-gold', 'gold');
  await set('#runs-pass', 'pass');
  await check(aa, '#aa-checks tbody tr');
  const aaShown = {
    checks: await page.$$eval('#aa-checks tbody tr', (trs) => trs.map((tr) => ({ ...tr.dataset, className: tr.className }))),
    overall: await page.$eval('#aa-overall', (p) => ({ flag: p.dataset.flag, text: p.textContent })),
  };
  await page.screenshot({ path: screenshot, fullPage: true });

  // Self-consistency: repeats as variants, two criteria, `label` the final label.
  await page.selectOption('#runs-check', 'consistency');
  await page.selectOption('#runs-scale', 'numeric');
  await set('#runs-label', 'label');
  await check(consistency, '#consistency-table tbody tr');
  const consistencyShown = {
    criteria: await page.$$eval('#consistency-table tbody tr', (trs) => trs.map((tr) => ({ ...tr.dataset }))),
    summary: await page.$eval('#consistency-summary', (p) => ({ ...p.dataset })),
    items: await page.$$eval('#consistency-items tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent))),
  };

  // Position bias: LLMFAO's GPT-4 verdicts (one order), then an AB/BA file.
  await page.selectOption('#runs-check', 'position');
  await set('#runs-item', 'id');
  await set('#runs-score', 'winner');
  await set('#runs-rounds', '300');
  await set('#runs-seed', '5');
  await check(position, '#position-summary');
  const gpt4 = await page.$eval('#position-summary', (p) => ({ ...p.dataset, text: p.textContent }));
  await set('#runs-item', 'item');
  await set('#runs-score', 'score');
  await set('#runs-rounds', '100');
  await set('#runs-seed', '0');
  const before = await page.$eval('#position-summary', (p) => p.dataset.rate);
  await page.setInputFiles('#runs-input', abba);
  await page.click('#runs-run');
  await page.waitForFunction((old) => document.querySelector('#position-summary')?.dataset.rate !== old, before, { timeout: 120000 });
  const abbaShown = await page.$eval('#position-summary', (p) => ({ ...p.dataset }));

  // A malformed file: a located error, and the previous result stays.
  await page.setInputFiles('#runs-input', bad);
  await page.click('#runs-run');
  await page.waitForSelector('#runs-error', { timeout: 120000 });
  const errorText = await page.textContent('#runs-error');
  const after = await page.$eval('#position-summary', (p) => ({ ...p.dataset }));

  console.log(JSON.stringify({ aa: aaShown, consistency: consistencyShown, gpt4, abba: abbaShown, errorText, after, pageErrors }));
} finally {
  await browser.close();
}
