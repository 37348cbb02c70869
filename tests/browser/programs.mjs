// Drives the Programs page of the Tribunal app in headless Chromium with playwright-core.
// Usage: node programs.mjs URL PAIRS GPT4 PROBES SMALL_PAIRS SCREENSHOT_PNG
// 1. The LLMFAO pairs with GPT-4's verdicts and the probes, built-in programs only (seed 7).
// 2. A slow user program on a small pairs file, cancelled while it runs.
// 3. The small pairs file with five user programs — an infinite loop, a huge allocation, one that
//    throws, one that sometimes returns a string, and a good one — while the main thread is
//    probed for responsiveness.
// Prints one JSON object: what the page showed. Assertions live in tests/programs_browser.rs.
import { launchChromium, openPage } from './chromium.mjs';

const [url, pairs, gpt4, probes, small, screenshot] = process.argv.slice(2);
const browser = await launchChromium();
try {
  const { page, pageErrors } = await openPage(browser, url);
  await page.waitForSelector('#prog-run', { timeout: 120000 });
  const rowsOf = (table) => page.$$eval(`${table} tbody tr`, (trs) => trs.map((tr) => ({ ...tr.dataset })));
  const routingOf = () => page.$$eval('#prog-routing tbody tr', (trs) => trs.map((tr) => ({
    signal: tr.dataset.signal,
    cells: [...tr.querySelectorAll('td[data-budget]')].map((td) => [td.dataset.budget, td.dataset.accuracy]),
  })));
  const finished = (previous) => page.waitForFunction(
    (prev) => !document.querySelector('#programs .busy')
      && (document.querySelector('#prog-error')
        || (document.querySelector('#prog-summary') && document.querySelector('#prog-summary').textContent !== prev)),
    previous, { timeout: 300000 });

  // 1. LLMFAO, built-in programs.
  await page.fill('#prog-seed', '7');
  await page.dispatchEvent('#prog-seed', 'change');
  await page.fill('#prog-budget', '0.2');
  await page.dispatchEvent('#prog-budget', 'change');
  await page.setInputFiles('#prog-pairs', pairs);
  await page.setInputFiles('#prog-llm', gpt4);
  await page.setInputFiles('#prog-probes', probes);
  await page.click('#prog-run');
  await finished(null);
  const llmfao = {
    error: await page.evaluate(() => document.querySelector('#prog-error')?.textContent ?? null),
    summary: await page.textContent('#prog-summary'),
    programs: await rowsOf('#prog-table'),
    aggregates: await rowsOf('#prog-aggregates'),
    members: await rowsOf('#prog-members'),
    committeeWarnings: await page.$$eval('.committee-warning', (ps) => ps.map((p) => p.textContent)),
    routing: await routingOf(),
    bias: await rowsOf('#prog-bias'),
    hasPlot: await page.isVisible('#programs figure svg polyline'),
    escalation: await page.$eval('#prog-escalation', (p) => ({ ...p.dataset })),
    escalatedCsv: decodeURIComponent((await page.getAttribute('#prog-escalated', 'href')).split(',').slice(1).join(',')),
  };
  await page.screenshot({ path: screenshot, fullPage: true });

  // 2. Hostile user programs on the small file.
  const add = async (name, code) => {
    await page.fill('#prog-name', name);
    await page.dispatchEvent('#prog-name', 'change');
    await page.fill('#prog-code', code);
    await page.click('#prog-add');
    // The sandbox compiles the code first; the program joins the list once it has.
    await page.waitForSelector(`#prog-user li[data-name="${name}"]`, { timeout: 120000 });
  };
  // Code that does not compile is refused at once, before any pair is scored.
  await page.fill('#prog-name', 'broken');
  await page.dispatchEvent('#prog-name', 'change');
  await page.fill('#prog-code', 'function judgingFunction(query, response) { return ) }');
  await page.click('#prog-add');
  await page.waitForSelector('#prog-error', { timeout: 120000 });
  const compileError = await page.textContent('#prog-error');
  await add('loops', 'function judgingFunction(query, response) { while (true) {} }');
  await add('allocates', 'function judgingFunction(query, response) { const b = new ArrayBuffer(2 ** 40); return b.byteLength; }');
  await add('throws', 'function judgingFunction(query, response) { throw new Error("boom"); }');
  await add('sometimes_text', 'function judgingFunction(query, response) { return response.length > 500 ? "long" : response.length; }');
  await add('fetches', 'function judgingFunction(query, response) { return typeof fetch === "function" || typeof XMLHttpRequest === "function" ? 1 : 0; }');
  await add('length', 'function judgingFunction(query, response) { return response.length; }');
  const userPrograms = await page.$$eval('#prog-user li', (lis) => lis.map((li) => li.dataset.name));
  await page.setInputFiles('#prog-llm', []);
  await page.setInputFiles('#prog-probes', []);
  await page.setInputFiles('#prog-pairs', small);

  // A slow program (100 ms a call, 300 calls before it): cancelled a second in, the run stops
  // within a call and the LLMFAO report stays.
  await add('slow', 'function judgingFunction(query, response) { const t = Date.now(); while (Date.now() - t < 100) {} return response.length; }');
  await page.click('#prog-run');
  await page.waitForSelector('#prog-cancel', { timeout: 120000 });
  await page.waitForTimeout(1000);
  const cancelledAt = Date.now();
  await page.click('#prog-cancel');
  await page.waitForSelector('#prog-error', { timeout: 120000 });
  const cancelled = {
    seconds: (Date.now() - cancelledAt) / 1000,
    error: await page.textContent('#prog-error'),
    busy: await page.isVisible('#programs .busy'),
    summary: await page.textContent('#prog-summary'),
  };
  await page.click('#prog-user li[data-name="slow"] button.remove');
  const started = Date.now();
  await page.click('#prog-run');
  // While the sandbox runs, the page must keep answering: time a few animation frames.
  const frameDelays = [];
  while (await page.$('#programs .busy')) {
    const t0 = Date.now();
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
    frameDelays.push(Date.now() - t0);
    await page.waitForTimeout(50);
  }
  await finished(llmfao.summary);
  const hostile = {
    seconds: (Date.now() - started) / 1000,
    frameDelays,
    userPrograms,
    error: await page.evaluate(() => document.querySelector('#prog-error')?.textContent ?? null),
    failures: await page.$$eval('#prog-failures tbody tr', (trs) => trs.map((tr) => ({
      ...tr.dataset,
      why: tr.children[3].textContent,
      examples: tr.children[4].textContent,
    }))),
    programs: await rowsOf('#prog-table'),
    cells: await page.$$eval('#prog-table tbody tr', (trs) => trs.map((tr) => ({
      name: tr.dataset.name, cells: [...tr.querySelectorAll('td')].map((td) => td.textContent),
    }))),
    compileError,
  };
  console.log(JSON.stringify({ llmfao, hostile, cancelled, pageErrors }));
} finally {
  await browser.close();
}
