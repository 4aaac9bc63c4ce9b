// The dashboard's "Findings over the range" section (issue 23, test_serve_findings_api.py): opens
// URL#range=21600 (beyond serve's ring: read from the store) in Chromium and prints, as one JSON
// line, the section's summary sentences and finding rows, and any console or page error.
// Usage: node dashboard_range_findings_check.mjs '{"url", "chromium", "sourceDir", "screenshot"}'
import { createRequire } from 'node:module';
import path from 'node:path';

const opts = JSON.parse(process.argv[2]);
const require = createRequire(path.join(opts.sourceDir, 'package.json'));
const { chromium } = require('playwright-core');

const result = { errors: [] };
const browser = await chromium.launch({
  executablePath: opts.chromium,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  timeout: 30000,
});
try {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  page.on('console', (m) => { if (m.type() === 'error') result.errors.push(m.text()); });
  page.on('pageerror', (e) => result.errors.push(String(e)));
  // First the live minute (inside the ring: the section stays hidden), then 6 hours.
  await page.goto(opts.url + '/#range=60');
  await page.waitForFunction(() => document.body.dataset.rangeLoaded === '60', null, { timeout: 20000, polling: 100 });
  result.hiddenLive = await page.evaluate(() => document.getElementById('range-findings').hidden);
  await page.click('#ranges button[data-seconds="21600"]');
  await page.waitForFunction(() => !document.getElementById('range-findings').hidden, null, { timeout: 20000, polling: 100 });
  result.summary = await page.$$eval('#range-findings-summary li', (lis) => lis.map((li) => li.textContent));
  result.rows = await page.$$eval('#range-findings-list li', (lis) => lis.map((li) => li.textContent));
  await page.locator('#range-findings').screenshot({ path: opts.screenshot });
} catch (e) {
  result.error = String(e);
}
await browser.close();
console.log(JSON.stringify(result));
