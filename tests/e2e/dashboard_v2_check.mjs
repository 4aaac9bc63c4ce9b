// Drives the `gpuwatch serve` dashboard (issue 12: the whole node on one screen) in headless
// Chromium with playwright-core and prints one JSON object of what it saw; test_dashboard_v2.py
// asserts on it. Exits 1 with {"error": ...} when a bounded wait runs out.
//   node dashboard_v2_check.mjs '{"url": URL, "chromium": PATH, "sourceDir": DIR, "outDir": DIR, "name": "8gpu",
//                                 "ranges": [60, ...] | null, "finding": true | false, "openGpu": N | null,
//                                 "axe": true | false, "dark": true | false}'
// Layout at 1920x1080: where the overview and the findings panel end, whether the overview
// scrolls inside with its header in place, whether any two chart labels overlap (uPlot's axis
// labels measured as the canvas draws them, and the DOM's titles and legends).
import path from 'node:path';

import { axeViolations, checkOptions, openPage, runCheck, waitFor } from './browser_page.mjs';

const opts = checkOptions();
const result = { requests: [], consoleErrors: [], pageErrors: [], bytes: {} };

// Every pair of chart labels that overlap: the axis labels uPlot draws (measured with its font
// at its positions) and the DOM text of titles, legends and strip keys.
function labelOverlaps() {
  const overlaps = [];
  const boxes = [];
  const ctx = document.createElement('canvas').getContext('2d');
  const ratio = window.devicePixelRatio || 1;
  GpuwatchCharts.plots().forEach((u, p) => {
    const root = u.root.getBoundingClientRect();
    u.axes.forEach((axis, a) => {
      if (!axis.show || !axis._values) return;
      ctx.font = axis.font[0];
      const size = axis.font[1] / ratio;
      const scale = axis.scale;
      const items = [];
      axis._splits.forEach((split, k) => {
        const text = axis._values[k];
        if (text === null || text === undefined || text === '') return;
        const w = ctx.measureText(String(text)).width / ratio;
        const pos = u.valToPos(split, scale);  // CSS px within the plot area
        if (a === 0) {
          const x = u.bbox.left / ratio + pos;
          items.push({ text: String(text), lo: x - w / 2, hi: x + w / 2 });
        } else {
          const y = u.bbox.top / ratio + pos;
          items.push({ text: String(text), lo: y - size / 2, hi: y + size / 2 });
        }
      });
      items.sort((x, y) => x.lo - y.lo);
      for (let k = 1; k < items.length; k++) {
        if (items[k].lo < items[k - 1].hi - 0.5) {
          overlaps.push({ plot: p, chart: u.root.parentElement?.dataset.chart, axis: a, a: items[k - 1].text, b: items[k].text });
        }
      }
      // The bottom labels must stay inside the chart (not cut off at its edges).
      if (a === 0 && items.length) {
        boxes.push({ plot: p, first: items[0].lo, last: items[items.length - 1].hi, width: root.width });
      }
    });
  });
  // DOM text in the chart areas: no two boxes intersect.
  const rects = [...document.querySelectorAll('.chart-title, .u-legend .u-series, .strip-legend span')]
    .filter((e) => e.offsetParent !== null)
    .map((e) => ({ text: e.textContent, r: e.getBoundingClientRect() }))
    .filter((x) => x.r.width > 0 && x.r.height > 0);
  for (let i = 0; i < rects.length; i++) {
    for (let j = i + 1; j < rects.length; j++) {
      const a = rects[i].r, b = rects[j].r;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1) overlaps.push({ dom: true, a: rects[i].text, b: rects[j].text });
    }
  }
  return { overlaps, boxes, plots: GpuwatchCharts.plots().length };
}

