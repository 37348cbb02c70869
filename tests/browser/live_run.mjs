// A judge run on the session page, live, in headless Chromium.
// Usage: node live_run.mjs OWNER_URL SHARE_URL
// OWNER_URL is the session's owner link (`/s/<id>#owner=TOKEN`): the page keeps the token and
// shows the owner's forms. Starts the run on the session's items dataset, notes each count of
// stored judgments the page shows, reloads once mid-run, and waits for the end (and the
// session's count of finished runs, read again when the run ended) and for the running
// leaderboard to cover every judgment; reads the progress line, the judgments table and
// the leaderboard; then a fresh context opens the share link. Prints one JSON object; assertions live in tests/live_runs.rs.
import { launchChromium, openPage } from './chromium.mjs';

const [ownerUrl, shareUrl] = process.argv.slice(2);
const browser = await launchChromium();
const statusOf = (page) => page.$eval('.run-status', (p) => ({
  judged: Number(p.dataset.judged), total: Number(p.dataset.total),
  finished: p.dataset.finished === 'true', text: p.textContent,
  unparsed: Number(p.dataset.unparsed), tokensPerSecond: Number(p.dataset.tokensPerSecond),
  stream: p.closest('.run')?.dataset.stream,
}));
const boardOf = async (page, judgments) => {
  await page.waitForFunction((n) => document.querySelector('.run-board')?.dataset.battles === String(n),
    judgments, { timeout: 180000 });
  return page.$$eval('.run-board tbody tr', (rows) => rows.map((r) => ({
    model: r.dataset.model, elo: Number(r.dataset.elo), se: Number(r.dataset.se),
  })));
};
try {
  const { page, pageErrors } = await openPage(browser, ownerUrl);
  await page.waitForSelector('#start-run', { timeout: 120000 });
  const addressAfterOwnerLink = page.url();
  // The worker has the local model: the form offers the run. Short answers keep it quick.
  const unavailable = await page.isVisible('#run-unavailable');
  await page.fill('#run-tokens', '16');
  await page.dispatchEvent('#run-tokens', 'change');
  await page.click('#start-run');
  await page.waitForSelector('.run-status', { timeout: 180000 });
  const seen = [];
  let reloadedAt = null;
  // Every 50 ms for up to 5 minutes: a fast machine judges an item in well under a second, and
  // the test needs to see the run between its first and its last judgment.
  for (let k = 0; k < 6000; k += 1) {
    const s = await statusOf(page).catch(() => null);
    if (s) {
      if (seen[seen.length - 1] !== s.judged) seen.push(s.judged);
      if (s.finished) break;
      if (reloadedAt === null && s.judged >= 1 && s.judged < s.total) {
        reloadedAt = s.judged;
        await page.reload();
        await page.waitForSelector('.run-status', { timeout: 180000 });
      }
    }
    await page.waitForTimeout(50);
  }
  // The run's end brings its record: the page reads the session again (once) and watches the
  // finished run from its first event.
  await page.waitForFunction(() => document.querySelector('#runs-finished')?.dataset.count === '1'
    && document.querySelector('.run-status')?.dataset.finished === 'true', null, { timeout: 180000 });
  const owner = await statusOf(page);
  const board = await boardOf(page, owner.total);
  const rows = await page.$$eval('.run-judgments tbody tr', (trs) => trs.map((tr) => ({
    item: tr.cells[0].textContent, order: tr.cells[1].textContent,
    probabilities: tr.querySelector('.run-probs').textContent,
    rationale: tr.querySelector('.run-rationale').textContent,
  })));
  const visitor = await openPage(browser, shareUrl);
  await visitor.page.waitForFunction(() => document.querySelector('.run-status')?.dataset.finished === 'true',
    null, { timeout: 180000 });
  const visitorStatus = await statusOf(visitor.page);
  const visitorBoard = await boardOf(visitor.page, visitorStatus.total);
  const visitorCanStart = await visitor.page.isVisible('#start-run');
  console.log(JSON.stringify({
    pageErrors: [...pageErrors, ...visitor.pageErrors], addressAfterOwnerLink, seen, reloadedAt,
    owner, board, rows, visitor: visitorStatus, visitorBoard, visitorCanStart, unavailable,
  }));
} finally {
  await browser.close();
}
