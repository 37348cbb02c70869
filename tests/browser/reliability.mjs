// Drives the Reliability page of the Tribunal app in headless Chromium (Debian's
// /usr/bin/chromium) with playwright-core.
// Usage: node reliability.mjs URL CROWD_CSV JUDGE_CSV JUDGE_CSV BAD_CSV SCREENSHOT_PNG
//   IRT_JUDGE_CSV IRT_HUMAN_CSV SLICE_CROWD_CSV SLICE_JUDGE_CSV NUMERIC_RATINGS_CSV
// Prints one JSON object: what the page showed. Assertions live in tests/reliability_browser.rs.
import { launchChromium, openPage } from './chromium.mjs';

const [url, crowd, judgeA, judgeB, bad, screenshot, irtJudge, irtHuman, sliceCrowd, sliceJudge, numeric] = process.argv.slice(2);
const browser = await launchChromium();
try {
  const { page, pageErrors } = await openPage(browser, url);
  await page.waitForSelector('#rel-run', { timeout: 120000 });

  // LLMFAO's crowd votes: id,worker,winner on the nominal scale.
  for (const [id, value] of [['#rel-item', 'id'], ['#rel-rater', 'worker'], ['#rel-score', 'winner']]) {
    await page.fill(id, value);
    await page.dispatchEvent(id, 'change');
  }
  await page.selectOption('#rel-scale', 'nominal');

  const shown = async () => ({
    alpha: await page.$eval('#rel-alpha', (p) => ({ alpha: p.dataset.alpha, lower: p.dataset.lower, upper: p.dataset.upper, text: p.textContent })),
    judges: await page.$$eval('#rel-judges-table tbody tr[data-rater]', (trs) => trs.map((tr) => ({
      rater: tr.dataset.rater, kappa: tr.dataset.kappa, lower: tr.dataset.lower, upper: tr.dataset.upper,
      agreement: tr.dataset.agreement, band: tr.children[5].textContent,
      confusion: [...tr.querySelectorAll('table.confusion tbody tr')].map((r) => [...r.querySelectorAll('td')].map((td) => Number(td.textContent))),
    }))),
    tied: await page.$eval('#rel-majority', (p) => p.dataset.tied),
    warnings: await page.$$eval('#reliability .warning', (ps) => ps.map((p) => p.textContent)),
  });

  await page.setInputFiles('#rel-input', crowd);
  await page.setInputFiles('#rel-judges', [judgeA, judgeB]);
  await page.click('#rel-run');
  await page.waitForSelector('#rel-judges-table tbody tr[data-rater]', { timeout: 120000 });
  const before = await shown();
  const hasPlot = await page.isVisible('#reliability figure.chart svg');
  await page.screenshot({ path: screenshot, fullPage: true });

  // A malformed ratings file: a located error, and the previous report stays.
  await page.setInputFiles('#rel-input', bad);
  await page.click('#rel-run');
  await page.waitForSelector('#rel-error', { timeout: 120000 });
  const errorText = await page.textContent('#rel-error');
  const after = await shown();

  // A judge under prompt variants with human ratings of the same items: the IRT table.
  await page.goto(url);
  await page.waitForSelector('#rel-run', { timeout: 120000 });
  await page.setInputFiles('#rel-input', irtJudge);
  await page.setInputFiles('#rel-human', irtHuman);
  await page.click('#rel-run');
  await page.waitForSelector('#irt-table tbody tr[data-cv]', { timeout: 120000 });
  const irt = await page.$$eval('#irt-table tbody tr', (trs) => trs.map((tr) => ({
    rater: tr.dataset.rater, criterion: tr.dataset.criterion, cv: tr.dataset.cv, rho: tr.dataset.rho,
    thetaRatio: tr.dataset.thetaRatio, dw: tr.dataset.dw, ok: tr.dataset.ok, highlighted: tr.classList.contains('ok'),
  })));

  const fig1 = await page.$$eval('.irt-fig1', (divs) => divs.map((d) => ({
    rater: d.dataset.rater,
    judgePoints: d.querySelectorAll('circle.s0').length,
    humanPoints: d.querySelectorAll('circle.s1').length,
    caption: d.querySelector('figcaption')?.textContent,
  })));

  // Slices: a crowd file with a topic column and a judge, nominal scale.
  await page.goto(url);
  await page.waitForSelector('#rel-run', { timeout: 120000 });
  await page.selectOption('#rel-scale', 'nominal');
  await page.fill('#rel-slice', 'topic');
  await page.dispatchEvent('#rel-slice', 'change');
  await page.setInputFiles('#rel-input', sliceCrowd);
  await page.setInputFiles('#rel-judges', [sliceJudge]);
  await page.click('#rel-run');
  await page.waitForSelector('#rel-slices tbody tr', { timeout: 120000 });
  const slices = await page.$$eval('#rel-slices tbody tr', (trs) => trs.map((tr) => ({
    ...tr.dataset, flagged: tr.classList.contains('flagged'),
  })));

  // A rater pair on the numeric scale with α at the ordinal level.
  await page.goto(url);
  await page.waitForSelector('#rel-run', { timeout: 120000 });
  await page.fill('#rel-pairs', 'judge,alice');
  await page.dispatchEvent('#rel-pairs', 'change');
  await page.selectOption('#rel-level', 'ordinal');
  await page.setInputFiles('#rel-input', numeric);
  await page.click('#rel-run');
  await page.waitForSelector('#rel-pairs-table tbody tr', { timeout: 120000 });
  const pairs = await page.$$eval('#rel-pairs-table tbody tr', (trs) => trs.map((tr) => ({ ...tr.dataset })));
  const ordinal = await page.$eval('#rel-alpha', (p) => ({ alpha: p.dataset.alpha, lower: p.dataset.lower, upper: p.dataset.upper, text: p.textContent }));

  // Choosing LLMFAO's crowd file on a fresh page: the columns are picked from its header and
  // its first rows are shown.
  await page.goto(url);
  await page.waitForSelector('#rel-run', { timeout: 120000 });
  await page.setInputFiles('#rel-input', crowd);
  await page.waitForSelector('#rel-preview tbody tr', { timeout: 120000 });
  const guessed = {
    columns: await page.$$eval('#rel-item, #rel-rater, #rel-score', (is) => is.map((i) => i.value)),
    offered: await page.$$eval('#rel-header option', (os) => os.map((o) => o.value)),
    previewRows: await page.$$eval('#rel-preview tbody tr', (trs) => trs.length),
  };

  console.log(JSON.stringify({ before, hasPlot, errorText, after, irt, fig1, slices, pairs, ordinal, guessed, pageErrors }));
} finally {
  await browser.close();
}
