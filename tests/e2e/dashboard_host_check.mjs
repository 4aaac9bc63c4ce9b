// The dashboard's host panel (issue 25) in headless Chromium (playwright-core); prints one JSON
// object of what it saw, test_dashboard_host.py asserts on it. Exits 1 with {"error": ...} when a
// bounded wait runs out.
//   node dashboard_host_check.mjs '{"url": URL, "chromium": PATH, "sourceDir": DIR, "outDir": DIR,
//                                   "mode": "live" | "fixture", "axe": true | false}'
//  live:    serve's own /api/v1/host: the panel shows, its five charts draw, and what the CPU chart
//           holds is what the endpoint gives.
//  fixture: /api/v1/host answered by this script (page.route) with known values (IB absent, a
//           gap, a string where a number goes), then with {"latest": null}, then with a 404.
import path from 'node:path';

import { axeViolations, checkOptions, openPage, runCheck, waitFor } from './browser_page.mjs';

const opts = checkOptions();
const result = { requests: [], consoleErrors: [], pageErrors: [] };

// What the host panel shows: the line, each chart's key, legend labels and its series' data.
function hostPanel() {
  const section = document.getElementById('host');
  const charts = [...section.querySelectorAll('#host-charts figure.chart')].map((fig) => {
    const plot = GpuwatchCharts.plots().find((u) => u.root.parentElement === fig);
    return {
      key: fig.dataset.chart, title: fig.querySelector('figcaption').textContent,
      labels: plot ? plot.series.slice(1).map((s) => s.label) : [],
      data: plot ? plot.data.slice(1).map((col) => Array.from(col, (v) => (v === undefined ? null : v))) : [],
      x: plot ? Array.from(plot.data[0]) : [], width: plot ? plot.width : 0,
    };
  });
  return {
    hidden: section.hidden, bodyHost: document.body.dataset.host || '', line: document.getElementById('host-line').textContent,
    points: Number(section.dataset.points || 0), charts, elements: section.querySelectorAll('b, img, script').length,
  };
}

// The fixture: 11 samples 2 s apart ending now (browser clock), a gap at sample 5, no InfiniBand.
function fixture(now) {
  const t = [], n = 11;
  for (let i = 0; i < n; i++) t.push(Math.round(now) - 2 * (n - 1 - i));
  const withGap = (values) => values.map((v, i) => (i === 5 ? null : v));
  const latest = {
    interval_s: 2, cpu_busy_percent: 42.4, cpu_iowait_percent: 7.2, cpu_steal_percent: null, cpu_pressure_some_percent: null,
    memory_available_percent: 63, memory_pressure_some_percent: null, swap_in_pages_per_s: 4, swap_out_pages_per_s: 1,
    disk_read_bytes_per_s: 12e6, disk_write_bytes_per_s: 3e6, disk_busy_percent: 55, io_pressure_some_percent: null,
    net_rx_bytes_per_s: 1.2e6, net_tx_bytes_per_s: 3e5, ib_rx_bytes_per_s: null, ib_tx_bytes_per_s: null,
    swap_total_bytes: '<b>not a number</b>',
  };
  const series = { t };
  const ramp = (base, step) => withGap(t.map((_, i) => base + step * i));
  series.cpu_busy_percent = ramp(30, 1);
  series.cpu_iowait_percent = ramp(2, 0.5);
  series.memory_available_percent = ramp(60, 0.3);
  series.memory_pressure_some_percent = t.map(() => null);
  series.swap_in_pages_per_s = ramp(0, 0.4);
  series.swap_out_pages_per_s = ramp(0, 0.1);
  series.disk_read_bytes_per_s = ramp(10e6, 0.2e6);
  series.disk_write_bytes_per_s = ramp(1e6, 0.2e6);
  series.net_rx_bytes_per_s = ramp(1e6, 0.02e6);
  series.net_tx_bytes_per_s = ramp(2e5, 0.1e5);
  series.ib_rx_bytes_per_s = t.map(() => null);
  series.ib_tx_bytes_per_s = t.map(() => null);
  return { latest, series };
}

await runCheck(opts, result, async (browser) => {
  const page = await openPage(browser, result, { viewport: { width: 1600, height: 1000 }, bypassCSP: !!opts.axe });

  let answer = 'fixture';
  result.hostAsked = 0;
  if (opts.mode === 'fixture') {
    await page.route(/\/api\/v1\/host(\?|$)/, async (route) => {
      result.hostAsked++;
      if (answer === '404') return route.fulfill({ status: 404, contentType: 'application/json', body: '{"error": "no host signals"}' });
      const body = answer === 'null' ? { latest: null, series: { t: [] } } : fixture(Date.now() / 1000);
      return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
    });
  }
  await page.goto(opts.url + '/', { waitUntil: 'load', timeout: 15000 });
  await waitFor(page, 'the page to load its history', () => document.body.dataset.ready === 'true');
  await waitFor(page, 'the host panel to show with its charts drawn', () => {
    const s = document.getElementById('host');
    return !s.hidden && Number(s.dataset.points || 0) >= 2 && s.querySelectorAll('#host-charts figure.chart').length === 5;
  });
  result.shown = await page.evaluate(hostPanel);
  await page.screenshot({ path: path.join(opts.outDir, `dashboard-host-${opts.mode}.png`), fullPage: true });

  if (opts.mode === 'live') {
    // The endpoint's own values, asked now: the CPU chart's latest value is one of them.
    result.endpoint = await page.evaluate(async () => (await fetch('api/v1/host?seconds=300', { cache: 'no-store' })).json());
  }
  if (opts.axe) result.axe = await axeViolations(page, opts.sourceDir);
  result.consoleErrorsShown = result.consoleErrors.slice();

  if (opts.mode === 'fixture') {
    // No host signals any more: {"latest": null} hides the panel at the next poll, then a 404 keeps it hidden.
    answer = 'null';
    await waitFor(page, 'the panel to hide on {"latest": null}', () => document.getElementById('host').hidden, null, 10000);
    result.hiddenOnNull = await page.evaluate(hostPanel);
    answer = 'fixture';
    await waitFor(page, 'the panel to come back', () => !document.getElementById('host').hidden, null, 10000);
    answer = '404';
    await waitFor(page, 'the panel to hide on a 404', () => document.getElementById('host').hidden, null, 10000);
    const asked = result.hostAsked;
    await page.waitForTimeout(2500);  // more than one poll: a 404 is not asked again
    result.askedAfter404 = result.hostAsked - asked;
    result.hiddenOn404 = await page.evaluate(hostPanel);
  }
});
