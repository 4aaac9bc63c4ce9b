// Drives the `gpuwatch serve` dashboard in headless Chromium with playwright-core and prints one
// JSON object of what it saw (tests/e2e/test_serve_dashboard.py asserts on it). Exits 1 with
// {"error": ...} when a bounded wait runs out.
//   node dashboard_check.mjs '{"url": "http://127.0.0.1:PORT", "chromium": PATH, "sourceDir": DIR,
//                              "screenshot": FILE, "mode": "live" | "lost" | "polling", "killPid": PID|null,
//                              "disconnectedScreenshot": FILE|null,
//                              "restart": {"argv": [...], "env": {...}}|null}'
// With killPid the server is stopped (SIGTERM) and the page must say "disconnected"; with restart
// too, a new server is started on the same address and the page must go live again by itself.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const opts = JSON.parse(process.argv[2]);
const require = createRequire(path.join(opts.sourceDir, 'package.json'));  // GPUWATCH_SOURCE_DIR/node_modules
const { chromium } = require('playwright-core');

const result = { requests: [], consoleErrors: [], pageErrors: [] };
let restarted = null;  // the server this script starts again (opts.restart)
async function stopRestarted() {
  if (!restarted || restarted.exitCode !== null) return;
  const exited = new Promise((resolve) => restarted.once('exit', resolve));
  restarted.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  if (restarted.exitCode === null) restarted.kill('SIGKILL');
}
const browser = await chromium.launch({
  executablePath: opts.chromium,
  // root in CI: no sandbox; every host name resolves nowhere, so a remote asset could not load.
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  timeout: 30000,
});

async function waitFor(page, what, fn, arg, timeout = 15000) {
  try {
    await page.waitForFunction(fn, arg, { timeout, polling: 100 });
  } catch (e) {
    throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
  }
}

