// gpuwatch serve dashboard: energy, cost and CO2 (issue 29). Three views over two routes:
//  - the "Energy" panel: for the selected range, the energy of all GPUs (Wh/kWh), its cost and
//    CO2 where serve was given rates (else "not configured" and serve's hints), the source
//    (counter / estimated from power), the idle-with-memory-held and throttled shares, one row
//    per GPU and the rates' sources; from GET /api/v1/energy?seconds=N;
//  - the "Jobs" table: the jobs `gpuwatch run` recorded in serve's database, newest first, with
//    their energy, cost, CO2, idle share and status; from GET /api/v1/jobs?limit=20. Shown unless
//    the reader hid it (the choice is kept in localStorage); serve --no-record has no database and
//    answers {"jobs": null, "reason"}: the table says why, and is not asked again;
//  - the GPU detail's "Energy in range" cell, from /api/v1/energy?seconds=N&gpu=I.
// dashboard.js says when (a new range at once, else every REFRESH_MS). A server without the
// energy route (404: an older serve) hides the panel and the cell falls back to what the page
// computes itself. Absent stays absent ("—", N/A, "not configured"), never 0. Job names and
// commands are user input: every text is set with textContent, nothing is parsed as HTML.
(function () {
  'use strict';
  var REFRESH_MS = 30000;
  var JOBS_OPEN_KEY = 'gpuwatch.dashboard.jobs';  // localStorage: "closed" while the reader keeps the jobs hidden
  var JOBS_LIMIT = 20;
  var NONE = '—';

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function has(v) { return typeof v === 'number' && isFinite(v); }

  // ---- numbers as the panel writes them (one place, so the cell, panel and table agree) ----
  function whText(joules) {
    if (!has(joules)) return NONE;
    var wh = joules / 3600;
    if (wh >= 1000) return (wh / 1000).toFixed(2) + ' kWh';
    return wh.toFixed(wh < 10 ? 2 : wh < 100 ? 1 : 0) + ' Wh';
  }
  // Three significant digits under 1 (a few minutes cost a fraction of a cent), else cents.
  function moneyText(v, currency) {
    if (!has(v)) return NONE;
    var text = v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : String(Number(v.toPrecision(3)));
    return text + (currency ? ' ' + currency : '');
  }
  function co2Text(grams) {
    if (!has(grams)) return NONE;
    if (grams >= 1000) return (grams / 1000).toFixed(2) + ' kg CO2';
    return (grams >= 100 ? grams.toFixed(0) : String(Number(grams.toPrecision(3)))) + ' g CO2';
  }
  function shareText(r) { return has(r) ? (r * 100).toFixed(r < 0.1 && r > 0 ? 1 : 0) + ' %' : NONE; }
  var SOURCE_WORDS = { counter: 'counter', estimated: 'estimated from power', mixed: 'mixed: counter and estimated from power' };
  function sourceText(s) { return SOURCE_WORDS[s] || (s ? String(s) : NONE); }
  function sourceTitle(s) {
    if (s === 'counter') return 'from the GPU\'s energy counter over the selected range';
    if (s === 'estimated') return 'estimated: the GPU has no energy counter, its power draw is integrated over the selected range';
    if (s === 'mixed') return 'from the energy counter where a GPU has one, else its power integrated over the selected range';
    return 'over the selected range';
  }
  function clockTime(s) {
    var d = new Date(s * 1000), p = function (n) { return n < 10 ? '0' + n : String(n); };
    return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + ' ' + p(d.getHours()) + ':' + p(d.getMinutes()) + ':' + p(d.getSeconds());
  }
  function wallText(s) {
    s = Math.max(0, Math.floor(s));
    if (s >= 3600) return Math.floor(s / 3600) + ' h ' + Math.floor(s % 3600 / 60) + ' min';
    if (s >= 60) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
    return s + ' s';
  }
  // "12.3 Wh · 0.0037 EUR · 4.9 g CO2": what is configured beside the energy.
  function energyLine(e) {
    if (!e || !has(e.joules)) return 'N/A';
    return [whText(e.joules), has(e.cost) ? moneyText(e.cost, e.currency) : '', has(e.co2_g) ? co2Text(e.co2_g) : '']
      .filter(Boolean).join(' · ');
  }

  function headRow(table, columns) {
    var tr = el('tr');
    columns.forEach(function (c) {
      var th = el('th', c.num ? 'num' : null, c.title);
      th.scope = 'col';
      tr.appendChild(th);
    });
    table.appendChild(el('thead')).appendChild(tr);
    return table.appendChild(el('tbody'));
  }
  function noneRow(body, colSpan, text) {
    var tr = el('tr', 'none');
    var td = tr.appendChild(el('td', null, text));
    td.colSpan = colSpan;
    body.appendChild(tr);
  }
  function caption(table, text) { table.appendChild(el('caption', 'sr-only', text)); }

  // ---- the Energy panel ----
  var GPU_COLUMNS = [{ title: 'GPU' }, { title: 'Energy', num: true }, { title: 'Share', num: true }, { title: 'Source' }];

  function stat(box, key, label, value, title) {
    var d = el('div', 'stat');
    d.dataset.stat = key;
    d.appendChild(el('span', 'stat-label', label));
    var v = d.appendChild(el('span', 'stat-value', value));
    if (title) v.title = title;
    box.appendChild(d);
    return v;
  }

  // What the panel shows for ANSWER (the body of /api/v1/energy) over SECONDS (its label: RANGE_LABEL).
  function renderPanel(els, answer, rangeLabel) {
    var e = answer.energy;
    els.scope.textContent = '(last ' + rangeLabel + (answer.origin && answer.origin.source === 'store' ? ', from the history database' : '') + ')';
    els.stats.textContent = '';
    els.hints.textContent = '';
    els.sources.textContent = '';
    els.gpus.textContent = '';
    if (!e) {
      stat(els.stats, 'energy', 'Energy', 'N/A', 'no GPU gave energy or power in this range');
      els.hints.textContent = 'No GPU gave energy or power in the last ' + rangeLabel + '.';
      els.hints.hidden = false;
      els.gpus.hidden = true;
      return;
    }
    stat(els.stats, 'energy', 'Energy', whText(e.joules), sourceTitle(e.source));
    var hints = (e.hints || []).filter(function (h) { return typeof h === 'string' && h; });
    var hintFor = function (word) { return hints.filter(function (h) { return h.indexOf(word) === 0; })[0] || ''; };
    stat(els.stats, 'cost', 'Cost', has(e.cost) ? moneyText(e.cost, e.currency) : 'not configured', has(e.cost) ? '' : hintFor('cost'));
    stat(els.stats, 'co2', 'CO2', has(e.co2_g) ? co2Text(e.co2_g) : 'not configured', has(e.co2_g) ? '' : hintFor('CO2'));
    stat(els.stats, 'source', 'Source', sourceText(e.source), sourceTitle(e.source));
    var w = e.waste || {};
    stat(els.stats, 'idle', 'Idle, memory held', shareText(w.idle_memory_held_share), 'share of the energy used while a GPU was idle with memory allocated');
    stat(els.stats, 'throttled', 'Throttled', shareText(w.throttled_share), 'share of the energy used while a GPU was throttled');
    els.hints.textContent = hints.length ? 'On serve: ' + hints.join(' · ') : '';
    els.hints.hidden = !hints.length;
    (e.sources || []).forEach(function (s) { els.sources.appendChild(el('li', null, String(s))); });
    els.sources.hidden = !els.sources.children.length;
    els.gpus.hidden = false;
    caption(els.gpus, 'Energy per GPU over the last ' + rangeLabel);
    var body = headRow(els.gpus, GPU_COLUMNS);
    var gpus = e.gpus || [];
    if (!gpus.length) noneRow(body, GPU_COLUMNS.length, 'No GPU gave energy in this range.');
    gpus.forEach(function (g) {
      var tr = el('tr');
      tr.dataset.gpu = String(g.index);
      tr.appendChild(el('td', null, 'GPU ' + g.index));
      tr.appendChild(el('td', 'num', whText(g.joules)));
      tr.appendChild(el('td', 'num', has(g.joules) && e.joules > 0 ? shareText(g.joules / e.joules) : NONE));
      var source = tr.appendChild(el('td', null, sourceText(g.source)));
      source.title = sourceTitle(g.source);
      body.appendChild(tr);
    });
  }

  // ---- the Jobs table ----
  var JOB_COLUMNS = [
    { title: 'ID', num: true }, { title: 'Name' }, { title: 'User' }, { title: 'GPUs' }, { title: 'Started' },
    { title: 'Wall', num: true }, { title: 'Energy', num: true }, { title: 'Cost', num: true }, { title: 'CO2', num: true },
    { title: 'Idle share', num: true }, { title: 'Status' }
  ];
  function commandText(c) {
    if (Array.isArray(c)) return c.map(String).join(' ');
    return typeof c === 'string' ? c : '';
  }
  function jobCells(job, nowS) {
    var summary = job.summary && typeof job.summary === 'object' ? job.summary : {};
    var energy = summary.energy && typeof summary.energy === 'object' ? summary.energy : null;
    var joules = energy && has(energy.joules) ? energy.joules : has(summary.energy_wh) ? summary.energy_wh * 3600 : null;
    var running = !has(job.end_ms);
    var lost = job.status === 'monitor lost';
    var wall = has(job.start_ms) ? ((running ? nowS * 1000 : job.end_ms) - job.start_ms) / 1000 : null;
    var gpus = Array.isArray(job.gpus) ? job.gpus.map(function (g) { return g && has(g.index) ? String(g.index) : '?'; }) : [];
    var status = has(job.exit_status) ? (job.exit_status === 0 ? 'ok (exit 0)' : 'failed (exit ' + job.exit_status + ')')
      : lost ? 'monitor lost' : running ? 'running' : NONE;
    var name = typeof job.name === 'string' && job.name ? job.name : commandText(job.command);
    return {
      id: has(job.id) ? String(job.id) : NONE,
      name: name || NONE,
      command: commandText(job.command),
      user: typeof job.user === 'string' && job.user ? job.user : NONE,
      gpus: gpus.length ? gpus.join(', ') : 'none',
      started: has(job.start_ms) ? clockTime(job.start_ms / 1000) : NONE,
      wall: has(wall) ? wallText(wall) + (running && !lost ? ' +' : '') : NONE,
      energy: whText(joules),
      cost: energy && has(energy.cost) ? moneyText(energy.cost, energy.currency) : NONE,
      co2: energy && has(energy.co2_g) ? co2Text(energy.co2_g) : NONE,
      idle: energy && energy.waste ? shareText(energy.waste.idle_memory_held_share) : NONE,
      status: status,
      state: has(job.exit_status) ? (job.exit_status === 0 ? 'ok' : 'failed') : lost ? 'lost' : running ? 'running' : 'unknown'
    };
  }
  function renderJobs(els, answer, nowS) {
    els.jobsNote.hidden = true;
    els.jobsTable.textContent = '';
    els.jobsTable.hidden = false;
    caption(els.jobsTable, 'Jobs recorded by gpuwatch run, newest first');
    var body = headRow(els.jobsTable, JOB_COLUMNS);
    var jobs = Array.isArray(answer.jobs) ? answer.jobs : [];
    if (!jobs.length) noneRow(body, JOB_COLUMNS.length, 'No jobs recorded: run one with gpuwatch run -- COMMAND.');
    jobs.forEach(function (job) {
      var c = jobCells(job, nowS), tr = el('tr');
      tr.dataset.job = c.id;
      tr.dataset.state = c.state;
      tr.appendChild(el('td', 'num', c.id));
      var name = tr.appendChild(el('td', 'cmd', c.name));
      if (c.command) name.title = c.command;
      [c.user, c.gpus, c.started].forEach(function (t) { tr.appendChild(el('td', null, t)); });
      [c.wall, c.energy, c.cost, c.co2, c.idle].forEach(function (t) { tr.appendChild(el('td', 'num', t)); });
      tr.appendChild(el('td', 'job-status', c.status));
      body.appendChild(tr);
    });
  }
  function showJobsNote(els, text) {
    els.jobsTable.textContent = '';
    els.jobsTable.hidden = true;
    els.jobsNote.textContent = text;
    els.jobsNote.hidden = false;
  }

  // A 404's {"error": ...}, or null where the body is not one (a server without the route).
  function errorOf(response) {
    return response.json().then(function (b) { return b && typeof b.error === 'string' ? b.error : null; }, function () { return null; });
  }

  function storedOpen() { try { return window.localStorage.getItem(JOBS_OPEN_KEY) !== 'closed'; } catch (e) { return true; } }
  function storeOpen(open) {
    try { if (open) window.localStorage.removeItem(JOBS_OPEN_KEY); else window.localStorage.setItem(JOBS_OPEN_KEY, 'closed'); } catch (e) { /* private mode */ }
  }

  // ELS: {section, scope, stats, hints, sources, gpus (table), jobsSection, jobsToggle, jobsBody, jobsNote, jobsTable};
  // OPTS: {nowS: () => server time in s, rangeLabel: (seconds) => text}.
  function EnergyView(els, opts) {
    this.els = els;
    this.nowS = opts.nowS;
    this.rangeLabel = opts.rangeLabel;
    this.missing = false;  // no /api/v1/energy on this server (404)
    this.jobsMissing = false;  // no /api/v1/jobs on this server (404), or no database behind it (jobs: null)
    this.panel = { busy: false, at: 0, seconds: null, wanted: null, updates: 0 };
    this.jobs = { busy: false, at: 0, updates: 0 };
    this.cells = {};       // "seconds:gpu" -> {answer, at}
    this.cellBusy = false;
    this.cellTarget = null;  // the cell shown now: {cell, seconds, gpu, fallback}
    var self = this;
    els.jobsToggle.addEventListener('click', function () { self.showJobs(els.jobsBody.hidden); });
    this.showJobs(storedOpen());
  }

  // Asks again for SECONDS when FORCE (a new range), when the range changed, or every REFRESH_MS.
  EnergyView.prototype.refresh = function (seconds, force) {
    this.refreshPanel(seconds, force);
    this.refreshJobs(force);
  };

  EnergyView.prototype.refreshPanel = function (seconds, force) {
    var self = this, p = this.panel, els = this.els;
    p.wanted = seconds;
    if (this.missing || p.busy) return;
    if (!force && p.seconds === seconds && Date.now() - p.at < REFRESH_MS) return;
    p.busy = true;
    p.at = Date.now();
    fetch('api/v1/energy?seconds=' + seconds, { cache: 'no-store' }).then(function (r) {
      if (r.status === 404) { self.missing = true; return null; }
      if (!r.ok) return r.text().then(function (t) { throw new Error('api/v1/energy: HTTP ' + r.status + ' ' + t); });
      return r.json();
    }).then(function (answer) {
      if (self.missing) { els.section.hidden = true; self.showCell(); return; }
      if (!answer) return;
      p.seconds = seconds;
      renderPanel(els, answer, self.rangeLabel(seconds));
      els.section.hidden = false;
      els.section.dataset.seconds = String(seconds);
      els.section.dataset.updates = String(++p.updates);
    }).catch(function (err) {
      els.stats.textContent = '';
      els.gpus.hidden = true;
      els.hints.textContent = String(err.message);
      els.hints.hidden = false;
      els.section.hidden = false;
    }).then(function () {
      p.busy = false;
      if (!self.missing && p.wanted !== seconds) self.refreshPanel(p.wanted, true);  // the range switched meanwhile
    });
  };

  // OPEN: show the jobs (and ask for them at once) or hide them (and ask no more).
  EnergyView.prototype.showJobs = function (open) {
    var els = this.els;
    els.jobsBody.hidden = !open;
    els.jobsToggle.setAttribute('aria-expanded', String(open));
    els.jobsToggle.textContent = open ? 'Hide' : 'Show';
    els.jobsSection.dataset.open = String(open);
    storeOpen(open);
    if (open) this.refreshJobs(true);
  };

  EnergyView.prototype.refreshJobs = function (force) {
    var self = this, j = this.jobs, els = this.els;
    if (els.jobsBody.hidden || this.jobsMissing || j.busy) return;
    if (!force && j.at && Date.now() - j.at < REFRESH_MS) return;
    j.busy = true;
    j.at = Date.now();
    fetch('api/v1/jobs?limit=' + JOBS_LIMIT, { cache: 'no-store' }).then(function (r) {
      if (r.status === 404) {
        return errorOf(r).then(function (error) {
          self.jobsMissing = true;  // neither comes back while this serve runs: not asked again
          if (error === null) { els.jobsSection.hidden = true; return; }  // an older serve
          showJobsNote(els, error.charAt(0).toUpperCase() + error.slice(1) + '.');  // serve --no-record
        });
      }
      if (r.status === 503) return;  // the database is busy: the table stays, asked again in REFRESH_MS
      if (!r.ok) return r.text().then(function (t) { throw new Error('api/v1/jobs: HTTP ' + r.status + ' ' + t); });
      return r.json().then(function (answer) {
        if (answer && answer.jobs === null) {  // serve --no-record: nothing recorded, and nothing will be
          self.jobsMissing = true;
          var reason = typeof answer.reason === 'string' ? answer.reason : 'no history database';
          showJobsNote(els, reason.charAt(0).toUpperCase() + reason.slice(1) + '.');
          return;
        }
        renderJobs(els, answer, self.nowS());
      });
    }).catch(function (err) {
      showJobsNote(els, String(err.message));
    }).then(function () {
      j.busy = false;
      els.jobsSection.dataset.updates = String(++j.updates);
    });
  };

  // The GPU detail's "Energy in range" cell: CELL (rebuilt with each snapshot) for GPU over
  // SECONDS. What was asked is kept for REFRESH_MS; FALLBACK(cell) fills it where the server has
  // no energy route.
  EnergyView.prototype.gpuCell = function (cell, seconds, gpu, fallback) {
    this.cellTarget = { cell: cell, seconds: seconds, gpu: gpu, fallback: fallback };
    this.showCell();
    if (this.missing || this.cellBusy) return;
    var key = seconds + ':' + gpu, held = this.cells[key];
    if (held && Date.now() - held.at < REFRESH_MS) return;
    var self = this;
    this.cellBusy = true;
    fetch('api/v1/energy?seconds=' + seconds + '&gpu=' + gpu, { cache: 'no-store' }).then(function (r) {
      if (r.status === 404) { self.missing = true; self.els.section.hidden = true; return; }
      if (!r.ok) return r.text().then(function (t) { throw new Error('HTTP ' + r.status + ' ' + t); });
      return r.json().then(function (answer) { self.cells[key] = { answer: answer, at: Date.now() }; });
    }).catch(function (err) {
      self.cells[key] = { error: String(err.message), at: Date.now() };
    }).then(function () {
      self.cellBusy = false;
      var t = self.cellTarget;
      if (t && t.seconds + ':' + t.gpu !== key) self.gpuCell(t.cell, t.seconds, t.gpu, t.fallback);  // moved on meanwhile
      else self.showCell();
    });
  };

  EnergyView.prototype.showCell = function () {
    var t = this.cellTarget;
    if (!t || !t.cell) return;
    if (this.missing) { t.cell.dataset.source = 'page'; t.fallback(t.cell); return; }
    var held = this.cells[t.seconds + ':' + t.gpu];
    if (!held) { if (!t.cell.textContent) t.cell.textContent = '…'; return; }
    if (held.error) { t.cell.textContent = 'N/A'; t.cell.title = held.error; return; }
    var e = held.answer.energy;
    var text = energyLine(e);
    if (t.cell.textContent !== text) t.cell.textContent = text;
    t.cell.title = e ? sourceTitle(e.source) + (e.source ? ' (' + sourceText(e.source) + ')' : '') : 'no energy or power read from this GPU in the selected range';
    t.cell.dataset.source = e && e.source ? e.source : 'none';
  };

  window.GpuwatchEnergy = {
    EnergyView: EnergyView, whText: whText, moneyText: moneyText, co2Text: co2Text, shareText: shareText,
    energyLine: energyLine, jobCells: jobCells, REFRESH_MS: REFRESH_MS
  };
})();
