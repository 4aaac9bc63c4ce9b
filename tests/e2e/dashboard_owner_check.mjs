// Opens the `gpuwatch serve` dashboard in headless Chromium (playwright-core) and waits until the
// process table's owner column shows every expected text; prints one JSON object: each row's PID,
// owner cell and the owner cell's tooltip. test_attribution.py asserts on it. Exits 1 with
// {"error": ...} when the bounded wait runs out.
//   node dashboard_owner_check.mjs '{"url": URL, "chromium": PATH, "sourceDir": DIR, "expect": ["job 4821.0", ...]}'
import { createRequire } from 'node:module';
import path from 'node:path';

const opts = JSON.parse(process.argv[2]);
const require = createRequire(path.join(opts.sourceDir, 'package.json'));
const { chromium } = require('playwright-core');

const result = { rows: [], pageErrors: [] };
const browser = await chromium.launch({
  executablePath: opts.chromium,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  timeout: 30000,
});
try {
  const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  page.on('pageerror', (e) => result.pageErrors.push(String(e)));
  await page.goto(opts.url + '/', { waitUntil: 'load', timeout: 30000 });
  try {
    await page.waitForFunction((expect) => {
      const cells = Array.from(document.querySelectorAll('tr[data-pid] td.owner')).map((td) => td.textContent);
      return expect.every((text) => cells.includes(text));
    }, opts.expect, { timeout: 20000, polling: 100 });
  } catch (e) {
    result.error = 'timed out after 20000 ms waiting for the owner column to show ' + JSON.stringify(opts.expect);
  }
  result.rows = await page.evaluate(() => Array.from(document.querySelectorAll('tr[data-pid]')).map((tr) => {
    const owner = tr.querySelector('td.owner');
    return { pid: Number(tr.dataset.pid), owner: owner ? owner.textContent : null, title: owner ? owner.title : null };
  }));
} catch (e) {
  result.error = String(e);
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));
process.exit(result.error ? 1 : 0);
