// The owner deletes from the session page, confirming each time, in headless Chromium.
// Usage: node delete.mjs OWNER_URL SHARE_URL ANALYSIS_URL
// OWNER_URL is `/s/<id>#owner=TOKEN` of a session with one dataset read by one analysis.
// 1. A dismissed confirmation deletes nothing.
// 2. The analysis, then its dataset, are deleted (each confirmed) and leave the page's lists.
// 3. "Delete" of the session, confirmed, goes home; the share link then answers 410 and the
//    page says the session was deleted, with no share or export controls; the analysis link
//    answers 410 too.
// 4. A session that never was and a path that is no page are plain dead ends with a way out.
// Prints one JSON object; assertions live in tests/sessions_browser.rs.
import { launchChromium, openPage } from './chromium.mjs';

const [ownerUrl, shareUrl, analysisUrl] = process.argv.slice(2);
const browser = await launchChromium();
try {
  const { page, pageErrors } = await openPage(browser, ownerUrl);
  const questions = [];
  let answer = false;
  page.on('dialog', async (dialog) => {
    questions.push(dialog.message());
    await (answer ? dialog.accept() : dialog.dismiss());
  });
  const count = (selector) => page.$$eval(selector, (els) => els.length);
  await page.waitForSelector('#analyses li button.delete', { timeout: 120000 });
  const before = { analyses: await count('#analyses li'), datasets: await count('#datasets tbody tr') };

  await page.click('#analyses li button.delete');
  await page.waitForTimeout(500);
  const afterDismiss = { analyses: await count('#analyses li'), datasets: await count('#datasets tbody tr') };

  answer = true;
  await page.click('#analyses li button.delete');
  await page.waitForFunction(() => document.querySelectorAll('#analyses li').length === 0, null, { timeout: 120000 });
  await page.click('#datasets tbody tr button.delete');
  await page.waitForFunction(() => document.querySelectorAll('#datasets tbody tr').length === 0, null, { timeout: 120000 });
  const afterParts = { analyses: await count('#analyses li'), datasets: await count('#datasets tbody tr') };

  await page.click('button.delete[data-part=""]');
  await page.waitForFunction(() => location.pathname === '/', null, { timeout: 120000 });

  const visitor = await openPage(browser, 'about:blank');
  const shared = await visitor.page.goto(shareUrl);
  await visitor.page.waitForSelector('#session-error', { timeout: 120000 });
  const sessionStatus = shared.status();
  const sessionMessage = await visitor.page.textContent('#session-error');
  const sessionControlsHidden = await visitor.page.isHidden('#session-share-url');
  const analysis = await visitor.page.goto(analysisUrl);
  await visitor.page.waitForSelector('#analysis-error', { timeout: 120000 });
  const analysisMessage = await visitor.page.textContent('#analysis-error');
  const analysisShareHidden = await visitor.page.isHidden('#analysis-share-url');
  // 4. Dead ends: a session that never was says "not found" with no controls; a path that is
  //    no page says so and links the pages that exist.
  const origin = new URL(shareUrl).origin;
  await visitor.page.goto(`${origin}/s/00000000000000000000000000000000`);
  await visitor.page.waitForSelector('#session-error', { timeout: 120000 });
  const missing = {
    text: await visitor.page.textContent('#session-error'),
    controlsHidden: await visitor.page.isHidden('#session-share-url'),
    exportHidden: await visitor.page.isHidden('#export-session'),
  };
  await visitor.page.goto(`${origin}/no-such-page`);
  await visitor.page.waitForSelector('#not-found', { timeout: 120000 });
  const notFound = {
    text: await visitor.page.textContent('#not-found'),
    links: await visitor.page.$$eval('#not-found a', (as) => as.map((a) => a.getAttribute('href'))),
  };
  console.log(JSON.stringify({
    before, afterDismiss, afterParts, questions, sessionStatus, sessionMessage,
    sessionControlsHidden, analysisShareHidden, missing, notFound,
    analysisStatus: analysis.status(),
    analysisMessage,
    pageErrors: [...pageErrors, ...visitor.pageErrors],
  }));
} finally {
  await browser.close();
}
