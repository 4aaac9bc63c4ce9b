// The dashboard's energy panel, jobs table and GPU energy cell (issue 29) in headless Chromium
// (playwright-core, browser_page.mjs); prints one JSON object of what it saw,
// test_dashboard_energy.py asserts on it. Exits 1 with {"error": ...} when a bounded wait runs out.
//   node dashboard_energy_check.mjs '{"url": URL, "plainUrl": URL, "chromium": PATH, "sourceDir": DIR,
//                                     "outDir": DIR, "gpu": N}'
//  url:      serve with rates (price, currency, carbon intensity) and a database holding a job:
//            the panel and the GPU cell beside /api/v1/energy asked in the page just before and
//            just after the panel's own request (the energy of the range grows while serve runs),
//            the jobs table once shown (not asked before), the dialogs the page opened (a job
//            name is markup), axe-core;
//  plainUrl: serve without rates and without a database: the panel, the jobs line; then the same
//            server with /api/v1/energy and /api/v1/jobs answered 404 as by an older serve.
import path from 'node:path';

import { axeViolations, checkOptions, openPage, runCheck, waitFor } from './browser_page.mjs';

const opts = checkOptions();
const result = { requests: [], consoleErrors: [], pageErrors: [], dialogs: [] };

// What the energy panel, the jobs table and the detail's energy cell show.
function shown() {
  const section = document.getElementById('energy');
  const stats = {};
  section.querySelectorAll('#energy-stats .stat').forEach((s) => {
    stats[s.dataset.stat] = { text: s.querySelector('.stat-value').textContent, title: s.querySelector('.stat-value').title };
  });
  const rows = (table) => [...table.querySelectorAll('tbody tr')].map((tr) => ({
    data: { ...tr.dataset }, cells: [...tr.children].map((td) => td.textContent),
  }));
  const heads = (table) => [...table.querySelectorAll('thead th')].map((th) => ({ text: th.textContent, scope: th.scope }));
  const jobs = document.getElementById('jobs');
  const cell = [...document.querySelectorAll('#detail-stats .stat')]
    .find((s) => s.querySelector('.stat-label').textContent === 'Energy in range');
  const value = cell ? cell.querySelector('.stat-value') : null;
  return {
    hidden: section.hidden, updates: Number(section.dataset.updates || 0), seconds: section.dataset.seconds || '',
    scope: document.getElementById('energy-scope').textContent, stats,
    hints: document.getElementById('energy-hints').hidden ? '' : document.getElementById('energy-hints').textContent,
    sources: [...document.querySelectorAll('#energy-sources li')].map((li) => li.textContent),
    gpuHeads: heads(document.getElementById('energy-gpus')), gpuRows: rows(document.getElementById('energy-gpus')),
    jobsHidden: jobs.hidden, jobsOpen: jobs.dataset.open || '', jobsUpdates: Number(jobs.dataset.updates || 0),
    jobsToggle: { text: document.getElementById('jobs-toggle').textContent, expanded: document.getElementById('jobs-toggle').getAttribute('aria-expanded') },
    jobsNote: document.getElementById('jobs-note').hidden ? '' : document.getElementById('jobs-note').textContent,
    jobHeads: heads(document.getElementById('jobs-table')), jobRows: rows(document.getElementById('jobs-table')),
    jobCaption: document.querySelector('#jobs-table caption')?.textContent || '',
    injected: document.querySelectorAll('#jobs img, #jobs script, #energy img, #energy script').length,
    cell: value ? { text: value.textContent, title: value.title, source: value.dataset.source || '' } : null,
  };
}

function energyCellShows(unit) {
  const cell = [...document.querySelectorAll('#detail-stats .stat')]
    .find((s) => s.querySelector('.stat-label').textContent === 'Energy in range');
  return !!cell && cell.querySelector('.stat-value').textContent.includes(unit);
}

const ask = (page, url) => page.evaluate(async (u) => (await fetch(u, { cache: 'no-store' })).json(), url);

