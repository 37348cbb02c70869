// A newcomer's walk through the Tribunal app in headless Chromium (playwright-core): at each
// width (1280 and 390 px), from the home page, each task's "try it on an example" link to its
// finished report (at 390 px by keyboard alone, then Tab through the report's page). Only the
// app's own stable ids are used — no test hooks.
// Usage: node newcomer.mjs URL SCREENSHOT_DIR
// Prints one JSON object: per width, what each report showed, each page's width and the page
// errors. Assertions live in tests/newcomer_browser.rs.
import { launchChromium, watchPage, leaderboardTable } from './chromium.mjs';

const [url, screenshots] = process.argv.slice(2);
const browser = await launchChromium();
const rowsOf = (page, table) => page.$$eval(`${table} tbody tr`, (trs) => trs.map((tr) => ({ ...tr.dataset })));
// How wide the page is, against the window: a page wider than the window scrolls sideways.
const widthOf = (page) => page.evaluate(() => ({
  page: document.documentElement.scrollWidth,
  window: window.innerWidth,
}));

// From the home page, the task's example link, then `finished` on the task page. At 390 px the
// walk is keyboard-only: Tab to the link, Enter; and once the report is up, Tab goes through
// the page (`keyboard`).
async function walk(page, width, task, finished) {
  await page.goto(url);
  await page.waitForSelector(`#try-${task}`, { timeout: 120000 });
  if (width === 390) {
    let reached = false;
    for (let k = 0; k < 60 && !reached; k += 1) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate((id) => document.activeElement?.id === id, `try-${task}`);
    }
    if (!reached) throw new Error(`Tab never reached #try-${task}`);
    await page.keyboard.press('Enter');
  } else {
    await page.click(`#try-${task}`);
  }
  await page.waitForURL(`**/${task}?example`);
  await finished();
  await page.screenshot({ path: `${screenshots}/${task}-${width}.png`, fullPage: true });
  if (width === 390) out.keyboard[task] = await keyboard(page);
  return widthOf(page);
}

