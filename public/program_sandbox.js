// The sandbox for user-written programmatic judges (seed 004): each program is JavaScript that
// defines `judgingFunction(query, response)` returning a number (higher = better). It runs in
// its own Web Worker, made from a Blob, with the network APIs removed before the program is
// evaluated, one call at a time under a time limit per call. A call that throws, returns
// something other than a finite number, or runs past the limit abstains (NaN) and is counted
// with its reason; on a timeout the worker is terminated and a fresh one takes the next call,
// so a hostile program (infinite loop, huge allocation, throw) can neither freeze the page nor
// stop the run. After three timeouts in a row the program's remaining calls abstain unrun. The page calls `window.tribunalRunPrograms(programs, texts, limitMs, onProgress)`:
//   programs: [{ name, code }], texts: [[query, response], …]
//   → Promise<[{ name, scores: [number|null …], failures: { reason: count }, examples: [string] }]>

(() => {
  const HARNESS = `
    for (const name of ['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource', 'importScripts',
                        'indexedDB', 'caches', 'BroadcastChannel', 'Worker', 'SharedWorker']) {
      let o = self;
      while (o) {
        try { delete o[name]; } catch (e) { /* not configurable: shadowed below */ }
        o = Object.getPrototypeOf(o);
      }
      try { Object.defineProperty(self, name, { value: undefined, configurable: false }); } catch (e) {}
    }
    let judge = null;
    let loadError = null;
    self.onmessage = (event) => {
      const m = event.data;
      if (m.code !== undefined) {
        try {
          judge = new Function(m.code + '\\n;return typeof judgingFunction === "function" ? judgingFunction : null;')();
          if (!judge) loadError = 'defines no judgingFunction(query, response)';
        } catch (e) {
          loadError = 'does not compile: ' + String(e && e.message || e);
        }
        return;
      }
      if (loadError) { self.postMessage({ i: m.i, error: loadError }); return; }
      try {
        const value = judge(m.query, m.response);
        if (typeof value === 'number' && Number.isFinite(value)) {
          self.postMessage({ i: m.i, value });
        } else {
          self.postMessage({ i: m.i, error: 'returned ' + (typeof value === 'number' ? String(value) : typeof value) + ', not a finite number' });
        }
      } catch (e) {
        self.postMessage({ i: m.i, error: 'threw ' + String(e && e.name || 'an error') + ': ' + String(e && e.message || e).slice(0, 120) });
      }
    };
  `;
  const harnessUrl = URL.createObjectURL(new Blob([HARNESS], { type: 'text/javascript' }));

  function runOne(program, texts, limitMs, onProgress) {
    return new Promise((resolve) => {
      const scores = new Array(texts.length).fill(null);
      const failures = {};
      const examples = [];
      let worker = null;
      let timer = null;
      let i = 0;
      let timeoutsInARow = 0;
      const fail = (reason) => {
        const key = reason.startsWith('threw') ? reason.split(':')[0] : reason;
        failures[key] = (failures[key] || 0) + 1;
        if (examples.length < 3 && !examples.includes(reason)) examples.push(reason);
      };
      const start = () => {
        worker = new Worker(harnessUrl);
        worker.onmessage = (event) => {
          const m = event.data;
          if (m.i !== i) return;
          clearTimeout(timer);
          timeoutsInARow = 0;
          if (m.error !== undefined) fail(m.error); else scores[i] = m.value;
          i += 1;
          next();
        };
        worker.onerror = (event) => {
          event.preventDefault();
          clearTimeout(timer);
          fail('crashed: ' + String(event.message || 'worker error'));
          worker.terminate();
          i += 1;
          start();
          next();
        };
        worker.postMessage({ code: program.code });
      };
      const next = () => {
        if (onProgress && i % 50 === 0) onProgress(program.name, i, texts.length);
        if (i >= texts.length) {
          worker.terminate();
          resolve({ name: program.name, scores, failures, examples });
          return;
        }
        timer = setTimeout(() => {
          worker.terminate();
          fail(`ran past the ${limitMs} ms limit`);
          i += 1;
          timeoutsInARow += 1;
          if (timeoutsInARow >= 3) {
            while (i < texts.length) { fail('not run: three timeouts in a row'); i += 1; }
          }
          start();
          next();
        }, limitMs);
        worker.postMessage({ i, query: texts[i][0], response: texts[i][1] });
      };
      start();
      next();
    });
  }

  window.tribunalRunPrograms = async (programsJson, textsJson, limitMs, onProgress) => {
    const programs = JSON.parse(programsJson);
    const texts = JSON.parse(textsJson);
    const results = [];
    for (const program of programs) {
      results.push(await runOne(program, texts, limitMs, onProgress));
    }
    return JSON.stringify(results);
  };
})();