await runCheck(opts, result, async (browser) => {
  const page = await openPage(browser, result, {
    viewport: { width: 1920, height: 1080 }, colorScheme: opts.dark ? 'dark' : 'light',
    bypassCSP: !!opts.axe,  // only so the axe-core script can be put into the page
  });
  page.on('response', async (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/api/')) return;  // data, not page weight
    try { result.bytes[u.pathname] = (await r.body()).length; } catch (e) { /* aborted */ }
  });

  const t0 = Date.now();
  await page.goto(opts.url + '/', { waitUntil: 'load', timeout: 15000 });
  await waitFor(page, 'the page to load its history', () => document.body.dataset.ready === 'true');
  result.readyMs = Date.now() - t0;
  result.gpus = Number(await page.evaluate(() => document.body.dataset.gpus));
  await waitFor(page, 'one overview row per GPU with data', (n) => {
    const rows = document.querySelectorAll('tr.gpu-row');
    return rows.length === n && [...rows].every((r) => Number(r.dataset.points) > 0);
  }, result.gpus);

  if (opts.finding) {
    // The collector's view (the API, polled here every 100 ms) against the page's overview.
    const seen = {};
    const deadline = Date.now() + 60000;
    const pageSaw = page.waitForFunction(() => [...document.querySelectorAll('tr.gpu-row')]
      .find((r) => r.dataset.state === 'warning' || r.dataset.state === 'critical')?.dataset.gpu,
    null, { timeout: 60000, polling: 50 }).then(async (h) => { seen.page = Date.now(); seen.pageGpu = Number(await h.jsonValue()); });
    let polls = 0;
    while (!seen.api && Date.now() < deadline) {
      const snap = await (await fetch(opts.url + '/api/v1/snapshot')).json();
      const gpu = snap.gpus.find((g) => (g.findings || []).some((f) => f.severity === 'warning' || f.severity === 'critical') ||
                                        (g.alerts || []).some((a) => a.state === 'firing'));
      polls++;
      if (gpu) {
        seen.api = Date.now(); seen.apiGpu = gpu.index; seen.apiFinding = gpu.findings[0] || gpu.alerts[0];
        seen.pollsBefore = polls - 1;  // > 0: the page was open before the collector saw it
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await pageSaw.catch((e) => { seen.pageError = String(e.message); });
    result.finding = { ...seen, lagMs: seen.page && seen.api ? Math.max(0, seen.page - seen.api) : null };
  }

  // Layout of the node view.
  await page.waitForTimeout(1200);  // a redraw with live samples
  result.layout = await page.evaluate(() => {
    const r = (id) => document.getElementById(id).getBoundingClientRect();
    const scroll = document.getElementById('overview-scroll');
    return {
      innerHeight: window.innerHeight, scrollY: window.scrollY,
      troubleBottom: r('trouble').bottom, overviewBottom: r('overview').bottom,
      lastRowBottom: [...document.querySelectorAll('tr.gpu-row')].pop().getBoundingClientRect().bottom,
      overviewScrolls: scroll.scrollHeight > scroll.clientHeight + 1,
      rows: [...document.querySelectorAll('tr.gpu-row')].map((row) => ({
        gpu: Number(row.dataset.gpu), state: row.dataset.state, badge: row.querySelector('.badge').textContent,
        reason: row.querySelector('.reason').textContent, name: row.querySelector('td.name').textContent,
        cells: [...row.children].map((td) => td.textContent),
      })),
      trouble: [...document.querySelectorAll('#trouble-list li')].map((li) => ({
        severity: li.dataset.severity || null, links: [...li.querySelectorAll('a')].map((a) => a.getAttribute('href')),
        text: li.textContent })),
      nodeCharts: [...document.querySelectorAll('#node-charts .chart')].map((c) => c.dataset.chart),
      strip: !!document.querySelector('#node-charts canvas.throttle-strip'),
    };
  });
  if (result.layout.overviewScrolls) {
    // Scroll the overview to its end: its header stays where it was, the last row comes into view.
    result.scrolled = await page.evaluate(async () => {
      const scroll = document.getElementById('overview-scroll');
      const head = document.querySelector('table.overview thead th');
      const before = head.getBoundingClientRect().top;
      scroll.scrollTop = scroll.scrollHeight;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const box = scroll.getBoundingClientRect();
      const last = [...document.querySelectorAll('tr.gpu-row')].pop().getBoundingClientRect();
      const headNow = head.getBoundingClientRect();
      const firstVisible = [...document.querySelectorAll('tr.gpu-row')].find((tr) => tr.getBoundingClientRect().top >= headNow.bottom - 1);
      return { headBefore: before, headAfter: headNow.top, scrollTop: scroll.scrollTop,
               lastVisible: last.bottom <= box.bottom + 1 && last.top >= headNow.bottom - 1,
               headAboveRows: firstVisible ? firstVisible.getBoundingClientRect().top >= headNow.bottom - 1 : false };
    });
    await page.screenshot({ path: path.join(opts.outDir, `dashboard-${opts.name}-scrolled.png`) });
    await page.evaluate(() => { document.getElementById('overview-scroll').scrollTop = 0; });
  }
  await page.screenshot({ path: path.join(opts.outDir, `dashboard-${opts.name}.png`) });
  result.labels = await page.evaluate(labelOverlaps);

  if (opts.openGpu !== null && opts.openGpu !== undefined) {
    // Keyboard: focus the GPU's link in the overview and press Enter; the URL keeps #gpu=N.
    await page.focus(`tr.gpu-row[data-gpu="${opts.openGpu}"] a.gpu-link`);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await waitFor(page, 'the detail of the GPU', (n) => location.hash === '#gpu=' + n && !document.getElementById('detail').hidden &&
      document.querySelectorAll('#detail-charts .chart .uplot').length === 6, opts.openGpu);
    await page.waitForTimeout(600);
    result.detail = await page.evaluate(() => ({
      hash: location.hash, title: document.getElementById('detail-title').textContent,
      charts: [...document.querySelectorAll('#detail-charts .chart')].map((c) => c.dataset.chart),
      reason: document.getElementById('detail-reason').textContent,
      stats: [...document.querySelectorAll('#detail-stats .stat')].map((s) => s.textContent),
      events: [...document.querySelectorAll('#detail-events tbody tr')].map((tr) => tr.textContent),
      gpm: document.getElementById('detail-gpm').textContent,
      processRows: document.querySelectorAll('#process-table tbody tr[data-pid]').length,
    }));
    await page.evaluate(() => document.getElementById('detail').scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: path.join(opts.outDir, `dashboard-${opts.name}-gpu${opts.openGpu}.png`) });
    result.detailLabels = await page.evaluate(labelOverlaps);
    // A reload keeps the GPU open (the URL says which); Escape goes back to the node.
    await page.reload({ waitUntil: 'load' });
    await waitFor(page, 'the detail after a reload', () => document.body.dataset.ready === 'true' &&
      !document.getElementById('detail').hidden);
    await page.keyboard.press('Escape');
    await waitFor(page, 'Escape to close the detail', () => document.getElementById('detail').hidden && location.hash === '');
    result.detailClosed = true;
  }

  if (opts.ranges) {
    // Every range: asked of the server, drawn, and its labels apart.
    result.ranges = [];
    for (const seconds of opts.ranges) {
      const asked = page.waitForRequest((r) => r.url().includes(`api/v1/history?seconds=${seconds}`), { timeout: 10000 });
      await page.click(`#ranges button[data-seconds="${seconds}"]`);
      await asked;
      await waitFor(page, `the ${seconds} s range`, (s) => document.body.dataset.rangeLoaded === String(s), seconds, 20000);
      await page.waitForTimeout(300);
      const info = await page.evaluate(() => {
        const plots = GpuwatchCharts.plots();
        const points = plots.map((u) => u.data.slice(1).reduce((n, ys) => n + ys.filter((v) => v !== null && v !== undefined).length, 0));
        return { info: document.getElementById('range-info').textContent, note: document.body.dataset.rangeNote || '',
                 pressed: document.querySelector('#ranges button[aria-pressed="true"]').dataset.seconds,
                 points: Math.min(...points), hash: location.hash };
      });
      result.ranges.push({ seconds, ...info, labels: await page.evaluate(labelOverlaps) });
      if (seconds === 604800) await page.screenshot({ path: path.join(opts.outDir, `dashboard-${opts.name}-7d.png`) });
    }
  }

  if (opts.axe) result.axe = await axeViolations(page, opts.sourceDir);
});
