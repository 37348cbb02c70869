// Drives the Tribunal app in headless Chromium (Debian's /usr/bin/chromium) with playwright-core.
// Usage: node leaderboard.mjs URL CROWD_CSV BAD_CSV SCREENSHOT_PNG
// Prints one JSON object: what the page showed. Assertions live in tests/browser.rs.
import { chromium } from 'playwright-core';

const [url, crowd, bad, screenshot] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(url);

  await page.waitForFunction(
    () => document.querySelector('#live-status')?.textContent.includes('demo finished'),
    null, { timeout: 30000 });
  const liveStatus = await page.textContent('#live-status');
  const liveCount = Number(await page.textContent('#live-count'));

  const rowsOf = () => page.$$eval('#leaderboard table.ratings tbody tr',
    (trs) => trs.map((tr) => ({ model: tr.dataset.model, elo: tr.dataset.elo })));
  await page.setInputFiles('#csv-input', crowd);
  await page.waitForSelector('#leaderboard table.ratings tbody tr', { timeout: 30000 });
  const rows = await rowsOf();
  const summary = await page.textContent('#leaderboard .summary');
  await page.screenshot({ path: screenshot, fullPage: true });

  await page.setInputFiles('#csv-input', bad);
  await page.waitForSelector('#error', { timeout: 30000 });
  const errorText = await page.textContent('#error');
  const rowsAfterError = await rowsOf();

  console.log(JSON.stringify({ liveStatus, liveCount, rows, summary, errorText, rowsAfterError, pageErrors }));
} finally {
  await browser.close();
}
