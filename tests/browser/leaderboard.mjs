// Drives the Tribunal app in headless Chromium (Debian's /usr/bin/chromium) with playwright-core.
// Usage: node leaderboard.mjs URL CROWD_CSV JUDGE_CSV SCORED_CSV BAD_CSV LATIN1_CSV SCREENSHOT_PNG
//        SEPARATED_CSV THIN_JUDGE_CSV CRLF_BAD_CSV
// URL is the app's root: the driver opens /live, /leaderboard and /judge.
// Prints one JSON object: what the page showed. Assertions live in tests/browser.rs.
import { launchChromium, openPage } from './chromium.mjs';

const [url, crowd, judge, scored, bad, latin1, screenshot, separated, thinJudge, crlfBad] = process.argv.slice(2);
const browser = await launchChromium();
try {
  // The Live page, the Leaderboard page and the Judge-vs-humans page, each at its route.
  const { page: live, pageErrors } = await openPage(browser, new URL('live', url).href);
  await live.waitForFunction(
    () => document.querySelector('#live-status')?.textContent.includes('demo finished'),
    null, { timeout: 120000 });
  const liveStatus = await live.textContent('#live-status');
  const liveCount = Number(await live.textContent('#live-count'));
  const { page, pageErrors: boardErrors } = await openPage(browser, new URL('leaderboard', url).href);
  const { page: study, pageErrors: studyErrors } = await openPage(browser, new URL('judge', url).href);

  const rowsOf = () => page.$$eval('#leaderboard table.ratings tbody tr', (trs) => trs.map((tr) => {
    const ci = tr.querySelector('td[data-lower]');
    return { model: tr.dataset.model, elo: tr.dataset.elo, lower: ci?.dataset.lower ?? null, upper: ci?.dataset.upper ?? null };
  }));
  // The point fit first, then the bootstrap's progress, then intervals on every row. An observer
  // records whether the rows were ever on the page while the progress bar was (a fast machine
  // finishes the bootstrap before a later look would catch the bar).
  await page.evaluate(() => {
    window.sawProgress = false;
    new MutationObserver(() => {
      if (document.querySelector('#bootstrap-progress')
        && document.querySelector('#leaderboard table.ratings tbody tr')) {
        window.sawProgress = true;
      }
    }).observe(document.body, { childList: true, subtree: true });
  });
  await page.setInputFiles('#csv-input', crowd);
  await page.waitForSelector('#leaderboard table.ratings tbody tr', { timeout: 120000 });
  await page.waitForFunction(
    () => !document.querySelector('#bootstrap-progress')
      && document.querySelectorAll('#leaderboard td[data-lower]').length > 0,
    null, { timeout: 120000 });
  const rows = await rowsOf();
  const summary = await page.textContent('#leaderboard .summary');
  const sawProgress = await page.evaluate(() => window.sawProgress);

  await study.setInputFiles('#human-input', crowd);
  await study.setInputFiles('#judge-input', judge);
  await study.click('#run-study');
  await study.waitForSelector('#held-out tbody tr', { timeout: 120000 });
  const heldOut = await study.$$eval('#held-out tbody tr', (trs) => trs.map((tr) => ({ target: tr.dataset.target, mae: tr.dataset.mae })));
  const studySummary = await study.textContent('#study-summary');
  const sideBySide = await study.$$eval('#side-by-side tbody tr', (trs) => trs.length);
  await study.screenshot({ path: screenshot, fullPage: true });

  // A scored-battles file: β's MLE and the reliability diagram of σ(β·s).
  await study.setInputFiles('#scored-input', scored);
  await study.click('#run-study');
  await study.waitForFunction(
    () => [...document.querySelectorAll('#judge figcaption')].some((f) => f.textContent.includes('reliability')),
    null, { timeout: 120000 });
  const reliability = await study.$$eval('#judge figcaption', (fs) => fs.map((f) => f.textContent).find((t) => t.includes('reliability')));
  const beta = await study.$$eval('#judge p', (ps) => ps.map((p) => p.textContent).find((t) => t.startsWith('β =')));

  await page.setInputFiles('#csv-input', bad);
  await page.waitForSelector('#error', { timeout: 120000 });
  const errorText = await page.textContent('#error');
  const rowsAfterError = await rowsOf();
  await page.setInputFiles('#csv-input', latin1);
  await page.waitForFunction(() => document.querySelector('#error')?.textContent.includes('latin1.csv'),
    null, { timeout: 120000 });
  const latin1Error = await page.textContent('#error');
  // Windows line ends: the error names the line an editor shows.
  await page.setInputFiles('#csv-input', crlfBad);
  await page.waitForFunction(() => document.querySelector('#error')?.textContent.includes('crlf-bad.csv'),
    null, { timeout: 120000 });
  const crlfError = await page.textContent('#error');

  // Anchoring the second model at Elo 1000 refits the leaderboard on screen (not the bad file).
  const anchorModel = rows[1].model;
  await page.fill('#anchor-elo', '1000');
  await page.dispatchEvent('#anchor-elo', 'change');
  await page.fill('#anchor-model', anchorModel);
  await page.dispatchEvent('#anchor-model', 'change');
  await page.waitForFunction(
    (m) => !document.querySelector('#bootstrap-progress')
      && document.querySelector(`#leaderboard tr[data-model="${m}"]`)?.dataset.elo === '1000'
      && document.querySelectorAll('#leaderboard td[data-lower]').length > 0,
    anchorModel, { timeout: 120000 });
  const anchoredRows = await rowsOf();
  const anchoredSummary = await page.textContent('#leaderboard .summary');

  // A file where one model never loses: its warning beside the table, its interval open above.
  await page.fill('#anchor-model', '');
  await page.dispatchEvent('#anchor-model', 'change');
  await page.setInputFiles('#csv-input', separated);
  await page.waitForFunction(
    () => !document.querySelector('#bootstrap-progress')
      && document.querySelector('#leaderboard .summary')?.textContent.includes('separated.csv')
      && document.querySelectorAll('#leaderboard td[data-lower]').length > 0,
    null, { timeout: 120000 });
  const separatedRows = await page.$$eval('#leaderboard table.ratings tbody tr', (trs) => trs.map((tr) => ({
    model: tr.dataset.model,
    se: tr.querySelectorAll('td')[3].textContent,
    ci: tr.querySelector('td[data-lower]').textContent,
    lower: tr.querySelector('td[data-lower]').dataset.lower,
    upper: tr.querySelector('td[data-lower]').dataset.upper,
  })));
  const separatedWarnings = await page.$$eval('#leaderboard p.warning', (ps) => ps.map((p) => p.textContent));

  // A judge file covering three pairs: the study says how little matched.
  await study.setInputFiles('#scored-input', []);
  await study.setInputFiles('#judge-input', thinJudge);
  await study.click('#run-study');
  await study.waitForFunction(
    () => [...document.querySelectorAll('#judge p.study-warning')].some((p) => p.textContent.includes('most of the join failed')),
    null, { timeout: 120000 });
  const studyWarnings = await study.$$eval('#judge p.study-warning', (ps) => ps.map((p) => p.textContent));

  console.log(JSON.stringify({ liveStatus, liveCount, rows, summary, sawProgress, heldOut, studySummary, sideBySide, reliability, beta, errorText, rowsAfterError, latin1Error, crlfError, anchorModel, anchoredRows, anchoredSummary, separatedRows, separatedWarnings, studyWarnings, pageErrors: [...pageErrors, ...boardErrors, ...studyErrors] }));
} finally {
  await browser.close();
}
