// The sandbox for user-written programmatic judges (seed 004): each program is JavaScript that
// defines `judgingFunction(query, response)` returning a number (higher = better). It runs in
// its own Web Worker (`program_worker.js`, sent with a Content-Security-Policy that allows no
// network), with the network APIs removed before the program is evaluated, one call at a time
// under a time limit per call (counted from when the call is sent to a loaded worker). A call
// that throws, returns something other than a finite number, or runs past the limit abstains
// (NaN) and is counted with its reason; on a timeout the worker is terminated and a fresh one
// takes the next call, so a hostile program (infinite loop, huge allocation, throw) can neither
// freeze the page nor stop the run. After three timeouts in a row the program's remaining calls
// abstain unrun. The page calls `window.tribunalRunPrograms(programs, texts, limitMs, onProgress)`:
//   programs: [{ name, code }], texts: [[query, response], …]
//   → Promise<[{ name, scores: [number|null …], failures: { reason: count }, examples: [string] }]>
// `window.tribunalCancelPrograms()` stops a run at its next call (its remaining calls abstain,
// `not run: cancelled`), and, before it accepts a program,
// `window.tribunalCheckProgram(code, limitMs)` → Promise<string>:
// '' when the code compiles and defines judgingFunction, else why not (a top-level that runs
// past the limit included).

(() => {
  const WORKER_URL = '/program_worker.js';
  // Bumped by `tribunalCancelPrograms`: a run started under an older value stops at its next
  // call, its remaining calls abstaining unrun.
  let generation = 0;

  // `mine`: the generation the run started under.
  function runOne(program, texts, limitMs, onProgress, mine) {
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
      let ready = false;
      const send = () => {
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
      const start = () => {
        ready = false;
        worker = new Worker(WORKER_URL);
        worker.onmessage = (event) => {
          const m = event.data;
          if (m && m.ready === true && !ready) {
            ready = true;
            worker.postMessage({ code: program.code });
            if (i < texts.length) send();
            return;
          }
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
      };
      const next = () => {
        if (generation !== mine) {
          clearTimeout(timer);
          while (i < texts.length) { fail('not run: cancelled'); i += 1; }
        }
        if (onProgress && i % 50 === 0) onProgress(program.name, i, texts.length);
        if (i >= texts.length) {
          worker.terminate();
          resolve({ name: program.name, scores, failures, examples });
          return;
        }
        // A worker still loading sends the call once it says it is ready.
        if (ready) send();
      };
      start();
      next();
    });
  }

  window.tribunalCancelPrograms = () => { generation += 1; };

  window.tribunalCheckProgram = (code, limitMs) => new Promise((resolve) => {
    const worker = new Worker(WORKER_URL);
    const done = (error) => { clearTimeout(timer); worker.terminate(); resolve(error); };
    const timer = setTimeout(() => done(`did not finish loading within ${limitMs} ms`), limitMs + 5000);
    worker.onmessage = (event) => {
      const m = event.data;
      if (m && m.ready === true) worker.postMessage({ code });
      else if (m && m.compiled !== undefined) done(m.compiled ? '' : String(m.error));
    };
    worker.onerror = (event) => { event.preventDefault(); done('crashed: ' + String(event.message || 'worker error')); };
  });

  window.tribunalRunPrograms = async (programsJson, textsJson, limitMs, onProgress) => {
    const programs = JSON.parse(programsJson);
    const texts = JSON.parse(textsJson);
    const started = generation;
    const results = [];
    for (const program of programs) {
      results.push(await runOne(program, texts, limitMs, onProgress, started));
    }
    return JSON.stringify(results);
  };
})();
