// Drives saving analyses of several kinds from their pages into a session, and opening each
// saved analysis as a visitor, in headless Chromium with playwright-core.
// Usage: node saved_analyses.mjs URL CROWD_CSV GPT4_CSV RATINGS_CSV REPEATS_CSV \
//   TRAIN_SCORES_CSV TEST_SCORES_CSV TRAIN_NPY TEST_NPY IRT_JUDGE_CSV IRT_HUMAN_CSV PAIRS_CSV
// 1. Owner: a new session (its owner token stays in this context's local storage).
// 2. On the home page: a judge study (crowd vs GPT-4 joined on `id`), an agreement report (with
//    the rater pair judge,alice), an IRT table (a judge under prompt variants, with human
//    ratings), a self-consistency check, an LS calibration with its embeddings in `.npy`
//    files and a programs report with a program of the user's own (its scores computed in the
//    sandbox travel with the analysis), each saved to the session with its page's "Save to session"
//    button, which opens the saved analysis.
// 3. Visitor (a fresh context, no owner token): opens each saved analysis, waits for the
//    recomputed report and reads it from the page's download link; tries to save an analysis
//    into the session with the link only.
// Prints one JSON object: the analyses' URLs and the reports the visitor's browser computed.
import { launchChromium, openPage, watchPage } from './chromium.mjs';

const [url, crowd, gpt4, ratings, repeats, trainScores, testScores, trainNpy, testNpy, irtJudge,
  irtHuman, pairs] = process.argv.slice(2);
const browser = await launchChromium();
const pageErrors = [];

// Clicks `save` once `save` is shown, and returns the saved analysis's URL.
async function saveFrom(page, save) {
  await page.waitForSelector(save, { state: 'visible', timeout: 120000 });
  await page.click(save);
  const saved = /\/s\/[0-9a-f]{32}\/a\/[0-9a-f]+$/;
  await page.waitForFunction(
    (error) => /\/s\/[0-9a-f]{32}\/a\/[0-9a-f]+$/.test(location.pathname) || document.querySelector(error),
    `${save}-error`, { timeout: 180000 });
  if (!saved.test(page.url())) {
    throw new Error(`${save}: ${await page.textContent(`${save}-error`)}`);
  }
  return page.url();
}

// A task page (`/judge`, `/reliability`, …), ready once its form is up.
async function task(page, path) {
  await page.goto(new URL(path, url).href);
  await page.waitForSelector(`main section.card`, { timeout: 120000 });
}

// The report the analysis page recomputed, read from its download link.
async function reportAt(page, analysisUrl) {
  await page.goto(analysisUrl);
  await page.waitForSelector('#analysis-download, #analysis-error', { timeout: 120000 });
  const error = await page.$('#analysis-error');
  if (error) return { error: await error.textContent() };
  const href = await page.getAttribute('#analysis-download', 'href');
  return JSON.parse(decodeURIComponent(href.slice(href.indexOf(',') + 1)));
}

try {
  const opened = await openPage(browser, url);
  const owner = opened.page;
  watchPage(owner, pageErrors);
  pageErrors.push(...opened.pageErrors);
  await owner.waitForSelector('#new-session', { timeout: 120000 });
  await owner.fill('#session-title', 'saved analyses');
  await owner.dispatchEvent('#session-title', 'change');
  await owner.click('#new-session');
  await owner.waitForURL(/\/s\/[0-9a-f]{32}$/, { timeout: 120000 });
  const sessionUrl = owner.url();

  await task(owner, 'judge');
  await owner.setInputFiles('#human-input', crowd);
  await owner.setInputFiles('#judge-input', gpt4);
  await owner.click('#run-study');
  const studyUrl = await saveFrom(owner, '#study-save');

  await task(owner, 'reliability');
  await owner.setInputFiles('#rel-input', ratings);
  await owner.fill('#rel-pairs', 'judge,alice');
  await owner.dispatchEvent('#rel-pairs', 'change');
  await owner.click('#rel-run');
  const agreementUrl = await saveFrom(owner, '#rel-save');

  await task(owner, 'reliability');
  await owner.setInputFiles('#rel-input', irtJudge);
  await owner.setInputFiles('#rel-human', irtHuman);
  await owner.click('#rel-run');
  const irtUrl = await saveFrom(owner, '#irt-save');

  await task(owner, 'reliability');
  await owner.selectOption('#runs-check', 'consistency');
  await owner.setInputFiles('#runs-input', repeats);
  await owner.click('#runs-run');
  const consistencyUrl = await saveFrom(owner, '#runs-save');

  await task(owner, 'calibrate');
  await owner.setInputFiles('#cal-train-emb', trainNpy);
  await owner.setInputFiles('#cal-test-emb', testNpy);
  await owner.setInputFiles('#cal-train', trainScores);
  await owner.setInputFiles('#cal-test', testScores);
  await owner.click('#cal-run');
  const calibrationUrl = await saveFrom(owner, '#cal-save');

  await task(owner, 'programs');
  await owner.setInputFiles('#prog-pairs', pairs);
  await owner.fill('#prog-name', 'length_ratio');
  await owner.dispatchEvent('#prog-name', 'change');
  await owner.fill('#prog-code',
    'function judgingFunction(query, response) { return response.length / (1 + query.length); }');
  await owner.click('#prog-add');
  await owner.waitForSelector('#prog-user li[data-name="length_ratio"]', { timeout: 120000 });
  await owner.click('#prog-run');
  const programsUrl = await saveFrom(owner, '#prog-save');
  await owner.goto(sessionUrl);
  await owner.waitForSelector('#analyses li', { timeout: 120000 });
  const kinds = await owner.$$eval('#analyses li', (lis) => lis.map((li) => li.dataset.kind));

  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const visitor = await context.newPage();
  watchPage(visitor, pageErrors);
  const reports = {
    study: await reportAt(visitor, studyUrl),
    agreement: await reportAt(visitor, agreementUrl),
    irt: await reportAt(visitor, irtUrl),
    consistency: await reportAt(visitor, consistencyUrl),
    calibration: await reportAt(visitor, calibrationUrl),
    programs: await reportAt(visitor, programsUrl),
  };
  const sessionId = sessionUrl.split('/s/')[1];
  const visitorWrite = await visitor.evaluate(async (id) => {
    const session = await (await fetch(`/api/sessions/${id}`)).json();
    const r = await fetch(`/api/sessions/${id}/analyses`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'x', spec: session.analyses[0].spec }),
    });
    return r.status;
  }, sessionId);

  console.log(JSON.stringify({
    pageErrors, sessionUrl, studyUrl, agreementUrl, irtUrl, consistencyUrl, calibrationUrl,
    programsUrl, kinds, reports,
    visitorWrite,
  }));
} finally {
  await browser.close();
}
