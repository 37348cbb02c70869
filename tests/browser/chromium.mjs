// Headless Chromium for the browser tests and benchmarks: Debian's /usr/bin/chromium (or
// $CHROMIUM) driven by playwright-core, with networking extras off.
import { chromium } from 'playwright-core';

export const launchOptions = {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
};

// Every action, navigation and wait a driver does not time itself may take 2 minutes
// (Playwright's default is 30 s): on a slow 2-core machine, beside another test, a page's first
// load (its wasm compiled) can take longer than that.
export const SLOW_MACHINE_TIMEOUT = 120000;

export async function launchChromium() {
  const browser = await chromium.launch(launchOptions);
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...options) => {
    const context = await newContext(...options);
    context.setDefaultTimeout(SLOW_MACHINE_TIMEOUT);
    return context;
  };
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (...options) => {
    const page = await newPage(...options);
    page.setDefaultTimeout(SLOW_MACHINE_TIMEOUT);
    return page;
  };
  return browser;
}

// Collects into `errors` a page's uncaught errors and each Content-Security-Policy violation
// Chromium reports: on the console ("… violates the following Content Security Policy
// directive …") or, for a request a worker's own policy stopped, as a request failed for `csp`.
// So every driver's empty `pageErrors` also says the app ran under the server's policies
// without being refused anything.
export function watchPage(page, errors) {
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) errors.push(`CSP: ${message.text()}`);
  });
  page.on('requestfailed', (request) => {
    if (request.failure()?.errorText === 'csp') errors.push(`CSP: refused ${request.url()}`);
  });
}

// A 1200 × 900 page at `url`, collecting uncaught page errors and CSP violations into
// `pageErrors`.
export async function openPage(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const pageErrors = [];
  watchPage(page, pageErrors);
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

// From the home page, the judge-run example: /runs with the bundled LLMFAO items, a new
// session made from them (its page not yet opened, so the upload's warnings can be read).
export async function exampleRunSession(page, url) {
  await page.goto(url);
  await page.click('#try-runs');
  await page.waitForURL('**/runs?example');
  await page.waitForFunction(() => document.querySelector('#runs-items-input')?.files.length === 1,
    null, { timeout: 120000 });
}
