// Compares systems from other tools' files on the Compare page, in headless Chromium with
// playwright-core: picks every FILE at once in the page's file input, presses Compare, and waits
// for the report's reading.
// Usage: node compare_tools.mjs APP_URL FILE ...
// Prints one JSON object: { pageErrors, error, reading, notes, corrected }: the report's
// reading (or the page's error), the notes the conversion left, and the systems of the
// judge-corrected table (when the scores carry human labels).
import { launchChromium, openPage, watchPage } from './chromium.mjs';

const [appUrl, ...files] = process.argv.slice(2);
const browser = await launchChromium();
const pageErrors = [];

try {
  const opened = await openPage(browser, `${appUrl}compare`);
  pageErrors.push(...opened.pageErrors);
  watchPage(opened.page, pageErrors);
  const page = opened.page;
  await page.waitForSelector('#compare-input', { timeout: 120000 });
  await page.setInputFiles('#compare-input', files);
  await page.click('#compare-run');
  await page.waitForSelector('#compare-reading, #compare-error', { timeout: 120000 });
  const error = await page.$eval('#compare-error', (e) => e.textContent).catch(() => null);
  const reading = await page.$eval('#compare-reading', (e) => e.textContent).catch(() => null);
  const notes = await page.$$eval('#compare > p.warning', (ps) => ps.map((p) => p.textContent));
  const corrected = await page.$$eval('.compare-corrected tbody tr', (trs) => trs.map((tr) => tr.dataset.system));
  console.log(JSON.stringify({ pageErrors, error, reading, notes, corrected }));
} finally {
  await browser.close();
}
