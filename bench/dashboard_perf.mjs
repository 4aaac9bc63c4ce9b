// The dashboard's cost in a browser (issue 12): first meaningful paint of the 8-GPU `demo` node on
// loopback, and the tab's CPU at 1 s updates, from Chromium's own metrics (CDP
// Performance.getMetrics: ProcessTime, the CPU time of the tab's renderer process).
//   node bench/dashboard_perf.mjs [BUILD_DIR=build] [SCENARIO=demo] [SECONDS=30]
// Starts `gpuwatch --simulate SCENARIO serve --no-record` on 127.0.0.1 (a free port; or measures the
// server at $GPUWATCH_DASHBOARD_URL), opens / in
// headless Chromium (Debian's, through playwright-core from node_modules), and prints one line of
// JSON. "Meaningful" = every overview row has its numbers and a sparkline sample, and the node
// charts have drawn data: what a person needs to read the node.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [buildDir = 'build', scenario = 'demo', seconds = '30'] = process.argv.slice(2);
const require = createRequire(path.join(root, 'package.json'));
const { chromium } = require('playwright-core');
const chromiumPath = [process.env.GPUWATCH_CHROMIUM, '/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => p && existsSync(p));
if (!chromiumPath) { console.error('dashboard_perf: no chromium (scripts/install-deps installs it)'); process.exit(2); }

const bin = path.resolve(root, buildDir, 'gpuwatch');
// GPUWATCH_DASHBOARD_URL: measure a server that already runs (a real node) instead.
const serve = process.env.GPUWATCH_DASHBOARD_URL ? null
  : spawn(bin, ['--simulate', scenario, 'serve', '--listen', '127.0.0.1:0', '--no-record', '--interval', '1s'],
          { stdio: ['ignore', 'pipe', 'inherit'] });
const url = serve === null ? process.env.GPUWATCH_DASHBOARD_URL : await new Promise((resolve, reject) => {
  let text = '';
  serve.stdout.on('data', (d) => {
    text += d;
    const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(text);
    if (m) resolve(`http://127.0.0.1:${m[1]}`);
  });
  serve.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening`)));
  setTimeout(() => reject(new Error('serve did not say where it listens within 10 s')), 10000);
});
// The first samples (serve answers / at once; give the collector a second, as a person would).
await new Promise((r) => setTimeout(r, 1500));

const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
try {
  const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'timeTicks' });
  const t0 = Date.now();
  await page.goto(url + '/', { waitUntil: 'commit' });
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll('tr.gpu-row')];
    const charts = window.GpuwatchCharts ? window.GpuwatchCharts.plots() : [];
    return rows.length > 0 && rows.every((r) => Number(r.dataset.points) > 0 && r.querySelector('.util-text').textContent !== '') &&
      charts.length >= 5 && charts.every((u) => u.data[0].length > 0);
  }, null, { timeout: 15000, polling: 'raf' });
  const meaningfulMs = Date.now() - t0;
  const paint = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('paint').map((e) => [e.name, e.startTime])));
  const nav = await page.evaluate(() => { const n = performance.getEntriesByType('navigation')[0]; return { domContentLoaded: n.domContentLoadedEventEnd, load: n.loadEventEnd }; });
  await page.waitForTimeout(3000);  // settle: the first history load and chart builds are not the steady state
  const metric = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const a = await metric();
  const wallA = Date.now();
  await page.waitForTimeout(Number(seconds) * 1000);
  const b = await metric();
  const wall = (Date.now() - wallA) / 1000;
  const gpus = await page.evaluate(() => document.querySelectorAll('tr.gpu-row').length);
  const events = await page.evaluate(() => Number(document.body.dataset.sseEvents || 0));
  console.log(JSON.stringify({
    scenario, gpus, url,
    first_contentful_paint_ms: Math.round(paint['first-contentful-paint'] ?? NaN),
    first_meaningful_paint_ms: meaningfulMs,
    dom_content_loaded_ms: Math.round(nav.domContentLoaded),
    steady_seconds: Math.round(wall),
    // ProcessTime: CPU time of the tab's renderer process (all its threads); ThreadTime: its main
    // thread's. TaskDuration is the main thread's busy wall time (inflated on a loaded machine).
    cpu_percent_of_a_core: +(100 * (b.ProcessTime - a.ProcessTime) / wall).toFixed(2),
    main_thread_cpu_percent: +(100 * (b.ThreadTime - a.ThreadTime) / wall).toFixed(2),
    main_thread_busy_percent: +(100 * (b.TaskDuration - a.TaskDuration) / wall).toFixed(2),
    script_percent: +(100 * (b.ScriptDuration - a.ScriptDuration) / wall).toFixed(2),
    style_layout_percent: +(100 * (b.RecalcStyleDuration - a.RecalcStyleDuration + b.LayoutDuration - a.LayoutDuration) / wall).toFixed(2),
    js_heap_mb: +(b.JSHeapUsedSize / 1048576).toFixed(1),
    sample_events: events,
  }));
} finally {
  await browser.close();
  if (serve) serve.kill('SIGTERM');
}
