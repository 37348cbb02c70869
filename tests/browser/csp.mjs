// The app under the server's Content-Security-Policy, in headless Chromium (playwright-core).
// Usage: node csp.mjs URL BATTLES_CSV HOSTILE_SHARE_URL
// 1. The detector works: on one page, an injected inline script, a string `eval`, a Blob worker
//    and a fetch to another origin are each refused, and each refusal is caught by the same
//    watcher every driver uses (`watchPage`).
// 2. A program of the sandbox that tries to reach the network with a dynamic `import()` (which
//    no deleted global can stop) is refused: its worker's own policy allows no network; the
//    same program still compiles and scores (that policy allows `eval`). Requests made by
//    workers are seen (the statistics worker's WASM is among the finished ones).
// 3. On a second page, uploading BATTLES_CSV shows the leaderboard with every interval, with
//    no page error and no refusal.
// 4. A visitor opens HOSTILE_SHARE_URL, a saved leaderboard whose model names are HTML and
//    script: the names are shown as text, no element carries an event-handler attribute, and
//    nothing ran (nor was refused: an injected handler would be).
// Prints one JSON object; assertions live in tests/serving.rs.
import { launchChromium, leaderboardTable, openPage, watchPage } from './chromium.mjs';

const [url, battles, hostile] = process.argv.slice(2);
const browser = await launchChromium();
try {
  const probe = await browser.newPage();
  const refusals = [];
  watchPage(probe, refusals);
  const requests = [];
  probe.on('requestfinished', (request) => requests.push(new URL(request.url()).pathname));
  await probe.goto(new URL('leaderboard', url).href);
  await probe.waitForSelector('#csv-input', { timeout: 120000 });
  const attempts = await probe.evaluate(async () => {
    const script = document.createElement('script');
    script.textContent = 'window.injected = true;';
    document.head.appendChild(script);
    // A string run later, outside this evaluation (which DevTools exempts from the policy).
    setTimeout('window.evalRan = true;', 0);
    const blobWorker = new Worker(URL.createObjectURL(new Blob(['postMessage(1)'], { type: 'text/javascript' })));
    let blobWorkerRan = false;
    blobWorker.onmessage = () => { blobWorkerRan = true; };
    let otherOrigin = 'reached';
    try { await fetch('http://127.0.0.2:9/'); } catch (e) { otherOrigin = 'refused'; }
    await new Promise((resolve) => setTimeout(resolve, 500));
    return {
      injected: window.injected === true, evalRan: window.evalRan === true, blobWorkerRan,
      otherOrigin,
    };
  });
  const program = await probe.evaluate(() => window.tribunalRunPrograms(
    JSON.stringify([{
      name: 'leaky',
      code: "function judgingFunction(q, r) { import('/leak-marker.js?' + r).catch(() => {}); return r.length; }",
    }]),
    JSON.stringify([['q', 'abc'], ['q', 'hello']]),
    2000,
  ));
  await probe.waitForTimeout(1000);

  const { page, pageErrors } = await openPage(browser, new URL('leaderboard', url).href);
  await page.setInputFiles('#csv-input', battles);
  await page.waitForFunction(
    () => !document.querySelector('#bootstrap-progress')
      && document.querySelectorAll('#leaderboard td[data-lower]').length > 0,
    null, { timeout: 120000 });
  const intervals = await page.$$eval('#leaderboard td[data-lower]', (tds) => tds.length);

  const visitor = await openPage(browser, hostile);
  pageErrors.push(...visitor.pageErrors);
  const hostileTable = await leaderboardTable(visitor.page);
  await visitor.page.waitForTimeout(500);
  const injected = await visitor.page.evaluate(() => ({
    ran: window.xss !== undefined,
    handlers: [...document.querySelectorAll('*')]
      .filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
  }));
  const shownNames = hostileTable.map((row) => row.cells[1] ?? '');
  console.log(JSON.stringify({
    attempts, refusals, program: JSON.parse(program), requests, intervals,
    hostile: { models: hostileTable.map((row) => row.model), shownNames, ...injected }, pageErrors,
  }));
} finally {
  await browser.close();
}
