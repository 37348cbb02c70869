// Drives sessions and sharing in headless Chromium with playwright-core.
// Usage: node sessions.mjs URL_A URL_B CROWD_CSV SMALL_CSV ARCHIVE_OUT ANCHOR_MODEL
// 1. Owner (one browser context): new session on worker A, upload the crowd battles, save a
//    leaderboard analysis from the session page's form (200 rounds, seed 7, clustered by
//    prompt, anchored at ANCHOR_MODEL = 1000) and read its table.
// 2. Visitor (a fresh context: no owner token): open the analysis link, read the table; try to
//    write with the share link only.
// 3. Fragment sharing: fit a small CSV on the home page, copy its link, open it in a fresh
//    context while logging every request; the full crowd file (498 kB) fits a link too.
// 4. Export from A (the page's export link), import on worker B through B's home page, open the
//    imported analysis in a fresh context.
// Prints one JSON object: what the pages showed. Assertions live in tests/sessions_browser.rs.
import { writeFileSync } from 'node:fs';
import { launchChromium, leaderboardTable, openPage, watchPage } from './chromium.mjs';

const [urlA, urlB, crowd, small, archiveOut, anchorModel] = process.argv.slice(2);
const browser = await launchChromium();
const pageErrors = [];
const open = async (url) => {
  const opened = await openPage(browser, url);
  watchPage(opened.page, pageErrors);
  pageErrors.push(...opened.pageErrors);
  return opened.page;
};
const tableOf = leaderboardTable;
const setNumber = async (page, selector, value) => {
  await page.fill(selector, String(value));
  await page.dispatchEvent(selector, 'change');
};

try {
  // 1. The owner.
  const owner = await open(urlA);
  await pageReady(owner);
  await owner.fill('#session-title', 'LLMFAO crowd');
  await owner.dispatchEvent('#session-title', 'change');
  await owner.click('#new-session');
  await owner.waitForURL(/\/s\/[0-9a-f]{32}$/, { timeout: 120000 });
  const sessionUrl = owner.url();
  await owner.waitForSelector('#dataset-input', { timeout: 120000 });
  await owner.setInputFiles('#dataset-input', crowd);
  await owner.click('#add-dataset');
  await owner.waitForSelector('#datasets tbody tr', { timeout: 120000 });
  const datasets = await owner.$$eval('#datasets tbody tr', (trs) => trs.map((tr) => tr.dataset.hash));
  // The new-analysis form starts on a leaderboard with its default settings; edit them as
  // text: 200 rounds, seed 7, prompts resampled as clusters, one model's Elo fixed.
  const settings = JSON.parse(await owner.inputValue('#analysis-settings'));
  settings.bootstrap.rounds = 200;
  settings.bootstrap.seed = 7;
  settings.cluster = 'prompt';
  settings.anchor = { model: anchorModel, elo: 1000 };
  await owner.fill('#analysis-settings', JSON.stringify(settings, null, 2));
  await owner.click('#save-analysis');
  await owner.waitForURL(/\/s\/[0-9a-f]{32}\/a\/[0-9a-f]+$/, { timeout: 120000 });
  const analysisUrl = owner.url();
  const ownerTable = await tableOf(owner);
  const ownerSummary = await owner.textContent('#leaderboard .summary');

  // 2. A visitor with the share link only.
  const visitor = await open(analysisUrl);
  const visitorTable = await tableOf(visitor);
  const visitorSummary = await visitor.textContent('#leaderboard .summary');
  const sessionId = sessionUrl.split('/s/')[1];
  const writeStatus = await visitor.evaluate(async (id) => {
    const r = await fetch(`/api/sessions/${id}/datasets?kind=battles&name=x.csv`,
      { method: 'POST', body: 'model_a,model_b,winner\nA,B,model_a\n' });
    return r.status;
  }, sessionId);
  const analysisWriteStatus = await visitor.evaluate(async (id) => {
    const r = await fetch(`/api/sessions/${id}/analyses`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'x', spec: { statistic: 'leaderboard', dataset: 'sha256:00', bootstrap: { rounds: 2, seed: 0, level: 0.95 }, anchor: null } }),
    });
    return r.status;
  }, sessionId);
  await visitor.goto(sessionUrl);
  await visitor.waitForSelector('#datasets tbody tr', { timeout: 120000 });
  const visitorSeesUpload = await visitor.isVisible('#dataset-input');
  const visitorAnalyses = await visitor.$$eval('#analyses a', (as) => as.map((a) => a.getAttribute('href')));

  // 3. Fragment sharing from the Leaderboard page.
  await owner.goto(new URL('leaderboard', urlA).href);
  await owner.waitForSelector('#csv-input', { timeout: 120000 });
  await setNumber(owner, '#rounds', 300);
  await setNumber(owner, '#seed', 11);
  await owner.setInputFiles('#csv-input', small);
  const localTable = await tableOf(owner);
  await owner.click('#share-link');
  await owner.waitForSelector('#share-url', { timeout: 120000 });
  const shareUrl = await owner.inputValue('#share-url');
  await owner.setInputFiles('#csv-input', crowd);
  await owner.waitForFunction(
    () => document.querySelector('#leaderboard .summary')?.textContent.includes('crowd'),
    null, { timeout: 120000 });
  await owner.click('#share-link');
  await owner.waitForFunction(
    (previous) => document.querySelector('#share-url')?.value && document.querySelector('#share-url').value !== previous,
    shareUrl, { timeout: 180000 });
  const crowdLink = await owner.inputValue('#share-url');

  const requests = [];
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const shared = await context.newPage();
  watchPage(shared, pageErrors);
  shared.on('request', (r) => requests.push({ url: r.url(), method: r.method(), postData: r.postData() ?? null }));
  await shared.goto(shareUrl);
  const sharedTable = await tableOf(shared);
  const sharedNote = await shared.textContent('#shared-note');

  // 4. Export from A through the page's link, import on B through B's home page.
  await owner.goto(sessionUrl);
  await owner.waitForSelector('#export-session', { timeout: 120000 });
  const download = owner.waitForEvent('download');
  await owner.click('#export-session');
  await (await download).saveAs(archiveOut);
  const importer = await open(urlB);
  await pageReady(importer);
  await importer.setInputFiles('#import-input', archiveOut);
  await importer.click('#import-session');
  await importer.waitForURL(/\/s\/[0-9a-f]{32}$/, { timeout: 120000 });
  const importedSessionUrl = importer.url();
  await importer.waitForSelector('#analyses a', { timeout: 120000 });
  const importerOwns = await importer.isVisible('#dataset-input');
  const importedHref = await importer.getAttribute('#analyses a', 'href');
  const reader = await open(new URL(importedHref, urlB).href);
  const importedTable = await tableOf(reader);

  console.log(JSON.stringify({
    pageErrors, sessionUrl, analysisUrl, datasets, ownerTable, ownerSummary, visitorTable,
    visitorSummary, writeStatus, analysisWriteStatus, visitorSeesUpload, visitorAnalyses,
    localTable, shareUrl, crowdLink, requests, sharedTable, sharedNote, importedSessionUrl,
    importerOwns, importedHref, importedTable,
  }));
} finally {
  await browser.close();
}

async function pageReady(page) {
  await page.waitForSelector('#new-session', { timeout: 120000 });
}
