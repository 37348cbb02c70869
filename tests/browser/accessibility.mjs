// axe-core on every page of the app, in headless Chromium with playwright-core, at 1280 and
// 390 px: home, every task page before and after its example computed (the three run checks
// too), the glossary, a page
// that is not one, a fragment-shared analysis, a session and a saved analysis of it. Each page
// also reports its smallest chart text as rendered (px) and its charts' axes: the number of
// tick labels on each axis and whether it has a title.
// Usage: node accessibility.mjs URL
// Prints one JSON object: per width and page, axe's violations (rule, impact, the first
// elements), the charts' text sizes and axes, the technical terms it links (href and the
// meaning shown on hover) and, on the glossary, its entries' ids; page errors. Assertions live in
// tests/accessibility_browser.rs.
import { audit } from './axe.mjs';
import { launchChromium, watchPage } from './chromium.mjs';

const [url] = process.argv.slice(2);
const browser = await launchChromium();
const pageErrors = [];

// Task path → its Save/Share prefix, for the pages with an example.
const examples = [
  ['leaderboard', ''], ['style', 'style-'], ['length-control', 'length-control-'],
  ['compare', 'compare-'], ['power', 'power-'], ['judge', 'study-'], ['ppi', 'ppi-'], ['judge-value', 'judge-value-'],
  ['self-preference', 'self-preference-'], ['transitivity', 'transitivity-'], ['cascade', 'cascade-'],
  ['reliability', 'rel-'],
  ['calibrate', 'cal-'],
  ['programs', 'prog-'],
];
const plain = ['', 'runs', 'live', 'glossary', 'no-such-page', ...examples.map(([t]) => t)];

const out = { widths: {}, pageErrors };
try {
  for (const width of [1280, 390]) {
    const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    watchPage(page, pageErrors);
    const seen = {};
    for (const path of plain) {
      await page.goto(new URL(path, url).href);
      await page.waitForSelector('main section', { timeout: 120000 });
      seen[`/${path}`] = await audit(page);
    }
    let shareUrl = null;
    for (const [task, prefix] of examples) {
      await page.goto(new URL(`${task}?example`, url).href);
      await page.waitForSelector(`#${prefix}share-link:not([disabled])`, { timeout: 300000 });
      seen[`/${task}?example`] = await audit(page);
      if (task === 'ppi' && width === 1280) {
        await page.click('#ppi-share-link');
        await page.waitForSelector('#ppi-share-url', { timeout: 180000 });
        shareUrl = await page.inputValue('#ppi-share-url');
      }
    }
    // The run checks' card on the agreement page, each check on its example.
    for (const check of ['aa', 'consistency', 'position']) {
      await page.goto(new URL('reliability', url).href);
      await page.waitForSelector('#example-runs', { timeout: 120000 });
      await page.selectOption('#runs-check', check);
      await page.click('#example-runs');
      await page.waitForSelector('#runs-share-link:not([disabled])', { timeout: 120000 });
      seen[`/reliability, run check ${check} on its example`] = await audit(page);
    }
    if (shareUrl) out.shareUrl = shareUrl;
    await page.goto(out.shareUrl);
    await page.waitForSelector('#analysis-download', { timeout: 120000 });
    seen['shared analysis'] = await audit(page);
    // A saved analysis and its session (the first save makes the session).
    await page.goto(new URL('length-control?example', url).href);
    await page.waitForSelector('#length-control-save:not([disabled])', { timeout: 120000 });
    await page.click('#length-control-save');
    await page.waitForURL(/\/s\/[0-9a-f]{32}\/a\/[0-9a-f]+$/, { timeout: 180000 });
    await page.waitForSelector('#analysis-download', { timeout: 120000 });
    seen['saved analysis'] = await audit(page);
    await page.click('#back-to-session');
    await page.waitForSelector('#datasets tbody tr', { timeout: 120000 });
    seen.session = await audit(page);
    out.widths[width] = seen;
    await context.close();
  }
} finally {
  console.log(JSON.stringify(out));
  await browser.close();
}
