// The timing loop both WASM timers run inside the page (served at /page_timer.js): one
// warm-up call, then `n` timed calls with performance.now(); the median and minimum seconds
// and the value the warm-up returned.
export function time(n, f) {
  const value = f();
  const s = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    f();
    s.push((performance.now() - t0) / 1000);
  }
  s.sort((a, b) => a - b);
  return { median_s: s[Math.floor(s.length / 2)], min_s: s[0], rounds: n, value };
}
