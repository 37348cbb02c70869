// Adds other tools' files to a session through its page's "Add data" form, as the owner, in
// headless Chromium with playwright-core.
// Usage: node convert_upload.mjs OWNER_URL FILE[=BASELINE] ...
// For each file: picks it, waits for the page to say which tool wrote it, gives the baseline
// when one follows `=`, uploads, and waits for the session's datasets table to grow.
// Prints one JSON object: { pageErrors, uploads: [{ format, said, datasets }] }, `datasets`
// being the table's dataset hashes after the upload.
import { launchChromium, openPage, watchPage } from './chromium.mjs';

const [ownerUrl, ...files] = process.argv.slice(2);
const browser = await launchChromium();
const pageErrors = [];

try {
  const owner = await openPage(browser, ownerUrl);
  pageErrors.push(...owner.pageErrors);
  watchPage(owner.page, pageErrors);
  const page = owner.page;
  await page.waitForSelector('#dataset-input', { timeout: 120000 });
  const hashes = () => page.$$eval('#datasets tbody tr', (trs) => trs.map((tr) => tr.dataset.hash));
  const uploads = [];
  for (const arg of files) {
    const [file, baseline] = arg.split('=');
    const before = (await hashes()).length;
    // The form starts over after each upload: no file recognised yet.
    await page.waitForSelector('#detected-format', { state: 'detached', timeout: 120000 });
    await page.setInputFiles('#dataset-input', file);
    await page.waitForSelector('#detected-format', { timeout: 120000 });
    const format = await page.getAttribute('#detected-format', 'data-format');
    const said = await page.textContent('#detected-format');
    if (baseline) {
      await page.fill('#convert-baseline', baseline);
      await page.dispatchEvent('#convert-baseline', 'change');
    }
    await page.click('#add-dataset');
    await page.waitForFunction(
      (n) => document.querySelectorAll('#datasets tbody tr').length > n,
      before,
      { timeout: 120000 },
    );
    uploads.push({ format, said, datasets: await hashes() });
  }
  console.log(JSON.stringify({ pageErrors, uploads }));
} finally {
  await browser.close();
}
