// Headless Chromium for the browser tests and benchmarks: Debian's /usr/bin/chromium (or
// $CHROMIUM) driven by playwright-core, with networking extras off.
import { chromium } from 'playwright-core';

export const launchOptions = {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
};

export function launchChromium() {
  return chromium.launch(launchOptions);
}

// A 1200 × 900 page at `url`, collecting uncaught page errors into `pageErrors`.
export async function openPage(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(url);
  return { page, pageErrors };
}

// The leaderboard table once its bootstrap has finished: every printed cell of each row, and
// the Elo and interval bounds behind them (data attributes).
export async function leaderboardTable(page) {
  await page.waitForFunction(
    () => !document.querySelector('#bootstrap-progress')
      && document.querySelectorAll('#leaderboard td[data-lower]').length > 0,
    null, { timeout: 120000 });
  return page.$$eval('#leaderboard table.ratings tbody tr', (trs) => trs.map((tr) => ({
    model: tr.dataset.model,
    elo: tr.dataset.elo,
    lower: tr.querySelector('td[data-lower]').dataset.lower,
    upper: tr.querySelector('td[data-lower]').dataset.upper,
    cells: [...tr.querySelectorAll('td')].map((td) => td.textContent),
  })));
}