try {
  const page = await browser.newPage({ viewport: { width: 1500, height: 1100 } });
  page.on('request', (r) => result.requests.push(r.url()));
  page.on('console', (m) => { if (m.type() === 'error') result.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => result.pageErrors.push(String(e)));

  const response = await page.goto(opts.url + '/', { waitUntil: 'load', timeout: 15000 });
  result.status = response.status();
  result.headers = response.headers();
  await waitFor(page, 'the page to load its history', () => document.body.dataset.ready === 'true');
  result.gpus = Number(await page.evaluate(() => document.body.dataset.gpus));
  // One overview row per GPU, and the node charts with one series per GPU.
  await waitFor(page, 'one overview row per GPU and the node charts',
    (n) => document.querySelectorAll('tr.gpu-row').length === n &&
           document.querySelectorAll('#node-charts .chart .uplot').length === 5, result.gpus);
  result.nodeCharts = await page.evaluate(() => [...document.querySelectorAll('#node-charts .chart')].map((c) => ({
    chart: c.dataset.chart,
    series: [...c.querySelectorAll('.u-legend .u-series')].filter((e) => /GPU \d+/.test(e.textContent)).length })));
  result.charts = await page.evaluate(() => [...document.querySelectorAll('tr.gpu-row')].map((row) => ({
    gpu: Number(row.dataset.gpu),
    state: row.dataset.state,
    badge: row.querySelector('.badge').textContent,
    name: row.querySelector('td.name').textContent,
    ids: row.querySelector('td.name').title,
    error: row.querySelector('.reason').textContent,
    points: Number(row.dataset.points),
  })));

  // The node's process table against the snapshot the page itself reads, fetched in the page:
  // each PID once, with its command line (else its name), user and GPUs.
  await waitFor(page, 'the process table to match /api/v1/snapshot', async () => {
    const snap = await (await fetch('api/v1/snapshot', { cache: 'no-store' })).json();
    const want = new Map();
    snap.gpus.forEach((g) => (g.processes || []).forEach((p) => {
      const e = want.get(p.pid) || { pid: p.pid, cmd: p.command_line || p.name, user: p.user ?? '–', gpus: [] };
      e.gpus.push(g.index);
      want.set(p.pid, e);
    }));
    const have = [...document.querySelectorAll('#process-table tbody tr[data-pid]')].map((r) =>
      `${r.dataset.pid}|${r.children[2].textContent}|${r.children[1].textContent}|${r.children[3].textContent}`).sort();
    const wanted = [...want.values()].map((e) => `${e.pid}|${e.cmd}|${e.user}|${e.gpus.join(', ')}`).sort();
    return JSON.stringify(wanted) === JSON.stringify(have);
  });
  result.processTables = await page.evaluate(async () => {
    const rowsOfGpu = (index) => [...document.querySelectorAll('#process-table tbody tr[data-pid]')]
      .filter((r) => [...r.children[3].querySelectorAll('a')].some((a) => a.textContent === String(index)));
    const snap = await (await fetch('api/v1/snapshot', { cache: 'no-store' })).json();
    return snap.gpus.map((g) => ({
      gpu: g.index,
      snapshot: (g.processes || []).map((p) => p.pid).sort(),
      table: rowsOfGpu(g.index).map((r) => Number(r.dataset.pid)).sort(),
      rows: rowsOfGpu(g.index).map((r) => [...r.children].map((td) => td.textContent)),
      empty: document.querySelector('#process-table tbody tr.none')?.textContent ?? null,
    }));
  });

  if (opts.mode === 'live') {
    // Live updates: the events counter and GPU 0's latest charted timestamp both advance.
    const before = await page.evaluate(() => ({
      events: Number(document.body.dataset.sseEvents || 0),
      last: Number(document.querySelector('tr.gpu-row[data-gpu="0"]').dataset.lastTimestamp),
    }));
    await waitFor(page, 'a newer sample to reach GPU 0\'s charts over /api/v1/events', (b) =>
      Number(document.body.dataset.sseEvents || 0) > b.events &&
      Number(document.querySelector('tr.gpu-row[data-gpu="0"]').dataset.lastTimestamp) > b.last, before);
    result.live = { before, after: await page.evaluate(() => ({
      events: Number(document.body.dataset.sseEvents),
      last: Number(document.querySelector('tr.gpu-row[data-gpu="0"]').dataset.lastTimestamp),
      connection: document.getElementById('connection').dataset.state,
    })) };

    // null stays a gap (never 0), and a pause longer than the allowed gap breaks the line:
    // the page's own chart-data function on made-up columns.
    result.gapCheck = await page.evaluate(() => {
      const chart = GpuwatchCharts.GPU_CHARTS.find((c) => c.key === 'temperature');
      const v = {};
      GpuwatchCharts.FIELDS.forEach((f) => { v[f] = [50, null, 52, 53]; });
      v.temperature_memory_c = [null, null, null, null];
      v.temperature_gpu_slowdown_c = [87, 87, 87, 87];
      // [time, GPU, memory, slowdown, band max, band min]: live columns have no band
      return GpuwatchCharts.gpuChartData(chart, { t: [100, 101, 102, 120], v, lo: {}, hi: {} }, 3);
    });

    // Range switch: 1 h asks the server for 3600 s; then 1 min, for the screenshot.
    const historyRequest = page.waitForRequest((r) => r.url().includes('api/v1/history?seconds=3600'), { timeout: 10000 });
    await page.click('#ranges button[data-seconds="3600"]');
    await historyRequest;
    // rangeLoaded is set once the 1 h answer is drawn (range is set at the click, before it).
    await waitFor(page, 'the 1 h range to be drawn', () => document.body.dataset.range === '3600' &&
      document.body.dataset.rangeLoaded === '3600' &&
      document.querySelector('#ranges button[aria-pressed="true"]').dataset.seconds === '3600');
    result.rangeInfo = await page.textContent('#range-info');
    await page.click('#ranges button[data-seconds="60"]');
    await waitFor(page, 'the 1 min range', () => document.body.dataset.range === '60' &&
      Number(document.querySelector('tr.gpu-row[data-gpu="0"]').dataset.points) > 0);
    await page.waitForTimeout(1500);  // one more redraw tick with live samples
  }
  if (opts.mode === 'polling') {
    // This page holds the server's only event stream (serve --threads 3): a second page is refused
    // one (503) and must poll the history instead, its charts still advancing.
    const second = await browser.newPage({ viewport: { width: 1500, height: 1100 } });
    second.on('request', (r) => result.requests.push(r.url()));
    second.on('pageerror', (e) => result.pageErrors.push(String(e)));
    await second.goto(opts.url + '/', { waitUntil: 'load', timeout: 15000 });
    await waitFor(second, 'the second page to poll', () => document.body.dataset.ready === 'true' &&
      document.getElementById('connection').dataset.state === 'polling');
    const last = await second.evaluate(() => Number(document.querySelector('tr.gpu-row[data-gpu="0"]').dataset.lastTimestamp));
    await waitFor(second, 'the polling page\'s charts to advance', (l) =>
      Number(document.querySelector('tr.gpu-row[data-gpu="0"]').dataset.lastTimestamp) > l, last);
    // With both pages open, /metrics must still answer at once: the pages' idle connections must not
    // pin serve's workers (assets and snapshots are answered with Connection: close).
    result.metricsMs = [];
    for (let i = 0; i < 12; i++) {
      const t0 = performance.now();
      const r = await fetch(opts.url + '/metrics', { signal: AbortSignal.timeout(10000) });
      await r.text();
      result.metricsMs.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    result.polling = {
      first: await page.evaluate(() => document.getElementById('connection').dataset.state),
      second: await second.textContent('#connection'),
      secondEvents: await second.evaluate(() => Number(document.body.dataset.sseEvents || 0)),
    };
  }
  result.connection = await page.textContent('#connection');
  await page.screenshot({ path: opts.screenshot, fullPage: opts.mode !== 'live' });
  if (opts.mode === 'live') {
    await page.screenshot({ path: opts.screenshot.replace(/\.png$/, '-full.png'), fullPage: true });
  }
  result.consoleErrorsBeforeStop = result.consoleErrors.slice();

  if (opts.killPid) {
    // The server goes away: the page must say so, clearly, within a few seconds.
    process.kill(opts.killPid, 'SIGTERM');
    await waitFor(page, 'the page to show "disconnected"', () =>
      document.getElementById('connection').dataset.state === 'disconnected' &&
      !document.getElementById('banner').hidden, null, 10000);
    result.disconnected = {
      connection: await page.textContent('#connection'),
      banner: await page.textContent('#banner'),
    };
    if (opts.disconnectedScreenshot) await page.screenshot({ path: opts.disconnectedScreenshot });
  }
  if (opts.killPid && opts.restart) {
    const eventsBefore = await page.evaluate(() => Number(document.body.dataset.sseEvents || 0));
    restarted = spawn(opts.restart.argv[0], opts.restart.argv.slice(1), { env: opts.restart.env, stdio: 'ignore' });
    await waitFor(page, 'the page to go live again after the server restarted', (n) =>
      document.getElementById('connection').dataset.state === 'live' && document.getElementById('banner').hidden &&
      Number(document.body.dataset.sseEvents || 0) > n, eventsBefore, 20000);
    result.reconnected = { connection: await page.textContent('#connection') };
  }
  await browser.close();
  await stopRestarted();
  console.log(JSON.stringify(result));
} catch (e) {
  result.error = String(e && e.message ? e.message : e);
  await browser.close();
  await stopRestarted();
  console.log(JSON.stringify(result));
  process.exit(1);
}
