// Opens the LLMFAO study's session as a visitor (no owner token) in headless Chromium with
// playwright-core: the session page's title and the analyses it lists, then each analysis by
// its link, waiting for what the visitor's browser recomputes: a leaderboard's table once its
// bootstrap has finished (each row's model, Elo and interval bounds), any other analysis's
// report read from the page's download link.
// Usage: node study.mjs SESSION_URL
// Prints one JSON object: { pageErrors, title, listed: [{ kind, href, title }],
// reports: [{ href, kind, table } | { href, kind, report } | { href, kind, error }] }.
import { launchChromium, leaderboardTable, openPage, watchPage } from './chromium.mjs';

const [sessionUrl] = process.argv.slice(2);
const browser = await launchChromium();
const pageErrors = [];
try {
  const { page, pageErrors: first } = await openPage(browser, sessionUrl);
  pageErrors.push(...first);
  watchPage(page, pageErrors);
  await page.waitForSelector('#analyses li', { timeout: 120000 });
  const title = await page.textContent('#session-title-shown');
  const listed = await page.$$eval('#analyses li', (items) => items.map((li) => ({
    kind: li.dataset.kind,
    href: li.querySelector('a.analysis-link').getAttribute('href'),
    title: li.querySelector('a.analysis-link').textContent,
  })));
  const reports = [];
  const origin = new URL(sessionUrl).origin;
  for (const { href, kind: listedKind } of listed) {
    await page.goto(origin + href);
    if (listedKind === 'leaderboard') {
      reports.push({ href, kind: listedKind, table: await leaderboardTable(page) });
      continue;
    }
    await page.waitForSelector('#analysis-download, #analysis-error', { timeout: 240000 });
    const kind = await page.getAttribute('#analysis', 'data-kind');
    const error = await page.$('#analysis-error');
    if (error) {
      reports.push({ href, kind, error: await error.textContent() });
      continue;
    }
    const link = await page.getAttribute('#analysis-download', 'href');
    const report = JSON.parse(decodeURIComponent(link.slice(link.indexOf(',') + 1)));
    reports.push({ href, kind, report });
  }
  console.log(JSON.stringify({ pageErrors, title, listed, reports }));
} finally {
  await browser.close();
}
