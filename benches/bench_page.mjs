// One headless Chromium page over a loopback server, for the WASM timers (benches/wasm.mjs,
// benches/ppi_wasm.mjs). Usage: `await withBenchPage(route, async (page) => ...)`, where
// `route(pathname)` returns the file to serve (or a string body for `/`); everything else
// comes from PKG_DIR (the wasm-bindgen output), and /page_timer.js is benches/page_timer.js. Prints nothing; closes what it opened.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launchChromium } from '../tests/browser/chromium.mjs';

const types = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };
const clean = (p) => p.replace(/^\/+/, '').replace(/\.\./g, '');

export async function withBenchPage(pkg, route, run) {
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://x');
      const file = route(url.pathname);
      const body = url.pathname === '/' ? '<!DOCTYPE html><title>bench</title>'
        : url.pathname === '/page_timer.js' ? await readFile(new URL('./page_timer.js', import.meta.url))
        : file ? await readFile(file)
        : await readFile(join(pkg, clean(url.pathname)));
      const ext = url.pathname.match(/\.[a-z]+$/)?.[0] ?? '.html';
      res.writeHead(200, { 'content-type': types[ext] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  }).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    const result = await run(page);
    result.chromium = browser.version();
    return result;
  } finally {
    await browser.close();
    server.close();
  }
}
