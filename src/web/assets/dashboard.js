// gpuwatch serve dashboard (GET /): per-GPU cards with uPlot charts (dashboard_charts.js) and
// the process table. Data: /api/v1/history?seconds=N once per range (and after a reconnect),
// then the server-sent events of /api/v1/events appended live; /api/v1/snapshot every few
// seconds for each GPU's identity, state (ok / stale / lost) and processes. All URLs are
// relative: only this server is ever asked. null stays null (a gap, "N/A"), never 0.
(function () {
  'use strict';
  var Charts = window.GpuwatchCharts;
  var SNAPSHOT_EVERY_MS = 3000;
  var GIB = 1024 * 1024 * 1024;
  var state = {
    seconds: 300,         // the selected range
    gpus: {},             // index -> {card, charts, t: [], v: {field: []}, dirty}
    order: [],            // GPU indices in page order
    intervalS: 1,         // sampling interval (from /api/v1/history)
    resolutionS: 0,       // of older data read from a store, when the server says so
    clockOffsetS: null,   // server clock - this browser's clock (from the snapshot)
    historyToken: 0, loading: false, pending: [],
    events: 0, stream: null, streamOk: false, serverOk: true, wasDown: false, started: false
  };

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function num(v, decimals, unit) {
    return v === null || v === undefined ? 'N/A' : v.toFixed(decimals) + (unit ? ' ' + unit : '');
  }
  function fetchJson(url) {
    return fetch(url, { cache: 'no-store' }).then(function (r) {
      if (!r.ok) return r.text().then(function (t) { throw new Error(url + ': HTTP ' + r.status + ' ' + t); });
      return r.json();
    });
  }
  function serverNow() { return Date.now() / 1000 + (state.clockOffsetS || 0); }
  function visibleRange() { var now = serverNow(); return [now - state.seconds, now]; }
  function maxGapS() { return 3 * Math.max(state.intervalS, state.resolutionS || 0, 0.1); }
  function rangeLabel(seconds) {
    if (seconds % 86400 === 0) return seconds / 86400 + ' d';
    if (seconds % 3600 === 0) return seconds / 3600 + ' h';
    if (seconds % 60 === 0) return seconds / 60 + ' min';
    return seconds + ' s';
  }

  // ---- connection status ----
  function showConnection() {
    var c = document.getElementById('connection');
    var banner = document.getElementById('banner');
    var s, text;
    if (!state.serverOk) {
      s = 'disconnected'; text = 'disconnected';
      banner.textContent = 'Disconnected: the gpuwatch server at ' + location.host +
        ' does not answer. The charts are frozen at their last sample; retrying every few seconds.';
    } else if (state.streamOk) {
      s = 'live'; text = 'live';
    } else if (state.started) {
      s = 'polling'; text = 'polling (no live stream)';
    } else {
      s = 'connecting'; text = 'connecting…';
    }
    banner.hidden = state.serverOk;
    c.dataset.state = s;
    c.textContent = text;
    document.body.classList.toggle('offline', !state.serverOk);
  }

  function connectEvents() {
    if (state.stream) state.stream.close();
    var es = new EventSource('api/v1/events');
    state.stream = es;
    es.addEventListener('open', function () {
      state.streamOk = true;
      state.serverOk = true;
      if (state.wasDown) {  // the server may have restarted: read everything again
        state.wasDown = false;
        state.clockOffsetS = null;
        refreshSnapshot().then(loadHistory);
      }
      showConnection();
    });
    es.addEventListener('sample', function (e) {
      var row = JSON.parse(e.data);
      state.events++;
      document.body.dataset.sseEvents = String(state.events);
      if (state.loading) state.pending.push(row); else appendRow(row);
    });
    es.addEventListener('error', function () {
      state.streamOk = false;
      state.wasDown = true;
      if (es.readyState === EventSource.CLOSED) {  // refused (e.g. 503: too many streams): retry ourselves
        setTimeout(function () { if (state.stream === es) connectEvents(); }, 5000);
      }
      refreshSnapshot();  // tells "server gone" from "stream dropped" at once
      showConnection();
    });
  }

  // ---- data ----
  function emptyColumns(g) {
    g.t = [];
    g.v = {};
    Charts.FIELDS.forEach(function (f) { g.v[f] = []; });
  }
  function appendRow(row) {
    var g = state.gpus[row.gpu];
    if (!g || (g.t.length && row.timestamp_s <= g.t[g.t.length - 1])) return;
    g.t.push(row.timestamp_s);
    Charts.FIELDS.forEach(function (f) { g.v[f].push(row[f] === undefined ? null : row[f]); });
    g.dirty = true;
  }
  // Drops rows older than the range (keeping one just before it, so the line enters the chart).
  function trim(g, from) {
    var drop = 0;
    while (drop + 1 < g.t.length && g.t[drop + 1] < from) drop++;
    if (drop === 0) return;
    g.t.splice(0, drop);
    Charts.FIELDS.forEach(function (f) { g.v[f].splice(0, drop); });
  }

  // Without the event stream (refused: too many viewers, or reconnecting) the recent rows are
  // polled from the history instead, so the charts keep moving.
  function pollRecent() {
    if (state.loading) return;
    var newest = serverNow() - state.seconds;  // the latest sample held (a lost GPU's is old: not it)
    state.order.forEach(function (i) {
      var t = state.gpus[i].t;
      if (t.length) newest = Math.max(newest, t[t.length - 1]);
    });
    var since = newest - 5 * state.intervalS;  // a little overlap: appendRow drops what is held
    var seconds = Math.min(state.seconds, Math.max(1, Math.ceil(serverNow() - since)));
    fetchJson('api/v1/history?seconds=' + seconds).then(function (h) {
      if (state.streamOk || state.loading) return;  // the stream came back meanwhile
      h.gpus.forEach(function (hg) {
        hg.timestamp_s.forEach(function (t, k) {
          var row = { gpu: hg.index, timestamp_s: t };
          Charts.FIELDS.forEach(function (f) { row[f] = hg[f] ? hg[f][k] : null; });
          appendRow(row);
        });
      });
    }).catch(function () {});  // the snapshot poll reports a server that is gone
  }

  function loadHistory() {
    var token = ++state.historyToken;
    state.loading = true;
    return fetchJson('api/v1/history?seconds=' + state.seconds).then(function (h) {
      if (token !== state.historyToken) return;
      state.intervalS = h.interval_s || state.intervalS;
      state.resolutionS = typeof h.resolution_seconds === 'number' ? h.resolution_seconds : 0;
      showRangeInfo(h);
      h.gpus.forEach(function (hg) {
        var g = state.gpus[hg.index];
        if (!g) return;
        emptyColumns(g);
        g.t = hg.timestamp_s.slice();
        Charts.FIELDS.forEach(function (f) {
          g.v[f] = hg[f] ? hg[f].slice() : g.t.map(function () { return null; });
        });
        g.dirty = true;
      });
    }).catch(function (err) {
      if (token === state.historyToken) document.getElementById('range-info').textContent = String(err.message);
    }).then(function () {
      if (token !== state.historyToken) return;
      state.loading = false;
      state.pending.splice(0).forEach(appendRow);  // events that came while loading
      redraw();
    });
  }

  function showRangeInfo(h) {
    var parts = ['last ' + rangeLabel(state.seconds), 'sampled every ' + num(h.interval_s, h.interval_s < 1 ? 1 : 0, 's')];
    if (h.source !== undefined) parts.push('from ' + h.source);
    if (typeof h.resolution_seconds === 'number') parts.push(num(h.resolution_seconds, 0, 's') + ' resolution');
    if (h.source === undefined && h.capacity && h.interval_s && h.capacity * h.interval_s < state.seconds) {
      parts.push('server memory holds ' + rangeLabel(Math.round(h.capacity * h.interval_s)));
    }
    document.getElementById('range-info').textContent = parts.join(' · ');
  }

  function redraw() {
    var range = visibleRange();
    state.order.forEach(function (index) {
      var g = state.gpus[index];
      trim(g, range[0]);
      g.charts.update(g, maxGapS());
      g.dirty = false;
      var last = g.t.length ? g.t[g.t.length - 1] : 0;
      g.card.dataset.lastTimestamp = String(last);
      g.card.dataset.points = String(g.t.length);
    });
  }

  // ---- snapshot: GPU cards, states, processes ----
  function refreshSnapshot() {
    return fetchJson('api/v1/snapshot').then(function (snap) {
      state.serverOk = true;
      var offset = snap.timestamp_s ? snap.timestamp_s - Date.now() / 1000 : 0;
      if (state.clockOffsetS === null || offset > state.clockOffsetS) state.clockOffsetS = offset;
      renderSnapshot(snap);
      showConnection();
    }).catch(function () {
      state.serverOk = false;
      showConnection();
    });
  }

  function renderSnapshot(snap) {
    var cuda = snap.cuda_driver_version;
    document.getElementById('node-info').textContent = [location.host, (snap.gpus || []).length + ' GPUs',
      'driver ' + (snap.driver_version || 'N/A'),
      'CUDA ' + (cuda ? Math.floor(cuda / 1000) + '.' + (cuda % 1000) / 10 : 'N/A')].join(' · ');
    var indices = snap.gpus.map(function (g) { return g.index; });
    var changed = indices.join(',') !== state.order.join(',');
    if (changed) rebuild(indices);
    snap.gpus.forEach(function (gpu) { renderGpu(state.gpus[gpu.index], gpu); });
    if (changed && state.started) loadHistory();  // new cards (e.g. the first snapshot came late)
    document.body.dataset.snapshotAt = String(snap.timestamp_s);
  }

  function rebuild(indices) {
    var main = document.getElementById('gpus');
    main.textContent = '';
    state.gpus = {};
    state.order = indices;
    if (!indices.length) main.appendChild(el('p', 'hint', 'No GPU found.'));
    indices.forEach(function (index) {
      var card = el('section', 'gpu-card');
      card.dataset.gpu = String(index);
      var head = el('div', 'gpu-head');
      head.appendChild(el('h2', null, 'GPU ' + index));
      ['gpu-name', 'gpu-badge', 'gpu-ids'].forEach(function (c) { head.appendChild(el('span', c)); });
      card.appendChild(head);
      card.appendChild(el('p', 'gpu-error'));
      card.appendChild(el('div', 'gpu-stats'));
      var grid = el('div', 'chart-grid');
      card.appendChild(grid);
      var table = el('table', 'processes');
      var hr = el('tr');
      ['PID', 'User', 'Process', 'Type', 'GPU memory', 'Owner'].forEach(function (h) { hr.appendChild(el('th', null, h)); });
      table.appendChild(el('thead')).appendChild(hr);
      table.appendChild(el('tbody'));
      card.appendChild(table);
      main.appendChild(card);
      var g = { card: card, charts: null, dirty: true };
      emptyColumns(g);
      g.charts = new Charts.GpuCharts(grid, index, visibleRange);
      state.gpus[index] = g;
    });
    document.body.dataset.gpus = String(indices.length);
  }

  // The GPU's worst active diagnose finding at warning or above (the server sorts them worst first).
  function worstFinding(gpu) {
    var f = (gpu.findings || [])[0];
    return f && (f.severity === 'warning' || f.severity === 'critical') ? f : null;
  }

  function badgeOf(gpu) {
    if (gpu.state === 'ok' && gpu.up) {
      var f = worstFinding(gpu);
      return f ? [f.severity, f.severity.toUpperCase()] : ['ok', 'OK'];
    }
    if (gpu.state === 'ok') return ['stale', 'STALE'];
    if (gpu.state === 'not_sampled') return ['waiting', 'WAITING'];
    return [gpu.state, gpu.state.toUpperCase()];  // lost, inaccessible
  }

  function renderGpu(g, gpu) {
    var card = g.card;
    var badge = badgeOf(gpu);
    card.dataset.state = badge[0];
    card.querySelector('.gpu-name').textContent = gpu.name || 'unknown GPU';
    var b = card.querySelector('.gpu-badge');
    b.textContent = badge[1];
    b.dataset.state = badge[0];
    card.querySelector('.gpu-ids').textContent = [gpu.uuid, gpu.pci_bus_id].filter(Boolean).join(' · ');
    var problem = '';
    if (badge[0] === 'stale') problem = 'No fresh sample for ' + num(gpu.sample_age_seconds, 0, 's') + ': the driver does not answer; the values below are not current.';
    else if (badge[0] === 'warning' || badge[0] === 'critical') {
      var worst = worstFinding(gpu), more = (gpu.findings || []).length - 1;
      problem = worst.summary + (more > 0 ? ' (+' + more + ' more: gpuwatch diagnose)' : '');
    } else if (badge[0] !== 'ok' && badge[0] !== 'waiting') problem = 'GPU ' + gpu.state + (gpu.error ? ': ' + gpu.error : '') + '. Its charts stop at the last good sample.';
    card.querySelector('.gpu-error').textContent = problem;
    var mem = gpu.memory_used_bytes, total = gpu.memory_total_bytes;
    var stats = [
      ['Utilization', gpu.utilization_gpu_ratio === null || gpu.utilization_gpu_ratio === undefined ? 'N/A' : num(gpu.utilization_gpu_ratio * 100, 0, '%')],
      ['Memory', mem === null || mem === undefined ? 'N/A' : num(mem / GIB, 1) + ' / ' + num(total / GIB, 1, 'GiB')],
      ['Temperature', num(gpu.temperature_gpu_c, 0, '°C')],
      ['Power', num(gpu.power_draw_w, 0) + ' / ' + num(gpu.power_limit_w, 0, 'W')],
      ['SM clock', gpu.clocks_current_sm_hz === null || gpu.clocks_current_sm_hz === undefined ? 'N/A' : num(gpu.clocks_current_sm_hz / 1e6, 0, 'MHz')],
      ['Processes', gpu.processes ? String(gpu.processes.length) : 'N/A']
    ];
    var box = card.querySelector('.gpu-stats');
    box.textContent = '';
    stats.forEach(function (s) {
      var d = el('div', 'stat');
      d.appendChild(el('span', 'stat-label', s[0]));
      d.appendChild(el('span', 'stat-value', s[1]));
      box.appendChild(d);
    });
    renderProcesses(card.querySelector('table.processes tbody'), gpu.processes);
  }

  function renderProcesses(tbody, processes) {
    var key = JSON.stringify(processes);
    if (tbody.dataset.key === key) return;  // unchanged: keep the DOM (and any selection)
    tbody.dataset.key = key;
    tbody.textContent = '';
    if (!processes || !processes.length) {
      var tr = el('tr', 'none');
      var td = el('td', null, processes ? 'No processes on this GPU.' : 'Process list not available (GPU not up, or not readable).');
      td.colSpan = 6;
      tr.appendChild(td);
      tbody.appendChild(tr);
      return;
    }
    processes.slice().sort(function (a, b) { return (b.used_memory_bytes || 0) - (a.used_memory_bytes || 0); })
      .forEach(function (p) {
        var tr = el('tr');
        tr.dataset.pid = String(p.pid);
        tr.appendChild(el('td', 'num', String(p.pid)));
        tr.appendChild(el('td', null, p.user === null || p.user === undefined ? '–' : p.user));
        tr.appendChild(el('td', 'pname', p.name || 'N/A'));
        tr.appendChild(el('td', null, p.type || ''));
        var mem = el('td', 'num', p.used_memory_bytes === null || p.used_memory_bytes === undefined
          ? 'N/A' : num(p.used_memory_bytes / (1024 * 1024), 0, 'MiB'));
        mem.dataset.bytes = p.used_memory_bytes === null ? '' : String(p.used_memory_bytes);
        tr.appendChild(mem);
        // Who the process belongs to (issue 15): pod, Slurm job or container; details on hover.
        var o = p.owner;
        var owner = el('td', 'owner', o && o.summary ? o.summary : '–');
        if (o && o.summary) {
          owner.title = ['pod_uid', 'container_id', 'runtime', 'slurm_user']
            .filter(function (k) { return o[k] !== null && o[k] !== undefined; })
            .map(function (k) { return k + ': ' + o[k]; }).join('\n');
        }
        tr.appendChild(owner);
        tbody.appendChild(tr);
      });
  }

  // ---- range selector ----
  function selectRange(seconds) {
    state.seconds = seconds;
    document.querySelectorAll('#ranges button').forEach(function (b) {
      b.setAttribute('aria-pressed', String(+b.dataset.seconds === seconds));
    });
    document.body.dataset.range = String(seconds);
    if (location.hash !== '#range=' + seconds) history.replaceState(null, '', '#range=' + seconds);
    return loadHistory();
  }

  function redrawPeriodMs() { return Math.min(30000, Math.max(1000, state.seconds / 600 * 1000)); }
  function tick() {
    if (state.serverOk && state.started && !state.streamOk) pollRecent();
    if (state.serverOk) redraw();  // the window slides even when no sample comes (a lost GPU)
    setTimeout(tick, redrawPeriodMs());
  }

  function start() {
    var m = /^#range=(\d+)$/.exec(location.hash);
    if (m) state.seconds = +m[1];
    document.querySelectorAll('#ranges button').forEach(function (b) {
      b.addEventListener('click', function () { selectRange(+b.dataset.seconds); });
    });
    window.addEventListener('resize', function () {
      state.order.forEach(function (i) { state.gpus[i].charts.resize(); });
    });
    refreshSnapshot().then(function () {
      connectEvents();
      return selectRange(state.seconds);
    }).then(function () {
      state.started = true;
      document.body.dataset.ready = 'true';
      setTimeout(tick, redrawPeriodMs());
    });
    setInterval(refreshSnapshot, SNAPSHOT_EVERY_MS);
  }

  start();
})();
