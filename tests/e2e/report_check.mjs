// Opens a `gpuwatch report -o` page from disk in headless Chromium with playwright-core and prints
// one JSON object of what it saw (tests/e2e/test_report_browser.py asserts on it). Exits 1 with
// {"error": ...} when a bounded wait runs out.
//   node report_check.mjs '{"file": PATH, "chromium": PATH, "sourceDir": DIR, "screenshot": FILE,
//                           "width": 1920, "height": 1080}'
// It reports: the requests made (file: only, nothing else), console and page errors, the charts
// drawn, the page's height, the text boxes that overlap inside each chart (title, legend, axis
// labels drawn as DOM), the sections in order, axe-core's serious and critical violations, and in
// dark mode the page's and a chart's background and how bright the chart's axis text is.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const opts = JSON.parse(process.argv[2]);
const require = createRequire(path.join(opts.sourceDir, 'package.json'));  // GPUWATCH_SOURCE_DIR/node_modules
const { chromium } = require('playwright-core');
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const result = { requests: [], consoleErrors: [], pageErrors: [] };
const browser = await chromium.launch({
  executablePath: opts.chromium,
  // root in CI: no sandbox; every host name resolves nowhere, so a remote asset could not load.
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--host-resolver-rules=MAP * ~NOTFOUND'],
  timeout: 30000,
});

async function waitFor(page, what, fn, arg, timeout = 15000) {
  try {
    await page.waitForFunction(fn, arg, { timeout, polling: 100 });
  } catch (e) {
    throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
  }
}

// Pairs of text boxes that overlap (by more than a pixel each way) among the elements SELECTOR
// finds inside each element ROOTS finds.
function overlapsIn(roots, selector) {
  const found = [];
  for (const root of document.querySelectorAll(roots)) {
    const boxes = [...root.querySelectorAll(selector)]
      .filter((e) => e.offsetParent !== null && e.textContent.trim() !== '')
      .map((e) => ({ text: e.textContent.trim(), r: e.getBoundingClientRect() }))
      .filter((b) => b.r.width > 0 && b.r.height > 0);
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].r, b = boxes[j].r;
        const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (x > 1 && y > 1) found.push([boxes[i].text, boxes[j].text]);
      }
    }
  }
  return found;
}

try {
  const page = await browser.newPage({ viewport: { width: opts.width || 1920, height: opts.height || 1080 } });
  let dark = false;  // the requests of the dark-mode reload are kept apart (darkRequests)
  result.darkRequests = [];
  page.on('request', (r) => (dark ? result.darkRequests : result.requests).push(r.url()));
  page.on('console', (m) => { if (m.type() === 'error') result.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => result.pageErrors.push(String(e)));
  await page.goto('file://' + opts.file, { waitUntil: 'load', timeout: 15000 });
  await waitFor(page, 'the charts', () => document.body.dataset.chartsReady === 'true');
  result.nodeCharts = await page.evaluate(() => [...document.querySelectorAll('div.node-chart')].map((box) => ({
    series: box.dataset.series,
    title: box.querySelector('.u-title') ? box.querySelector('.u-title').textContent : null,
    canvas: box.querySelector('.uplot canvas') !== null,
    legend: [...box.querySelectorAll('.u-legend .u-series .u-label')].map((e) => e.textContent),
  })));
  result.sections = await page.evaluate(() => [...document.querySelectorAll('main > section')].map((s) => s.className));
  result.summary = await page.evaluate(() => [...document.querySelectorAll('.summary-line')].map((e) => e.textContent));
  result.timeline = await page.evaluate(() => [...document.querySelectorAll('tr.event')].map((e) => ({
    kind: e.dataset.kind, cells: [...e.querySelectorAll('td')].map((td) => td.textContent) })));
  result.pageHeight = await page.evaluate(() => document.documentElement.scrollHeight);
  // Above the fold at this size: where the summary ends (its bottom, in pixels from the top).
  result.summaryBottom = await page.evaluate(() => {
    const s = document.querySelector('section.summary');
    return s ? s.getBoundingClientRect().bottom + window.scrollY : null;
  });
  result.overlaps = await page.evaluate(overlapsIn, ['.uplot', '.u-title, .u-legend .u-label, .u-legend .u-value']);
  result.headerOverlaps = await page.evaluate(overlapsIn, ['main', 'h1, h2, .range']);
  result.chartsDrawn = Number(await page.evaluate(() => document.body.dataset.chartsDrawn));
  if (opts.screenshot) await page.screenshot({ path: opts.screenshot, fullPage: true });
  // axe-core over the page as it opens (each GPU's charts collapsed).
  await page.addScriptTag({ content: axeSource });
  result.axe = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  // Opening one GPU draws its own charts.
  const before = result.chartsDrawn;
  await page.evaluate(() => { document.querySelector('details.gpu-detail').open = true; });
  await waitFor(page, 'the GPU charts', (n) => Number(document.body.dataset.chartsDrawn) > n, before);
  result.gpuChartsDrawn = Number(await page.evaluate(() => document.body.dataset.chartsDrawn)) - before;
  result.gpuOverlaps = await page.evaluate(overlapsIn, ['details.gpu-detail .uplot', '.u-title, .u-legend .u-label, .u-legend .u-value']);
  // Dark mode (prefers-color-scheme): the charts follow the page, with light axis text on it.
  dark = true;
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.reload({ waitUntil: 'load', timeout: 15000 });
  await waitFor(page, 'the charts in dark mode', () => document.body.dataset.chartsReady === 'true');
  result.dark = await page.evaluate(() => {
    const canvas = document.querySelector('div.node-chart .uplot canvas');
    const ctx = canvas.getContext('2d');
    // The y axis' labels: the brightest opaque pixel in the canvas' left strip (light text on dark).
    const strip = ctx.getImageData(0, 0, Math.min(60, canvas.width), canvas.height).data;
    let brightest = 0;
    for (let i = 0; i < strip.length; i += 4) {
      if (strip[i + 3] > 128) brightest = Math.max(brightest, (strip[i] + strip[i + 1] + strip[i + 2]) / 3);
    }
    return { page: getComputedStyle(document.body).backgroundColor, canvas: getComputedStyle(canvas).backgroundColor,
             axisTextBrightness: brightest };
  });
  if (opts.screenshot) await page.screenshot({ path: opts.screenshot.replace(/\.png$/, '-dark.png'), fullPage: true });
  console.log(JSON.stringify(result));
} catch (e) {
  console.log(JSON.stringify({ error: String(e.message || e), ...result }));
  process.exitCode = 1;
} finally {
  await browser.close();
}
