// Loads the `gpuwatch serve` dashboard once, right after a restart, in headless Chromium
// (playwright-core) and prints one JSON object of what it showed and when; the Python side
// (test_serve_restart_continuity.py) asserts on it. Exits 1 with {"error": ...} when a bounded
// wait runs out.
//   node restart_continuity_check.mjs '{"url": URL, "chromium": PATH, "sourceDir": DIR,
//                                       "problems": [{"kind": "memory_leak", "gpu": 6}, ...], "deadlineMs": 1000,
//                                       "screenshot": PATH | null}'
// The clock starts when the page has loaded (its `load` event); within deadlineMs each problem must
// be in the findings panel, on its GPU, with its "try:" lines, and the GPU's detail (#gpu=N, the
// first problem's) must list the advice too.
import { createRequire } from 'node:module';
import path from 'node:path';

const opts = JSON.parse(process.argv[2]);
const require = createRequire(path.join(opts.sourceDir, 'package.json'));
const { chromium } = require('playwright-core');

const result = { consoleErrors: [], pageErrors: [], requests: [] };
const browser = await chromium.launch({
  executablePath: opts.chromium,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  timeout: 30000,
});

// What the page shows of each problem: the panel's item (its GPU links, text, advice items) and the
// detail's advice block of that kind, if the detail is open on its GPU.
function shown(problems) {
  return problems.map((p) => {
    const items = [...document.querySelectorAll('#trouble-list li.trouble')].filter((li) =>
      li.dataset.finding === p.kind && [...li.querySelectorAll('a.gpu-link')].some((a) => a.textContent === 'GPU ' + p.gpu));
    const li = items[0];
    const block = document.body.dataset.detail === String(p.gpu)
      ? document.querySelector(`#detail-advice .advice-block[data-finding="${p.kind}"]`) : null;
    return {
      kind: p.kind,
      gpu: p.gpu,
      panel: li ? {
        text: li.querySelector('.trouble-text').textContent,
        advice: [...li.querySelectorAll('.advice .advice-item')].map((s) => s.textContent),
        adviceLine: li.querySelector('.advice') ? li.querySelector('.advice').textContent : '',
        // Text only: every advice item is a text node, never markup from the data.
        markupInAdvice: [...li.querySelectorAll('.advice .advice-item')].some((s) => s.children.length > 0),
      } : null,
      detail: block ? [...block.querySelectorAll('.advice-list li')].map((l) => l.textContent) : null,
      detailVisible: block ? !document.getElementById('detail-advice').hidden : false,
    };
  });
}

try {
  const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  page.on('console', (m) => { if (m.type() === 'error') result.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => result.pageErrors.push(String(e)));
  page.on('request', (r) => result.requests.push(r.url()));
  await page.addInitScript(`window.__shown = ${shown.toString()};`);  // for the waits, in the page
  const detailGpu = opts.problems[0].gpu;
  await page.goto(`${opts.url}/#gpu=${detailGpu}`, { waitUntil: 'load', timeout: 20000 });
  const loaded = Date.now();
  const complete = (problems) => window.__shown(problems).every((s) => s.panel && s.panel.advice.length > 0) &&
    window.__shown(problems).filter((s) => s.gpu === Number(document.body.dataset.detail))
      .every((s) => s.detail && s.detail.length > 0);
  try {
    await page.waitForFunction(complete, opts.problems, { timeout: opts.deadlineMs, polling: 20 });
    result.withinMs = Date.now() - loaded;
  } catch (e) {
    result.withinMs = null;  // not within the deadline: what it showed then tells why
  }
  result.shown = await page.evaluate(shown, opts.problems);
  if (opts.screenshot) await page.screenshot({ path: opts.screenshot, fullPage: true });
  result.summary = await page.evaluate(() => document.getElementById('trouble-summary').textContent);
  result.panel = await page.evaluate(() => document.getElementById('trouble-list').textContent);
  // The other problem's GPU detail, opened as a person would (its link in the panel).
  const other = opts.problems.find((p) => p.gpu !== detailGpu);
  if (other) {
    await page.evaluate((g) => { location.hash = 'gpu=' + g; }, other.gpu);
    await page.waitForFunction((p) => document.body.dataset.detail === String(p.gpu) &&
      document.querySelector(`#detail-advice .advice-block[data-finding="${p.kind}"] .advice-list li`), other, { timeout: 5000 })
      .catch(() => {});
    result.otherDetail = (await page.evaluate(shown, [other]))[0];
  }
  console.log(JSON.stringify(result));
} catch (e) {
  result.error = String(e && e.stack || e);
  console.log(JSON.stringify(result));
  process.exitCode = 1;
} finally {
  await browser.close();
}
