// A cascade started from the page, in headless Chromium at 390 px: the bundled LLMFAO items in a
// new session (as judge_runs.mjs makes one), the first fleet as the judge, and the form's cascade
// on: below a confidence of 0.95 an item goes to the second fleet's model, and below 0.7 there
// to people. The run's page shows each judge's line as it finishes, without a reload. Then the
// page is reloaded while the second judge (a held fleet) runs: the session it reads holds the
// first judge's record but not the cascade's files, which must still appear when the run ends:
// the second fleet answers nothing until this driver has read the reloaded page.
// Usage: node cascade_run.mjs URL
// Prints one JSON object; assertions live in tests/live_runs.rs.
import { exampleRunSession, launchChromium, watchPage } from './chromium.mjs';

const [url] = process.argv.slice(2);
const browser = await launchChromium();
const pageErrors = [];
const setNumber = async (page, selector, value) => {
  await page.fill(selector, value);
  await page.dispatchEvent(selector, 'change');
};
try {
  const page = await browser.newPage({ viewport: { width: 390, height: 900 } });
  watchPage(page, pageErrors);
  await exampleRunSession(page, url);
  await page.click('#runs-new-session');
  await page.waitForSelector('#runs-open-session', { timeout: 120000 });
  await page.click('#runs-open-session');
  await page.waitForSelector('#start-run', { timeout: 120000 });
  const session = page.url();
  await page.fill('#run-model', 'first');
  await page.check('#run-escalate');
  await page.waitForSelector('#run-next-judge');
  // A cascade needs its second judge's model name before a run can start.
  const startableWithoutSecond = await page.isEnabled('#start-run');
  await setNumber(page, '#run-threshold', '0.95');
  const nextJudges = await page.$$eval('#run-next-judge option', (os) => os.map((o) => o.value));
  await page.selectOption('#run-next-judge', nextJudges[1]);
  await page.fill('#run-next-model', 'second');
  await setNumber(page, '#run-next-threshold', '0.7');
  const startableWithSecond = await page.isEnabled('#start-run');
  await page.evaluate(() => { window.notReloaded = true; });
  await page.click('#start-run');
  // The first judge's line, shown live; then the page is read again mid-run.
  await page.waitForSelector('.run-cascade tbody tr', { timeout: 180000 });
  const notReloaded = await page.evaluate(() => window.notReloaded === true);
  const finishedBeforeReload = await page.$eval('.run-status', (p) => p.dataset.finished === 'true');
  await page.reload();
  await page.waitForSelector('.run-status', { timeout: 120000 });
  const firstRecordRead = await page.$eval('#runs-finished', (p) => p.dataset.count);
  // The second fleet holds its requests until now (tests/fleet.py's POST /hold).
  const released = await fetch(nextJudges[1].replace(/\/v1$/, '/release'), { method: 'POST', body: '{}' });
  if (!released.ok) throw new Error(`releasing the second fleet: ${released.status}`);
  await page.waitForFunction(() => document.querySelector('.run-status')?.dataset.finished === 'true',
    null, { timeout: 180000 });
  await page.waitForFunction(() => [...document.querySelectorAll('#datasets tbody tr')]
    .some((tr) => tr.cells[0].textContent.endsWith('.cascade.csv')), null, { timeout: 120000 });
  // The session, read again, watches the finished run from its first event.
  await page.waitForFunction(() => document.querySelector('.run-status')?.dataset.finished === 'true',
    null, { timeout: 120000 });
  const stream = await page.$eval('.run', (d) => d.dataset.stream);
  const status = await page.$eval('.run-status', (p) => ({ ...p.dataset, text: p.textContent }));
  const tiers = await page.$$eval('.run-cascade tbody tr', (trs) => trs.map((tr) => ({
    ...tr.dataset, judge: tr.cells[0].textContent, threshold: tr.cells[1].textContent,
    to: tr.cells[5].textContent,
  })));
  const datasets = await page.$$eval('#datasets tbody tr', (trs) => trs.map((tr) => tr.cells[0].textContent));
  const width = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, window: window.innerWidth }));
  console.log(JSON.stringify({
    pageErrors, session, nextJudges, startableWithoutSecond, startableWithSecond, stream, status,
    tiers, datasets, notReloaded, finishedBeforeReload, firstRecordRead, width,
  }));
} finally {
  await browser.close();
}
