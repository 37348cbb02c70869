// axe-core (npm) on a page as it is now, and what its charts and technical terms show: shared
// by the drivers that audit pages (accessibility.mjs, open_analyses.mjs). The page's context
// must bypass the app's Content-Security-Policy (`bypassCSP: true`), which forbids the
// injected script.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const axePath = require.resolve('axe-core/axe.min.js');

// axe's violations on the page as it is now (rule, impact, the first elements); per chart its
// smallest text as rendered (px) and its axis titles; the terms it links to the glossary
// (href, the meaning shown on hover) and, on the glossary, its entries' ids.
export async function audit(page) {
  await page.addScriptTag({ path: axePath });
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')),
      count: v.nodes.length,
    }));
  });
  const charts = await page.evaluate(() => [...document.querySelectorAll('main svg')].map((svg) => {
    const texts = [...svg.querySelectorAll('text')].filter((t) => t.getClientRects().length > 0);
    const sizes = texts.map((t) => parseFloat(getComputedStyle(t).fontSize)
      * (svg.getBoundingClientRect().width / (svg.viewBox.baseVal?.width || svg.getBoundingClientRect().width)));
    return {
      id: svg.closest('figure')?.id || svg.id || svg.closest('section')?.id || null,
      smallestText: sizes.length ? Math.min(...sizes) : null,
      axisTitles: svg.querySelectorAll('text.axis-title').length,
    };
  }));
  const terms = await page.$$eval('a.term', (as) => as.map((a) => ({
    href: a.getAttribute('href'), tip: a.dataset.tip ?? '',
  })));
  const glossary = await page.$$eval('#glossary dt[id]', (dts) => dts.map((dt) => dt.id));
  return { violations, charts, terms, glossary };
}

