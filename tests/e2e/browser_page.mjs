// The browser start-up the dashboard checks share (dashboard_v2_check.mjs, dashboard_host_check.mjs,
// dashboard_energy_check.mjs): Debian's Chromium through playwright-core, headless, no name
// resolution beyond 127.0.0.1; a page that records its requests, console errors and page errors
// into the check's result; bounded waits that say what they waited for; axe-core's violations;
// and the end every check has: one JSON line on stdout, exit 1 with {"error": ...} on failure.
//   const opts = checkOptions();           // the JSON of argv[2]: url, chromium, sourceDir, outDir, ...
//   await runCheck(opts, result, async (browser) => { const page = await openPage(browser, result, {...}); ... });
import { createRequire } from 'node:module';
import path from 'node:path';

export function checkOptions() {
  return JSON.parse(process.argv[2]);
}

export async function launchBrowser(opts) {
  const require = createRequire(path.join(opts.sourceDir, 'package.json'));
  const { chromium } = require('playwright-core');
  return chromium.launch({
    executablePath: opts.chromium,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
    timeout: 30000,
  });
}

// A page in a new context (CONTEXT_OPTIONS: viewport, colorScheme, bypassCSP ...) whose requests
// and errors go into RESULT.requests, RESULT.consoleErrors and RESULT.pageErrors.
export async function openPage(browser, result, contextOptions) {
  const context = await browser.newContext(contextOptions);
  const page = await context.newPage();
  page.on('request', (r) => result.requests.push(r.url()));
  page.on('console', (m) => { if (m.type() === 'error') result.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => result.pageErrors.push(String(e)));
  return page;
}

export async function waitFor(page, what, fn, arg, timeout = 30000) {
  try {
    await page.waitForFunction(fn, arg, { timeout, polling: 100 });
  } catch (e) {
    throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
  }
}

// axe-core's violations of the page as it is now (the context needs bypassCSP to take the script).
export async function axeViolations(page, sourceDir) {
  await page.addScriptTag({ path: path.join(sourceDir, 'node_modules', 'axe-core', 'axe.min.js') });
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
}

// Runs BODY(browser), then prints RESULT as one JSON line; on an error, with RESULT.error set, and exits 1.
export async function runCheck(opts, result, body) {
  const browser = await launchBrowser(opts);
  try {
    await body(browser);
    await browser.close();
    console.log(JSON.stringify(result));
  } catch (e) {
    result.error = String(e && e.message ? e.message : e);
    await browser.close();
    console.log(JSON.stringify(result));
    process.exit(1);
  }
}
