// Opens saved analyses as a visitor (a fresh browser context, no owner token) in headless
// Chromium with playwright-core.
// Usage: node open_analyses.mjs ANALYSIS_URL…
// For each URL: waits for the report the visitor's browser recomputes, reads it from the
// page's download link, and counts the rows of the tables its view shows.
// Prints one JSON object: { pageErrors, reports: [{ kind, rows, report | error }] }.
import { launchChromium } from './chromium.mjs';

const urls = process.argv.slice(2);
const browser = await launchChromium();
const pageErrors = [];

try {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const visitor = await context.newPage();
  visitor.on('pageerror', (e) => pageErrors.push(String(e)));
  const reports = [];
  for (const url of urls) {
    await visitor.goto(url);
    await visitor.waitForSelector('#analysis-download, #analysis-error', { timeout: 120000 });
    const kind = await visitor.getAttribute('#analysis', 'data-kind');
    const error = await visitor.$('#analysis-error');
    if (error) {
      reports.push({ kind, error: await error.textContent() });
      continue;
    }
    const href = await visitor.getAttribute('#analysis-download', 'href');
    const report = JSON.parse(decodeURIComponent(href.slice(href.indexOf(',') + 1)));
    const rows = await visitor.$$eval('#analysis table.ratings tbody tr', (trs) => trs.length);
    reports.push({ kind, rows, report });
  }
  console.log(JSON.stringify({ pageErrors, reports }));
} finally {
  await browser.close();
}
