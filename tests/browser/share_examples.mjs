// Every example's "Share as a link", in headless Chromium with playwright-core: each task page
// with an example opens at `/<task>?example`, computes it, and once its Share button is enabled
// makes the link; the link is then opened in a fresh browser context (no storage, nothing
// cached), which recomputes the analysis. Then "Save to session" on a page with no session of
// this device's, and the fallback of a link too long for its data: one click shares it through
// a session instead.
// Usage: node share_examples.mjs URL LARGE_BATTLES_CSV
// Prints one JSON object: per task, the link, its stated size, the report on the page (read
// from its download link where it has one) and the one the fresh context computed, with the
// fresh context's requests; the save and the fallback's outcomes; page errors. Assertions live
// in tests/share_examples_browser.rs.
import { launchChromium, watchPage, leaderboardTable } from './chromium.mjs';

const [url, large] = process.argv.slice(2);
const browser = await launchChromium();
const pageErrors = [];

// Task → the prefix of its Save/Share elements' ids, and how its example is tried: the page's
// own path with `?example`, or (the run checks' card on the agreement page) a check chosen and
// its example button clicked.
const tasks = [
  ['leaderboard', ''],
  ['style', 'style-'],
  ['length-control', 'length-control-'],
  ['compare', 'compare-'],
  ['judge', 'study-'],
  ['ppi', 'ppi-'],
  ['judge-value', 'judge-value-'],
  ['self-preference', 'self-preference-'],
  ['transitivity', 'transitivity-'],
  ['cascade', 'cascade-'],
  ['reliability', 'rel-'],
  ['calibrate', 'cal-'],
  ['programs', 'prog-'],
  ['runs-aa', 'runs-', 'aa'],
  ['runs-consistency', 'runs-', 'consistency'],
  ['runs-position', 'runs-', 'position'],
];

// Opens the task's page and tries its example.
async function tryExample(page, task, check) {
  if (!check) return page.goto(new URL(`${task}?example`, url).href);
  await page.goto(new URL('reliability', url).href);
  await page.waitForSelector('#example-runs', { timeout: 120000 });
  await page.selectOption('#runs-check', check);
  await page.click('#example-runs');
}

// A run check's numbers as its view shows them (full precision, from data attributes), on the
// page's card or in a shared analysis.
async function checkNumbers(page) {
  return page.$$eval('[data-metric], [data-mean-entropy], #position-summary, #consistency-summary',
    (els) => els.map((e) => ({ ...e.dataset })));
}

// The report behind an analysis view's download link, or null where the view has none.
async function downloaded(page) {
  const link = await page.$('#analysis-download');
  if (!link) return null;
  const href = await link.getAttribute('href');
  return JSON.parse(decodeURIComponent(href.slice(href.indexOf(',') + 1)));
}

// The link a page's Share button makes, with its stated size.
async function share(page, prefix) {
  await page.click(`#${prefix}share-link`);
  await page.waitForSelector(`#${prefix}share-url, #${prefix}share-error`, { timeout: 120000 });
  const error = await page.$(`#${prefix}share-error`);
  if (error) return { error: await error.textContent() };
  return {
    url: await page.inputValue(`#${prefix}share-url`),
    size: await page.textContent(`#${prefix}share-size`),
  };
}

const out = { tasks: {}, pageErrors };
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  watchPage(page, pageErrors);
  for (const [task, prefix, check] of tasks) {
    await tryExample(page, task, check);
    await page.waitForSelector(`#${prefix}share-link:not([disabled])`, { timeout: 300000 });
    const seen = { onPage: await downloaded(page), ...(await share(page, prefix)) };
    if (check) seen.onPageNumbers = await checkNumbers(page);
    if (task === 'leaderboard') seen.onPageTable = await leaderboardTable(page);
    if (seen.url) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const visitor = await context.newPage();
      watchPage(visitor, pageErrors);
      seen.requests = [];
      visitor.on('request', (r) => seen.requests.push({ url: r.url(), method: r.method() }));
      await visitor.goto(seen.url);
      if (task === 'leaderboard') {
        seen.sharedTable = await leaderboardTable(visitor);
      } else {
        await visitor.waitForSelector('#analysis-download, #analysis-error, #shared-error', { timeout: 300000 });
        seen.sharedError = await visitor.evaluate(
          () => document.querySelector('#analysis-error, #shared-error')?.textContent ?? null);
        seen.shared = await downloaded(visitor);
        if (check) seen.sharedNumbers = await checkNumbers(visitor);
      }
      seen.sharedNote = await visitor.textContent('#shared-note').catch(() => null);
      await context.close();
    }
    out.tasks[task] = seen;
  }

  // Save with no session on this device: a new session named after the analysis.
  await page.goto(new URL('length-control?example', url).href);
  await page.waitForSelector('#length-control-save:not([disabled])', { timeout: 120000 });
  out.saveOptions = await page.$$eval('#length-control-save-session option', (os) => os.map((o) => o.value));
  await page.click('#length-control-save');
  await page.waitForURL(/\/s\/[0-9a-f]{32}\/a\/[0-9a-f]+$/, { timeout: 180000 });
  out.savedUrl = page.url();
  await page.waitForSelector('#analysis-download', { timeout: 120000 });
  out.saved = await downloaded(page);
  await page.goto(url);
  await page.waitForSelector('#recent-sessions', { timeout: 120000 });
  out.homeSessions = await page.$$eval('#recent-sessions li', (lis) => lis.map((li) => li.textContent));

  // A battles file too large for a link: the page says so and shares it through a session.
  await page.goto(new URL('leaderboard', url).href);
  await page.waitForSelector('#csv-input', { timeout: 120000 });
  await page.setInputFiles('#csv-input', large);
  await page.waitForSelector('#share-link:not([disabled])', { timeout: 300000 });
  out.largeTable = await leaderboardTable(page);
  out.tooLong = await share(page, '');
  await page.click('#share-session');
  await page.waitForSelector('#share-url', { timeout: 120000 });
  out.sessionLink = {
    url: await page.inputValue('#share-url'),
    size: await page.textContent('#share-size'),
  };
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const visitor = await context.newPage();
  watchPage(visitor, pageErrors);
  await visitor.goto(out.sessionLink.url);
  out.sessionTable = await leaderboardTable(visitor);
} finally {
  console.log(JSON.stringify(out));
  await browser.close();
}