// Tab through the page from its top: the controls of the page's content (inputs, selects,
// buttons, links, summaries) that are shown and enabled and that Tab never reached, and those
// without a label (a <label>, aria-label or title).
async function keyboard(page) {
  await page.evaluate(() => {
    window.tabbed = new Set();
    document.addEventListener('focusin', (e) => window.tabbed.add(e.target));
    document.activeElement?.blur();
    window.scrollTo(0, 0);
  });
  const describe = () => page.evaluate(() => {
    const shown = (e) => e.getClientRects().length > 0 && !e.closest('details:not([open]) > :not(summary)');
    const controls = [...document.querySelectorAll(
      'main input, main select, main button, main textarea, main a[href], main summary')]
      .filter((e) => shown(e) && !e.disabled);
    const name = (e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''} "${(e.textContent || e.value || '').trim().slice(0, 30)}"`;
    return {
      controls: controls.length,
      // Every tab stop of the document (the nav's links and the scrolling regions too): the
      // walk's budget.
      stops: document.querySelectorAll(
        'a[href], button, input, select, textarea, summary, [tabindex="0"]').length,
      missed: controls.filter((e) => !window.tabbed.has(e)).map(name),
      unlabelled: controls.filter((e) => ['INPUT', 'SELECT', 'TEXTAREA'].includes(e.tagName)
        && !(e.labels?.length || e.getAttribute('aria-label') || e.title)).map(name),
    };
  });
  let seen = await describe();
  for (let k = 0; k < 2 * seen.stops + 20 && seen.missed.length > 0; k += 1) {
    await page.keyboard.press('Tab');
    if (k % 10 === 9) seen = await describe();
  }
  return describe();
}

// The conformal selector's value and the target its chart's caption names.
const conformalShown = (page) => page.evaluate(() => ({
  selected: document.querySelector('#conformal-target')?.selectedOptions[0]?.textContent ?? null,
  caption: [...document.querySelectorAll('#judge figcaption')]
    .map((f) => f.textContent).find((t) => t.includes('split-conformal')) ?? null,
}));

const out = { widths: {}, pageErrors: [], keyboard: {} };
try {
  for (const width of [1280, 390]) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    watchPage(page, out.pageErrors);
    const seen = { pageWidths: {} };

    await page.goto(url);
    await page.waitForSelector('#job-leaderboard', { timeout: 120000 });
    seen.jobs = await page.$$eval('section.job h2', (hs) => hs.map((h) => h.textContent));
    seen.pageWidths.home = await widthOf(page);
    await page.screenshot({ path: `${screenshots}/home-${width}.png`, fullPage: true });
    if (width === 1280) {
      // Keyboard only: the first Tab stop skips to the content; Tab reaches the leaderboard's
      // example link and Enter follows it to a finished leaderboard.
      await page.keyboard.press('Tab');
      seen.firstTabStop = await page.evaluate(() => document.activeElement?.textContent ?? null);
      seen.keyboardReachedExample = false;
      for (let k = 0; k < 40 && !seen.keyboardReachedExample; k += 1) {
        await page.keyboard.press('Tab');
        seen.keyboardReachedExample = await page.evaluate(() => document.activeElement?.id === 'try-leaderboard');
      }
      await page.keyboard.press('Enter');
      await page.waitForURL('**/leaderboard?example');
      seen.keyboardRows = (await leaderboardTable(page)).length;
    }

    seen.pageWidths.leaderboard = await walk(page, width, 'leaderboard', async () => {
      seen.leaderboard = {
        rows: await leaderboardTable(page),
        reading: await page.textContent('#leaderboard-reading'),
        summary: await page.textContent('#leaderboard .summary'),
      };
    });
    if (width === 1280) {
      // A new rounds value refits the file on screen.
      await page.fill('#rounds', '200');
      await page.dispatchEvent('#rounds', 'change');
      await page.waitForFunction(
        () => document.querySelector('#leaderboard .summary')?.textContent.includes('200 rounds'),
        null, { timeout: 120000 });
      seen.leaderboard.rounds200 = await leaderboardTable(page);
    }

    seen.pageWidths.compare = await walk(page, width, 'compare', async () => {
      await page.waitForSelector('#compare-reading', { timeout: 180000 });
      seen.compare = {
        reading: await page.textContent('#compare-reading'),
        differences: await page.$$eval('table.compare-differences tbody tr',
          (trs) => trs.map((tr) => ({ ...tr.dataset }))),
        slices: await page.$$eval('table.compare-slices', (ts) => ts.map((t) => ({ ...t.dataset }))),
      };
    });

    seen.pageWidths.judge = await walk(page, width, 'judge', async () => {
      await page.waitForSelector('#held-out tbody tr', { timeout: 180000 });
      seen.judge = {
        heldOut: await rowsOf(page, '#held-out'),
        reading: await page.textContent('#study-reading'),
        conformal: [],
      };
      // The selector and the chart under it agree, whichever target is picked …
      const targets = await page.$$eval('#conformal-target option', (os) => os.map((o) => o.value));
      seen.judge.conformal.push(await conformalShown(page));
      for (const target of targets) {
        await page.selectOption('#conformal-target', target);
        seen.judge.conformal.push(await conformalShown(page));
      }
      // … and after a second comparison that started from a picked target.
      await page.selectOption('#conformal-target', targets[0]);
      // (The page keeps the report's elements and updates them in place: the comparison is
      // over once its progress line has come and gone. On a fast machine the line can come and
      // go between two polls, so an observer set before the click records that it came.)
      await page.evaluate(() => {
        window.studyBusySeen = false;
        new MutationObserver((records) => {
          if (records.some((r) => [...r.addedNodes].some((n) => n.classList?.contains('busy')))) {
            window.studyBusySeen = true;
          }
        }).observe(document.querySelector('#judge'), { childList: true, subtree: true });
      });
      await page.click('#run-study');
      await page.waitForFunction(
        () => window.studyBusySeen && !document.querySelector('#judge .busy'),
        null, { timeout: 180000 });
      seen.judge.conformal.push(await conformalShown(page));
    });

    seen.pageWidths.reliability = await walk(page, width, 'reliability', async () => {
      await page.waitForSelector('#rel-judges-table tbody tr[data-rater]', { timeout: 180000 });
      seen.reliability = {
        alpha: await page.$eval('#rel-alpha', (p) => ({ ...p.dataset })),
        judges: await page.$$eval('#rel-judges-table tbody tr[data-rater]', (trs) => trs.map((tr) => ({ ...tr.dataset }))),
        columns: await page.$$eval('#rel-item, #rel-rater, #rel-score', (is) => is.map((i) => i.value)),
        reading: await page.textContent('#rel-reading'),
      };
      if (width === 1280) {
        // A new setting under a report on screen: the page says the report is stale until
        // Compute runs again.
        await page.fill('#rel-rounds', '50');
        await page.dispatchEvent('#rel-rounds', 'change');
        seen.reliability.staleShown = await page.isVisible('#rel-stale');
        await page.click('#rel-run');
        await page.waitForFunction(
          () => document.querySelector('#rel-summary')?.textContent.includes('bootstrap: 50 rounds'),
          null, { timeout: 180000 });
        seen.reliability.staleAfterCompute = await page.isVisible('#rel-stale');
        seen.reliability.summaryAfter = await page.textContent('#rel-summary');
      }
    });

    seen.pageWidths.calibrate = await walk(page, width, 'calibrate', async () => {
      await page.waitForFunction(
        () => !document.querySelector('#calibrate .busy')
          && (document.querySelector('#cal-error') || document.querySelector('#cal-summary')),
        null, { timeout: 180000 });
      seen.calibrate = {
        error: await page.evaluate(() => document.querySelector('#cal-error')?.textContent ?? null),
        head: await page.$eval('#cal-head', (s) => s.value),
        gamma: await page.getAttribute('#cal-summary', 'data-gamma'),
        regression: await rowsOf(page, '#cal-regression'),
        classification: await rowsOf(page, '#cal-classification'),
        reading: await page.textContent('#cal-reading'),
      };
    });

    seen.pageWidths.programs = await walk(page, width, 'programs', async () => {
      await page.waitForFunction(
        () => !document.querySelector('#programs .busy')
          && (document.querySelector('#prog-error') || document.querySelector('#prog-summary')),
        null, { timeout: 300000 });
      seen.programs = {
        error: await page.evaluate(() => document.querySelector('#prog-error')?.textContent ?? null),
        programs: await rowsOf(page, '#prog-table'),
        aggregates: await rowsOf(page, '#prog-aggregates'),
        reading: await page.textContent('#prog-reading'),
      };
    });

    seen.pageWidths.runs = await walk(page, width, 'runs', async () => {
      await page.waitForFunction(
        () => document.querySelector('#runs-items-input')?.files.length === 1
          && document.querySelector('#runs-judges'),
        null, { timeout: 120000 });
      seen.runs = {
        file: await page.$eval('#runs-items-input', (i) => i.files[0].name),
        judges: await page.$eval('#runs-judges', (p) => ({ ...p.dataset })),
      };
    });

    out.widths[width] = seen;
    await page.close();
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
