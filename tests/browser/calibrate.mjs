// Drives the Calibrate page of the Tribunal app in headless Chromium (Debian's
// /usr/bin/chromium) with playwright-core.
// Usage: node calibrate.mjs URL LS_TRAIN LS_TEST BTL_TRAIN BAD_CSV SCREENSHOT_PNG \
//   LS_TRAIN_SCORES LS_TEST_SCORES TRAIN_NPY TEST_NPY
// Prints one JSON object: what the page showed. Assertions live in tests/calibrate_browser.rs.
import { launchChromium, openPage } from './chromium.mjs';

const [url, lsTrain, lsTest, btlTrain, bad, screenshot, lsTrainScores, lsTestScores, trainNpy, testNpy] =
  process.argv.slice(2);
const browser = await launchChromium();
try {
  const { page, pageErrors } = await openPage(browser, url);
  await page.waitForSelector('#cal-run', { timeout: 120000 });

  const rowsOf = (table) => page.$$eval(`${table} tbody tr`, (trs) => trs.map((tr) => ({ ...tr.dataset })));
  const run = async (head, train, test, previousGamma) => {
    await page.selectOption('#cal-head', head);
    await page.setInputFiles('#cal-train', train);
    await page.setInputFiles('#cal-test', test);
    await page.click('#cal-run');
    await page.waitForFunction(
      (prev) => !document.querySelector('#calibrate .busy')
        && (document.querySelector('#cal-error')
          || document.querySelector('#cal-summary')?.textContent !== prev),
      previousGamma, { timeout: 120000 });
  };

  // LS on the miscalibrated judge, seed 3.
  await page.fill('#cal-seed', '3');
  await page.dispatchEvent('#cal-seed', 'change');
  await run('ls', lsTrain, lsTest, null);
  const ls = {
    summary: await page.textContent('#cal-summary'),
    gamma: await page.getAttribute('#cal-summary', 'data-gamma'),
    regression: await rowsOf('#cal-regression'),
    model: decodeURIComponent((await page.getAttribute('#cal-download', 'href')).split(',').slice(1).join(',')),
    download: await page.getAttribute('#cal-download', 'download'),
    hasCurve: await page.isVisible('#calibrate figure svg'),
  };
  await page.screenshot({ path: screenshot, fullPage: true });

  // BTL (train = test): classification rows and both confusion matrices.
  await run('btl', btlTrain, btlTrain, ls.summary);
  const confusion = (id) => page.$$eval(`${id} tbody tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.textContent))));
  const btl = {
    summary: await page.textContent('#cal-summary'),
    classification: await rowsOf('#cal-classification'),
    base: await confusion('#cal-confusion-base'),
    head: await confusion('#cal-confusion-head'),
  };

  // A ragged training file: the located error, and the BTL report stays.
  await run('ls', bad, lsTest, btl.summary);
  const errorText = await page.textContent('#cal-error');
  const summaryAfterError = await page.textContent('#cal-summary');

  // LS again with the embeddings in .npy files and CSVs of `score,human` only.
  // (The previous error stays on screen until a run succeeds: wait for a new summary or a new
  // error text.)
  await page.setInputFiles('#cal-train-emb', trainNpy);
  await page.setInputFiles('#cal-test-emb', testNpy);
  await page.selectOption('#cal-head', 'ls');
  await page.setInputFiles('#cal-train', lsTrainScores);
  await page.setInputFiles('#cal-test', lsTestScores);
  await page.click('#cal-run');
  await page.waitForFunction(
    ([summary, error]) => !document.querySelector('#calibrate .busy')
      && (document.querySelector('#cal-summary')?.textContent !== summary
        || (document.querySelector('#cal-error')?.textContent ?? null) !== error),
    [summaryAfterError, errorText], { timeout: 120000 });
  const npy = {
    error: await page.evaluate(() => document.querySelector('#cal-error')?.textContent ?? null),
    gamma: await page.getAttribute('#cal-summary', 'data-gamma'),
    regression: await rowsOf('#cal-regression'),
  };

  console.log(JSON.stringify({ ls, btl, errorText, summaryAfterError, npy, pageErrors }));
} finally {
  await browser.close();
}