await runCheck(opts, result, async (browser) => {
  // ---- serve with rates and a recorded job ----
  const page = await openPage(browser, result, { viewport: { width: 1600, height: 1000 }, bypassCSP: true });
  page.on('dialog', (d) => { result.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  await page.goto(`${opts.url}/#gpu=${opts.gpu}`, { waitUntil: 'load', timeout: 15000 });
  await waitFor(page, 'the page to load its history', () => document.body.dataset.ready === 'true');
  await waitFor(page, 'the energy panel', () => !document.getElementById('energy').hidden &&
    Number(document.getElementById('energy').dataset.updates || 0) >= 1);
  // Shown at once (no click); hidden at a click, and still hidden after a reload (localStorage).
  await waitFor(page, 'the jobs table', () => document.querySelectorAll('#jobs tbody tr[data-job]').length >= 1, null, 15000);
  result.jobsFirst = await page.evaluate(shown);
  await page.click('#jobs-toggle');
  result.jobsClosed = await page.evaluate(shown);
  await page.reload({ waitUntil: 'load', timeout: 15000 });
  await waitFor(page, 'the page to load again', () => document.body.dataset.ready === 'true');
  result.jobsAfterReload = await page.evaluate(shown);
  await page.click('#jobs-toggle');
  await waitFor(page, 'the jobs table again', () => document.querySelectorAll('#jobs tbody tr[data-job]').length >= 1, null, 15000);
  await waitFor(page, 'the energy panel again', () => !document.getElementById('energy').hidden &&
    Number(document.getElementById('energy').dataset.updates || 0) >= 1);
  // The panel asks again for the same range at a click on it: bracket that request by two of ours.
  const updates = await page.evaluate(() => Number(document.getElementById('energy').dataset.updates));
  result.before = await ask(page, 'api/v1/energy?seconds=300');
  await page.click('#ranges button[data-seconds="300"]');
  await waitFor(page, 'the energy panel to ask again', (n) => Number(document.getElementById('energy').dataset.updates) > n, updates, 15000);
  result.after = await ask(page, 'api/v1/energy?seconds=300');
  await waitFor(page, 'the GPU\'s energy cell in Wh', energyCellShows, 'Wh', 15000);
  result.gpuBefore = await ask(page, `api/v1/energy?seconds=300&gpu=${opts.gpu}`);
  result.rates = await page.evaluate(shown);
  result.jobsAnswer = await ask(page, 'api/v1/jobs?limit=20');
  await page.screenshot({ path: path.join(opts.outDir, 'dashboard-energy.png'), fullPage: true });
  result.axe = await axeViolations(page, opts.sourceDir);
  result.consoleErrorsWithRates = result.consoleErrors.slice();

  // ---- serve without rates and without a database ----
  const plain = await openPage(browser, result, { viewport: { width: 1600, height: 1000 } });
  await plain.goto(`${opts.plainUrl}/#gpu=${opts.gpu}`, { waitUntil: 'load', timeout: 15000 });
  await waitFor(plain, 'the plain page to load', () => document.body.dataset.ready === 'true');
  await waitFor(plain, 'the plain energy panel', () =>
    !document.getElementById('energy').hidden && Number(document.getElementById('energy').dataset.updates || 0) >= 1);
  // serve --no-record: {"jobs": null, "reason"} (no failed request), a line that says why
  await waitFor(plain, 'the plain jobs line', () => !document.getElementById('jobs-note').hidden, null, 15000);
  result.consoleErrorsPlain = result.consoleErrors.slice(result.consoleErrorsWithRates.length);
  await waitFor(plain, 'the plain GPU energy cell in Wh', energyCellShows, 'Wh', 15000);
  result.plain = await plain.evaluate(shown);
  result.plainAnswer = await ask(plain, 'api/v1/energy?seconds=300');
  await plain.screenshot({ path: path.join(opts.outDir, 'dashboard-energy-plain.png'), fullPage: true });

  // ---- as an older serve: no energy or jobs route ----
  const older = await openPage(browser, result, { viewport: { width: 1600, height: 1000 } });
  result.olderAsked = 0;
  await older.route(/\/api\/v1\/(energy|jobs)(\?|$)/, (route) => {
    result.olderAsked++;
    return route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' });
  });
  await older.goto(`${opts.plainUrl}/#gpu=${opts.gpu}`, { waitUntil: 'load', timeout: 15000 });
  await waitFor(older, 'the older page to load', () => document.body.dataset.ready === 'true');
  await waitFor(older, 'the GPU energy cell computed in the page', () => {
    const v = [...document.querySelectorAll('#detail-stats .stat')]
      .find((s) => s.querySelector('.stat-label').textContent === 'Energy in range')?.querySelector('.stat-value');
    return !!v && v.dataset.source === 'page' && v.textContent.includes('Wh');
  }, null, 15000);
  const asked = result.olderAsked;
  await older.waitForTimeout(1500);  // more than one snapshot: a 404 is not asked again
  result.olderAskedAfter = result.olderAsked - asked;
  result.older = await older.evaluate(shown);
});
