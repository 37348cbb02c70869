// A judge run on a fleet, from the page, in headless Chromium at 390 px: the home page's
// "Run a judge over your items" example opens /runs with the bundled LLMFAO items; a new session
// is made from them (the upload's warning about an empty response is shown before going on);
// on the session page the fleet is picked, its model name typed, and the run started; the page
// is never reloaded, and the count of finished runs and the datasets update when the run ends.
// Usage: node judge_runs.mjs URL
// Prints one JSON object; assertions live in tests/live_runs.rs.
import { exampleRunSession, launchChromium, watchPage } from './chromium.mjs';

const [url] = process.argv.slice(2);
const browser = await launchChromium();
const pageErrors = [];
try {
  const page = await browser.newPage({ viewport: { width: 390, height: 900 } });
  watchPage(page, pageErrors);
  await exampleRunSession(page, url);
  const judges = await page.$eval('#runs-judges', (p) => ({ ...p.dataset, text: p.textContent }));
  await page.click('#runs-new-session');
  await page.waitForSelector('#runs-open-session', { timeout: 120000 });
  const uploadWarnings = await page.$$eval('#runs-page .upload-warning', (ps) => ps.map((p) => p.textContent));
  await page.click('#runs-open-session');
  await page.waitForSelector('#start-run', { timeout: 120000 });
  const session = page.url();
  const judgeOptions = await page.$$eval('#run-judge option', (os) => os.map((o) => ({ value: o.value, selected: o.selected })));
  const finishedBefore = await page.$eval('#runs-finished', (p) => p.dataset.count);
  const datasetsBefore = await page.$$eval('#datasets tbody tr', (trs) => trs.map((tr) => tr.cells[0].textContent));
  // A fleet needs the model name it serves before a run can start.
  const startableWithoutModel = await page.isEnabled('#start-run');
  await page.fill('#run-model', 'stand-in');
  const startableWithModel = await page.isEnabled('#start-run');
  await page.fill('#run-concurrency', '2');
  await page.dispatchEvent('#run-concurrency', 'change');
  // Marks this document: a reload would lose the mark.
  await page.evaluate(() => { window.notReloaded = true; });
  await page.click('#start-run');
  await page.waitForFunction(() => document.querySelector('.run-status')?.dataset.finished === 'true',
    null, { timeout: 180000 });
  await page.waitForFunction(() => document.querySelector('#runs-finished')?.dataset.count === '1',
    null, { timeout: 120000 });
  // The session, read again, watches the finished run from its first event.
  await page.waitForFunction(() => document.querySelector('.run-status')?.dataset.finished === 'true',
    null, { timeout: 120000 });
  const status = await page.$eval('.run-status', (p) => ({ ...p.dataset, text: p.textContent }));
  const verdicts = await page.$$eval('.run-judgments tbody tr', (trs) => trs.map((tr) => ({
    item: tr.cells[0].textContent, order: tr.cells[1].textContent, verdict: tr.cells[2].textContent,
  })));
  const datasetsAfter = await page.$$eval('#datasets tbody tr', (trs) => trs.map((tr) => tr.cells[0].textContent));
  const notReloaded = await page.evaluate(() => window.notReloaded === true);
  const width = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, window: window.innerWidth }));
  console.log(JSON.stringify({
    pageErrors, judges, uploadWarnings, session, judgeOptions, finishedBefore, datasetsBefore,
    startableWithoutModel, startableWithModel, status, verdicts, datasetsAfter, notReloaded, width,
    finishedText: await page.textContent('#runs-finished'),
  }));
} finally {
  await browser.close();
}
