// Headless Chromium for the browser tests and benchmarks: Debian's /usr/bin/chromium (or
// $CHROMIUM) driven by playwright-core, with networking extras off.
import { chromium } from 'playwright-core';

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

// A 1200 × 900 page at `url`, collecting uncaught page errors into `pageErrors`.
export async function openPage(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(url);
  return { page, pageErrors };
}
