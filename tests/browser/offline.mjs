// Offline use of data already loaded: a persistent browser profile opens a saved analysis
// while the worker runs (`load`), then again after the worker has stopped (`reopen`).
// Usage: node offline.mjs load|reopen PROFILE_DIR ANALYSIS_URL
// `load` opens the page twice: the first visit installs the service worker, the reload runs
// under it and fills its cache. Prints one JSON object: the table and the page errors.
import { chromium } from 'playwright-core';
import { SLOW_MACHINE_TIMEOUT, launchOptions, leaderboardTable, watchPage } from './chromium.mjs';

const [mode, profile, url] = process.argv.slice(2);
const context = await chromium.launchPersistentContext(profile, {
  ...launchOptions,
  viewport: { width: 1200, height: 900 },
});
context.setDefaultTimeout(SLOW_MACHINE_TIMEOUT);
try {
  const page = await context.newPage();
  const pageErrors = [];
  watchPage(page, pageErrors);
  const tableOf = () => leaderboardTable(page);
  await page.goto(url);
  if (mode === 'load') {
    await tableOf();
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.reload();
  }
  const table = await tableOf();
  const controlled = await page.evaluate(() => navigator.serviceWorker.controller !== null);
  console.log(JSON.stringify({ pageErrors, table, controlled }));
} finally {
  await context.close();
}
