// gpuwatch serve dashboard: the node overview (one row per GPU) and the panel of findings and
// firing alerts above it, rendered from /api/v1/snapshot. Pure rendering: dashboard.js owns the
// data and calls these. A GPU with a finding (warning or worse) or a firing alert is not OK: its
// row is coloured, badged and says why in one line.
(function () {
  'use strict';
  var GIB = 1024 * 1024 * 1024;
  var RANK = { critical: 0, warning: 1, info: 2, ok: 3 };

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function has(v) { return v !== null && v !== undefined; }
  // Writes only what changed: an unchanged page costs no style or layout work.
  function setText(e, text) { if (e.textContent !== text) e.textContent = text; }
  function setData(e, key, value) { if (e.dataset[key] !== value) e.dataset[key] = value; }
  function setTitle(e, text) { if (e.title !== text) e.title = text; }
  function fixed(v, d) { return has(v) ? v.toFixed(d) : 'N/A'; }
  function shortName(name) { return (name || 'unknown GPU').replace(/^NVIDIA /, ''); }
  // issue 28: a node with an AMD or Intel GPU tags every GPU with its vendor ("amd"); one of NVIDIA
  // GPUs alone shows what it always showed.
  function namesVendors(gpus) { return (gpus || []).some(function (g) { return g.vendor && g.vendor !== 'nvidia'; }); }

  // What is wrong with GPU, worst first: [{severity, text, source: 'finding' | 'alert'}].
  function troubles(gpu) {
    var out = [];
    (gpu.findings || []).forEach(function (f) {
      if (f.severity === 'warning' || f.severity === 'critical') out.push({ severity: f.severity, text: f.summary, source: 'finding' });
    });
    (gpu.alerts || []).forEach(function (a) {
      if (a.state === 'firing') out.push({ severity: a.severity === 'critical' ? 'critical' : 'warning', text: 'alert ' + a.name + ': ' + a.summary, source: 'alert' });
    });
    out.sort(function (a, b) { return RANK[a.severity] - RANK[b.severity]; });
    return out;
  }

  // [state, badge text, one-line reason] of GPU.
  function health(gpu) {
    if (gpu.state === 'not_sampled') return ['waiting', 'WAITING', 'no sample yet'];
    if (gpu.state !== 'ok') return [gpu.state, gpu.state.toUpperCase(), 'GPU ' + gpu.state + (gpu.error ? ': ' + gpu.error : '')];
    if (!gpu.up) return ['stale', 'STALE', 'no fresh sample for ' + fixed(gpu.sample_age_seconds, 0) + ' s: the driver does not answer'];
    var t = troubles(gpu);
    if (!t.length) return ['ok', 'OK', ''];
    return [t[0].severity, t[0].severity.toUpperCase(), t[0].text + (t.length > 1 ? ' (+' + (t.length - 1) + ' more)' : '')];
  }

  // A bar with its value in words: FRACTION of 1, LEVEL 'ok' | 'warn' | 'bad'.
  function bar(cell, fraction, text, level) {
    if (!cell.firstChild) {  // built once, then only updated
      var wrap = el('div', 'meter');
      wrap.appendChild(el('span', 'meter-fill'));
      cell.appendChild(wrap);
      cell.appendChild(el('span', 'meter-text'));
    }
    var fill = cell.firstChild.firstChild;
    var width = has(fraction) ? Math.max(0, Math.min(100, fraction * 100)).toFixed(1) + '%' : '0';
    if (fill.style.width !== width) fill.style.width = width;
    setData(fill, 'level', level || 'ok');
    setText(cell.lastChild, text);
    setData(cell, 'level', level || 'ok');
  }

  // Thresholds (the same as status): temperature against the slowdown point, memory and power by share.
  function tempLevel(t, slowdown) {
    if (!has(t)) return 'ok';
    if (has(slowdown)) return t >= slowdown - 2 ? 'bad' : t >= slowdown - 10 ? 'warn' : 'ok';
    return t >= 85 ? 'bad' : t >= 75 ? 'warn' : 'ok';
  }
  function shareLevel(f, warn, bad) { return !has(f) ? 'ok' : f >= bad ? 'bad' : f >= warn ? 'warn' : 'ok'; }
  function throttled(gpu) {
    var m = gpu.clocks_event_reasons_active;
    return has(m) && (m & (0x04 | 0x08 | 0x20 | 0x40 | 0x80)) !== 0;
  }

  var COLUMNS = ['GPU', 'Name', 'Health', 'Utilization', 'Memory', 'Temperature', 'Power', 'SM clock', 'Procs'];

  function Overview(table, onOpen) {
    this.table = table;
    this.rows = {};
    this.onOpen = onOpen;
    var head = el('tr');
    COLUMNS.forEach(function (c) { var th = el('th', null, c); th.scope = 'col'; head.appendChild(th); });
    table.appendChild(el('thead')).appendChild(head);
    this.body = table.appendChild(el('tbody'));
  }

  Overview.prototype.rebuild = function (indices) {
    var self = this;
    this.body.textContent = '';
    this.rows = {};
    indices.forEach(function (i) {
      var tr = el('tr', 'gpu-row');
      tr.dataset.gpu = String(i);
      var idx = el('td', 'idx');
      var link = el('a', 'gpu-link', String(i));
      link.href = '#gpu=' + i;
      link.setAttribute('aria-label', 'GPU ' + i + ': details');
      idx.appendChild(link);
      tr.appendChild(idx);
      var cells = { name: el('td', 'name'), health: el('td', 'health'), util: el('td', 'util'), mem: el('td', 'mem'),
                    temp: el('td', 'temp'), power: el('td', 'power'), clock: el('td', 'clock'), procs: el('td', 'procs num') };
      cells.vendor = cells.name.appendChild(el('span', 'vendor'));
      cells.nameText = cells.name.appendChild(el('span', 'name-text'));
      cells.badge = cells.health.appendChild(el('span', 'badge'));
      cells.reason = cells.health.appendChild(el('span', 'reason'));
      cells.spark = cells.util.appendChild(el('canvas', 'spark'));
      cells.spark.setAttribute('aria-hidden', 'true');
      cells.utilText = cells.util.appendChild(el('span', 'util-text'));
      Object.keys(cells).forEach(function (k) { if (cells[k].tagName === 'TD') tr.appendChild(cells[k]); });
      tr.addEventListener('click', function (e) { if (e.target.tagName !== 'A') self.onOpen(i); });
      self.body.appendChild(tr);
      self.rows[i] = { tr: tr, cells: cells };
    });
  };

  Overview.prototype.render = function (gpu, tagVendor) {
    var row = this.rows[gpu.index];
    if (!row) return;
    var c = row.cells, h = health(gpu);
    setData(row.tr, 'state', h[0]);
    setData(row.tr, 'vendor', gpu.vendor || 'nvidia');
    setText(c.vendor, tagVendor ? gpu.vendor || 'nvidia' : '');
    setText(c.nameText, shortName(gpu.name));
    setTitle(c.name, [gpu.name, gpu.uuid, gpu.pci_bus_id].filter(Boolean).join('\n'));
    setText(c.badge, h[1]);
    setData(c.badge, 'state', h[0]);
    setText(c.reason, h[2]);
    setTitle(c.reason, h[2]);
    var up = gpu.up && gpu.state === 'ok';
    setText(c.utilText, up && has(gpu.utilization_gpu_ratio) ? (gpu.utilization_gpu_ratio * 100).toFixed(0) + ' %' : 'N/A');
    var used = gpu.memory_used_bytes, total = gpu.memory_total_bytes;
    var memShare = has(used) && has(total) && total > 0 ? used / total : null;
    bar(c.mem, memShare, has(used) ? fixed(used / GIB, 1) + ' / ' + fixed(has(total) ? total / GIB : null, 0) + ' GiB' : 'N/A',
        shareLevel(memShare, 0.9, 0.97));
    var t = gpu.temperature_gpu_c, slow = gpu.temperature_gpu_slowdown_c;
    bar(c.temp, has(t) ? t / (has(slow) ? slow : 100) : null, has(t) ? t + (has(slow) ? ' / ' + slow : '') + ' °C' : 'N/A',
        tempLevel(t, slow));
    var p = gpu.power_draw_w, limit = has(gpu.enforced_power_limit_w) ? gpu.enforced_power_limit_w : gpu.power_limit_w;
    var pShare = has(p) && has(limit) && limit > 0 ? p / limit : null;
    bar(c.power, pShare, has(p) ? fixed(p, 0) + ' / ' + fixed(limit, 0) + ' W' : 'N/A', shareLevel(pShare, 0.95, 1.02));
    var sm = gpu.clocks_current_sm_hz, smMax = gpu.clocks_max_sm_hz;
    bar(c.clock, has(sm) && has(smMax) && smMax > 0 ? sm / smMax : null,
        has(sm) ? fixed(sm / 1e6, 0) + (has(smMax) ? ' / ' + fixed(smMax / 1e6, 0) : '') + ' MHz' + (throttled(gpu) ? ' ▼' : '') : 'N/A',
        throttled(gpu) ? 'warn' : 'ok');
    setTitle(c.clock, throttled(gpu) ? 'the clocks are held down (see the throttle strip under the clock charts)' : '');
    setText(c.procs, gpu.processes ? String(gpu.processes.length) : 'N/A');
  };

  Overview.prototype.sparkline = function (index, columns, from, to) {
    var row = this.rows[index];
    if (!row) return;
    window.GpuwatchCharts.sparkline(row.cells.spark, columns.t, columns.v.utilization_gpu_ratio || [], from, to,
                                    window.GpuwatchCharts.gpuColor(index));
  };

  // The panel above the overview: every active finding (warning or worse) and firing alert,
  // worst first, each linking to its GPU(s).
  function renderTrouble(list, summary, snap) {
    var items = [];
    (snap.findings || []).forEach(function (f) {
      if (f.active === false || (f.severity !== 'warning' && f.severity !== 'critical')) return;
      items.push({ severity: f.severity, gpus: f.gpus || [], text: f.summary, kind: 'finding', title: f.detail || '',
                   advice: f.advice || [], findingKind: f.kind || '' });
    });
    (snap.alerts || []).forEach(function (a) {
      if (a.state !== 'firing') return;
      var text = (a.annotations && a.annotations.summary) || a.name;
      items.push({ severity: a.severity === 'critical' ? 'critical' : 'warning', gpus: has(a.gpu) ? [a.gpu] : [],
                   text: 'alert ' + a.name + ': ' + text, kind: 'alert', title: (a.annotations && a.annotations.description) || '' });
    });
    items.sort(function (a, b) { return RANK[a.severity] - RANK[b.severity]; });
    var key = JSON.stringify(items);
    if (list.dataset.key === key) return;
    list.dataset.key = key;
    list.textContent = '';
    summary.textContent = items.length ? items.length + (items.length === 1 ? ' problem' : ' problems') : 'all clear';
    summary.dataset.state = items.length ? items[0].severity : 'ok';
    if (!items.length) {
      list.appendChild(el('li', 'none', 'No findings and no firing alerts: every GPU looks healthy.'));
      return;
    }
    items.forEach(function (it) {
      var li = el('li', 'trouble');
      li.dataset.severity = it.severity;
      li.dataset.kind = it.kind;
      li.appendChild(el('span', 'badge', it.severity.toUpperCase())).dataset.state = it.severity;
      it.gpus.forEach(function (g) {
        var a = el('a', 'gpu-link', 'GPU ' + g);
        a.href = '#gpu=' + g;
        li.appendChild(a);
      });
      if (!it.gpus.length) li.appendChild(el('span', 'node-wide', 'node'));
      var text = li.appendChild(el('span', 'trouble-text', it.text));
      if (it.title) text.title = it.title;
      if (it.findingKind) li.dataset.finding = it.findingKind;
      if (it.advice && it.advice.length) li.appendChild(adviceLine(it.advice));
      list.appendChild(li);
    });
  }

  // A finding's "try:" lines (the CLI's and the report's advice) on one line under it, each its own
  // span; the whole list in the tooltip (the GPU's detail lists them one per line).
  function adviceLine(advice) {
    var line = el('span', 'advice');
    line.appendChild(el('span', 'advice-label', 'try:'));
    advice.forEach(function (a, i) {
      if (i) line.appendChild(el('span', 'advice-sep', ' · '));
      line.appendChild(el('span', 'advice-item', a));
    });
    line.title = advice.map(function (a) { return 'try: ' + a; }).join('\n');
    return line;
  }

  // The GPU detail's advice: each active finding of GPU (worst first) with its "try:" lines.
  function renderAdvice(box, snap, index) {
    var findings = (snap.findings || []).filter(function (f) {
      return f.active !== false && (f.gpus || []).indexOf(index) >= 0 && (f.advice || []).length;
    });
    findings.sort(function (a, b) { return (RANK[a.severity] === undefined ? 3 : RANK[a.severity]) - (RANK[b.severity] === undefined ? 3 : RANK[b.severity]); });
    var key = JSON.stringify(findings.map(function (f) { return [f.kind, f.severity, f.summary, f.advice]; }));
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.textContent = '';
    box.hidden = !findings.length;
    findings.forEach(function (f) {
      var block = el('div', 'advice-block');
      block.dataset.finding = f.kind || '';
      block.dataset.severity = f.severity;
      block.appendChild(el('p', 'advice-for', f.summary));
      var list = block.appendChild(el('ul', 'advice-list'));
      f.advice.forEach(function (a) {
        var li = list.appendChild(el('li'));
        li.appendChild(el('span', 'advice-label', 'try:'));
        li.appendChild(document.createTextNode(' '));
        li.appendChild(el('span', 'advice-item', a));
      });
      box.appendChild(block);
    });
  }

  window.GpuwatchOverview = { Overview: Overview, renderTrouble: renderTrouble, renderAdvice: renderAdvice, health: health,
                              namesVendors: namesVendors,
                              troubles: troubles };
})();
