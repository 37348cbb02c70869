// Drives the Programs page of the Tribunal app in headless Chromium with playwright-core.
// Usage: node programs.mjs URL PAIRS GPT4 PROBES SMALL_PAIRS SCREENSHOT_PNG
// 1. The LLMFAO pairs with GPT-4's verdicts and the probes, built-in programs only (seed 7).
// 2. A small pairs file with five user programs — an infinite loop, a huge allocation, one that
//    throws, one that sometimes returns a string, and a good one — while the main thread is
//    probed for responsiveness.
// Prints one JSON object: what the page showed. Assertions live in tests/programs_browser.rs.
import { launchChromium, openPage } from './chromium.mjs';

const [url, pairs, gpt4, probes, small, screenshot] = process.argv.slice(2);
const browser = await launchChromium();
try {
  const { page, pageErrors } = await openPage(browser, url);
  await page.waitForSelector('#prog-run', { timeout: 30000 });
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
  };
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
  };
  console.log(JSON.stringify({ llmfao, hostile, pageErrors }));
} finally {
  await browser.close();
}
