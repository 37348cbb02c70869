// Saves analyses from the session page's "New analysis" form as the owner, then opens each as a
// visitor (a fresh browser context, no owner token), in headless Chromium with playwright-core.
// Usage: node open_analyses.mjs OWNER_URL SPECS_JSON
// OWNER_URL is the session's owner link (`/s/<id>#owner=TOKEN`); SPECS_JSON a file holding a
// list of `{ title, analysis, inputs }`: the settings as the spec writes them (`analysis` and
// every setting) and role → dataset hash. For each: picks the kind, replaces the settings
// text, picks each role's dataset, saves, and notes the analysis URL the page opens. The
// visitor then waits for each report its browser recomputes, reads it from the page's download
// link, and counts the rows of the tables and the charts its view shows (and, for a label plan,
// reads the CSV its link offers), and on a 390 px wide phone measures how wide the page is;
// axe-core audits each view at both widths (`axe.mjs`).
// Prints one JSON object: { pageErrors, urls, reports: [{ kind, rows, charts, report, planCsv,
// planRows, axe, phoneWidth, phoneAxe | error }] }.
import { readFileSync } from 'node:fs';
import { audit } from './axe.mjs';
import { launchChromium, openPage, watchPage } from './chromium.mjs';

const [ownerUrl, specsFile] = process.argv.slice(2);
const specs = JSON.parse(readFileSync(specsFile, 'utf8'));
const browser = await launchChromium();
const pageErrors = [];

try {
  const owner = await openPage(browser, ownerUrl);
  pageErrors.push(...owner.pageErrors);
  watchPage(owner.page, pageErrors);
  const sessionUrl = ownerUrl.split('#')[0];
  const page = owner.page;
  // The page keeps the owner token (and drops it from the address bar) as it starts.
  await page.waitForSelector('#analysis-kind', { timeout: 120000 });
  const urls = [];
  for (const { title, analysis, inputs } of specs) {
    if (page.url() !== sessionUrl) {
      await page.goto(sessionUrl);
      await page.waitForSelector('#analysis-kind', { timeout: 120000 });
    }
    await page.selectOption('#analysis-kind', analysis.analysis);
    await page.fill('#analysis-settings', JSON.stringify(analysis, null, 2));
    for (const [role, hash] of Object.entries(inputs)) {
      await page.selectOption(`.analysis-input[data-role="${role}"]`, hash, { timeout: 120000 });
    }
    await page.fill('#analysis-title', title);
    await page.dispatchEvent('#analysis-title', 'change');
    await page.click('#save-analysis');
    await page.waitForURL(/\/s\/[0-9a-f]{32}\/a\/[0-9a-f]+$/, { timeout: 120000 });
    urls.push(page.url());
  }

  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, bypassCSP: true });
  const visitor = await context.newPage();
  watchPage(visitor, pageErrors);
  const reports = [];
  for (const url of urls) {
    await visitor.goto(url);
    await visitor.waitForSelector('#analysis-download, #analysis-error', { timeout: 120000 });
    // A run in parts (a leaderboard's bootstrap, a calibration's folds) shows its preview
    // first: wait for its report.
    await visitor.waitForFunction(
      () => !document.querySelector('#bootstrap-progress, #cv-progress, #analysis-progress')
        && !document.querySelector('#analysis .busy'),
      null, { timeout: 120000 });
    const kind = await visitor.getAttribute('#analysis', 'data-kind');
    const error = await visitor.$('#analysis-error');
    if (error) {
      reports.push({ kind, error: await error.textContent() });
      continue;
    }
    const href = await visitor.getAttribute('#analysis-download', 'href');
    const report = JSON.parse(decodeURIComponent(href.slice(href.indexOf(',') + 1)));
    const rows = await visitor.$$eval('#analysis table.ratings tbody tr', (trs) => trs.length);
    const charts = await visitor.$$eval('#analysis figure.chart svg', (svgs) => svgs.length);
    // A prediction-powered report with a label plan: its listed battles and the file offered.
    const plan = await visitor.$('#ppi-plan-download');
    const planCsv = plan
      ? decodeURIComponent((await plan.getAttribute('href')).split(',').slice(1).join(','))
      : null;
    const planRows = await visitor.$$eval('#ppi-plan-top tbody tr', (trs) => trs.length);
    const ablation = await visitor.$('#cal-ablation');
    const curveRows = await visitor.$$eval('#cal-training-curve tbody tr', (trs) => trs.length);
    reports.push({
      kind, rows, charts, report, planCsv, planRows, curveRows,
      ablation: ablation ? await ablation.textContent() : null,
      axe: await audit(visitor),
    });
  }
  // Each report again on a 390 px wide phone: how wide the page is then.
  const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true })).newPage();
  watchPage(phone, pageErrors);
  for (const [k, url] of urls.entries()) {
    await phone.goto(url);
    await phone.waitForSelector('#analysis-download, #analysis-error', { timeout: 120000 });
    reports[k].phoneWidth = await phone.evaluate(() => document.documentElement.scrollWidth);
    if (!reports[k].error) reports[k].phoneAxe = await audit(phone);
  }
  console.log(JSON.stringify({ pageErrors, urls, reports }));
} finally {
  await browser.close();
}
