// gpuwatch serve dashboard (GET /): the whole node on one screen, trouble first. Findings and
// firing alerts on top, one overview row per GPU (dashboard_overview.js), node charts with every
// GPU overlaid and a throttle strip (dashboard_charts.js), the node's processes
// (dashboard_processes.js); a GPU's detail by selecting its row, kept in the URL (#gpu=3);
// energy, cost and CO2 of the range and the recorded jobs (dashboard_energy.js: /api/v1/energy, /api/v1/jobs).
// Data: /api/v1/history?seconds=N once per range (and after a reconnect), then the server-sent
// events of /api/v1/events appended live; /api/v1/snapshot every second for the GPUs' states,
// findings, alerts and processes. All URLs are relative: only this server is ever asked.
// null stays null (a gap, "N/A"), never 0.
(function () {
  'use strict';
  var Charts = window.GpuwatchCharts, Overview = window.GpuwatchOverview, Processes = window.GpuwatchProcesses;
  var Host = window.GpuwatchHost, Energy = window.GpuwatchEnergy;
  var GIB = 1024 * 1024 * 1024;
  var NODE_HEIGHT = 150, GPU_HEIGHT = 150, HOST_HEIGHT = 150;
  var HOST_POLL_MS = 2000;  // /api/v1/host: the host's line and charts
  var state = {
    seconds: 300,         // the selected range
    gpu: null,            // the GPU whose detail is open (#gpu=N), or null
    gpus: {},             // index -> {t: [], v: {field: []}, lo: {}, hi: {}}
    order: [],            // GPU indices in page order
    snapshot: null,       // the latest /api/v1/snapshot
    intervalS: 1,         // sampling interval (from /api/v1/history)
    resolutionS: 0,       // of older data read from a store, when the server says so
    source: 'memory',
    clockOffsetS: null,   // server clock - this browser's clock (from the snapshot)
    historyToken: 0, loading: false, pending: [], dirty: true,
    events: 0, stream: null, streamOk: false, serverOk: true, wasDown: false, started: false,
    overview: null, nodeCharts: null, gpuCharts: null, processes: null,
    host: null, hostAskedAt: 0, hostBusy: false, hostMissing: false,  // the host panel (dashboard_host.js)
    energy: null, energyCell: null  // the energy panel, jobs table and the detail's energy cell (dashboard_energy.js)
  };

  function $(id) { return document.getElementById(id); }
  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function has(v) { return v !== null && v !== undefined; }
  function num(v, decimals, unit) { return has(v) ? v.toFixed(decimals) + (unit ? ' ' + unit : '') : 'N/A'; }
  function fetchJson(url) {
    return fetch(url, { cache: 'no-store' }).then(function (r) {
      if (!r.ok) return r.text().then(function (t) { throw new Error(url + ': HTTP ' + r.status + ' ' + t); });
      return r.json();
    });
  }
  function serverNow() { return Date.now() / 1000 + (state.clockOffsetS || 0); }
  function visibleRange() { var now = serverNow(); return [now - state.seconds, now]; }
  function stepS() { return state.source === 'store' && state.resolutionS ? state.resolutionS : state.intervalS; }
  function maxGapS() { return 3 * Math.max(state.intervalS, state.resolutionS || 0, 0.1); }
  function rangeLabel(seconds) {
    if (seconds % 86400 === 0) return seconds / 86400 + ' d';
    if (seconds % 3600 === 0) return seconds / 3600 + ' h';
    if (seconds % 60 === 0) return seconds / 60 + ' min';
    return seconds + ' s';
  }
  function clockTime(s) {
    var d = new Date(s * 1000), p = function (n) { return n < 10 ? '0' + n : String(n); };
    return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + ' ' + p(d.getHours()) + ':' + p(d.getMinutes()) + ':' + p(d.getSeconds());
  }

  // ---- connection status ----
  function showConnection() {
    var c = $('connection'), banner = $('banner'), s, text;
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
    es.addEventListener('alert', function () { refreshSnapshot(); });  // the overview says so at once
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
    g.t = []; g.v = {}; g.lo = {}; g.hi = {};
    Charts.FIELDS.forEach(function (f) { g.v[f] = []; });
  }
  function appendRow(row) {
    var g = state.gpus[row.gpu];
    if (!g || (g.t.length && row.timestamp_s <= g.t[g.t.length - 1])) return;
    g.t.push(row.timestamp_s);
    Charts.FIELDS.forEach(function (f) { g.v[f].push(has(row[f]) ? row[f] : null); });
    Object.keys(g.lo).forEach(function (f) { g.lo[f].push(null); g.hi[f].push(null); });
    state.dirty = true;
  }
  // Drops rows older than the range (keeping one just before it, so the line enters the chart).
  function trim(g, from) {
    var drop = 0;
    while (drop + 1 < g.t.length && g.t[drop + 1] < from) drop++;
    if (drop === 0) return;
    g.t.splice(0, drop);
    Charts.FIELDS.forEach(function (f) { g.v[f].splice(0, drop); });
    Object.keys(g.lo).forEach(function (f) { g.lo[f].splice(0, drop); g.hi[f].splice(0, drop); });
  }

  // Without the event stream (refused: too many viewers, or reconnecting) the recent rows are
  // polled from the history instead, so the charts keep moving.
  function pollRecent() {
    if (state.loading) return;
    var newest = serverNow() - state.seconds;
    state.order.forEach(function (i) {
      var t = state.gpus[i].t;
      if (t.length) newest = Math.max(newest, t[t.length - 1]);
    });
    var since = newest - 5 * state.intervalS;  // a little overlap: appendRow drops what is held
    var seconds = Math.min(state.seconds, Math.max(1, Math.ceil(serverNow() - since)));
    fetchJson('api/v1/history?seconds=' + seconds).then(function (h) {
      if (state.streamOk || state.loading) return;
      h.gpus.forEach(function (hg) {
        hg.timestamp_s.forEach(function (t, k) {
          var row = { gpu: hg.index, timestamp_s: t };
          Charts.FIELDS.forEach(function (f) { row[f] = hg[f] ? hg[f][k] : null; });
          appendRow(row);
        });
      });
    }).catch(function () {});  // the snapshot poll reports a server that is gone
  }

  // PREFETCHED: the answer already asked for (the first load asks with the snapshot, not after it).
  function loadHistory(prefetched) {
    var token = ++state.historyToken;
    state.loading = true;
    document.body.dataset.rangeLoaded = '';
    return (prefetched || fetchJson('api/v1/history?seconds=' + state.seconds)).then(function (h) {
      if (token !== state.historyToken) return;
      state.intervalS = h.interval_s || state.intervalS;
      state.resolutionS = typeof h.resolution_seconds === 'number' ? h.resolution_seconds : 0;
      state.source = h.source || 'memory';
      state.order.forEach(function (i) { emptyColumns(state.gpus[i]); });
      h.gpus.forEach(function (hg) {
        var g = state.gpus[hg.index];
        if (!g) return;
        g.t = hg.timestamp_s.slice();
        Charts.FIELDS.forEach(function (f) {
          g.v[f] = hg[f] ? hg[f].slice() : g.t.map(function () { return null; });
        });
        if (hg.min && hg.max) {
          Object.keys(hg.min).forEach(function (f) { g.lo[f] = hg.min[f].slice(); g.hi[f] = hg.max[f].slice(); });
        }
      });
      showRangeInfo(h);
      showRangeNote(h);
      loadRangeFindings(h, token);
    }).catch(function (err) {
      if (token === state.historyToken) $('range-info').textContent = String(err.message);
    }).then(function () {
      if (token !== state.historyToken) return;
      state.loading = false;
      state.pending.splice(0).forEach(appendRow);  // events that came while loading
      state.dirty = true;
      redraw();
      document.body.dataset.rangeLoaded = String(state.seconds);
    });
  }

  // ---- the grouped findings of a recorded range (issue 23: /api/v1/findings) ----
  // Only for a range longer than the ring buffer holds, read from the store (the live findings
  // are on top already; without a store there is nothing to ask). One problem per row.
  function loadRangeFindings(h, token) {
    var box = $('range-findings');
    var live = state.seconds <= (h.capacity || 0) * (h.interval_s || 0);
    if (live || h.source !== 'store' || state.seconds > 31 * 86400) { box.hidden = true; return; }
    fetchJson('api/v1/findings?seconds=' + state.seconds).then(function (f) {
      if (token === state.historyToken) showRangeFindings(f);
    }).catch(function (err) {
      if (token !== state.historyToken) return;
      $('range-findings-summary').textContent = '';
      $('range-findings-summary').appendChild(el('li', 'none', String(err.message)));
      $('range-findings-list').textContent = '';
      box.hidden = false;
    });
  }
  function showRangeFindings(f) {
    $('range-findings-scope').textContent = '(last ' + rangeLabel(state.seconds) + ', ' + f.samples + ' recorded samples)';
    var summary = $('range-findings-summary'), list = $('range-findings-list');
    summary.textContent = '';
    list.textContent = '';
    (f.summary || []).forEach(function (sentence) { summary.appendChild(el('li', '', sentence)); });
    if (!f.findings.length) summary.appendChild(el('li', 'none', f.samples ? 'No findings in this range.' : 'Nothing recorded in this range.'));
    f.findings.forEach(function (x) {
      var episodes = (x.episodes || []).length;
      var share = typeof x.share === 'number' ? Math.round(x.share * 100) + ' % of the range' : '';
      var li = el('li', 'range-finding');
      var badge = el('span', 'badge', x.severity.toUpperCase());
      badge.dataset.state = x.severity;
      li.appendChild(badge);
      li.appendChild(el('span', '', 'GPU ' + x.gpus.join(', ') + ': ' + x.summary));
      li.appendChild(el('span', 'hint', [episodes + (episodes === 1 ? ' episode' : ' episodes'), share].filter(Boolean).join(' · ')));
      list.appendChild(li);
    });
    $('range-findings').hidden = false;
  }

  function showRangeInfo(h) {
    var parts = ['last ' + rangeLabel(state.seconds), 'sampled every ' + num(h.interval_s, h.interval_s < 1 ? 1 : 0, 's')];
    if (h.source !== undefined) parts.push('from ' + (h.source === 'store' ? 'the history database' : 'memory'));
    if (h.source === 'store' && typeof h.resolution_seconds === 'number') {
      var band = (h.gpus || []).some(function (g) { return g.min && g.max; });
      parts.push(rangeLabel(h.resolution_seconds) + ' buckets' + (band ? ' (line: mean; band: min–max)' : ' (means)'));
    }
    if (h.store_error) parts.push('history database: ' + h.store_error);
    $('range-info').textContent = parts.join(' · ');
  }

  // Says so where the range reaches back before the first sample held (or there is none).
  function showRangeNote(h) {
    var first = Infinity, points = 0;
    state.order.forEach(function (i) {
      var t = state.gpus[i].t;
      points += t.length;
      if (t.length) first = Math.min(first, t[0]);
    });
    var from = serverNow() - state.seconds, text = '';
    if (!points) {
      text = 'No data in the last ' + rangeLabel(state.seconds) + ' yet.';
    } else if (first - from > Math.max(0.05 * state.seconds, 3 * stepS())) {
      text = 'No data before ' + clockTime(first) + ': the history starts there' +
        (h.source === 'store' ? '.' : (h.store_error ? ' (' + h.store_error + ').'
          : '. Longer ranges come from the history database (serve records it unless --no-record).'));
    }
    [$('range-note'), $('detail-note')].forEach(function (n) { n.textContent = text; n.hidden = !text; });
    document.body.dataset.rangeNote = text;
  }

  function redraw() {
    var range = visibleRange();
    state.order.forEach(function (i) { trim(state.gpus[i], range[0]); });
    if (state.nodeCharts) state.nodeCharts.update(state.gpus, state.order, stepS(), maxGapS());
    if (state.gpuCharts && state.gpus[state.gpu]) state.gpuCharts.update(state.gpus[state.gpu], maxGapS());
    state.order.forEach(function (i) {
      var g = state.gpus[i];
      state.overview.sparkline(i, g, range[0], range[1]);
      var row = state.overview.rows[i];
      if (row) {  // for tests: what the row's charts hold (data-* writes are cheap: no style depends on them)
        row.tr.dataset.lastTimestamp = String(g.t.length ? g.t[g.t.length - 1] : 0);
        row.tr.dataset.points = String(g.t.length);
      }
    });
    if (state.gpu !== null) renderEnergy();
    state.host.draw(maxGapS());
    state.dirty = false;
  }

  // ---- the host (issue 25): /api/v1/host every HOST_POLL_MS, and at once for a new range ----
  // Not asked when the snapshot says the host is not read (host: null); a server without the
  // route (404) is not asked again.
  function refreshHost(now) {
    if (state.hostMissing) return;
    if (state.snapshot && state.snapshot.host === null) { state.host.hide(); return; }
    if (state.hostBusy || (!now && Date.now() - state.hostAskedAt < HOST_POLL_MS)) return;
    var seconds = state.seconds;
    state.hostBusy = true;
    state.hostAskedAt = Date.now();
    fetch('api/v1/host?seconds=' + seconds, { cache: 'no-store' }).then(function (r) {
      if (r.status === 404) { state.hostMissing = true; return null; }
      if (!r.ok) throw new Error('api/v1/host: HTTP ' + r.status);
      return r.json();
    }).then(function (answer) {
      if (seconds !== state.seconds) return;  // a range switched meanwhile asks again
      state.host.show(answer);
      state.host.draw(maxGapS());
    }).catch(function () {  // the snapshot poll reports a server that is gone
    }).then(function () {
      state.hostBusy = false;
      if (seconds !== state.seconds) refreshHost(true);
    });
  }

  // ---- snapshot: states, findings, alerts, processes ----
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
    state.snapshot = snap;
    var cuda = snap.cuda_driver_version;
    var info = [location.host, (snap.gpus || []).length + ' GPUs',
      'driver ' + (snap.driver_version || 'N/A'),
      'CUDA ' + (cuda ? Math.floor(cuda / 1000) + '.' + (cuda % 1000) / 10 : 'N/A')].join(' · ');
    if ($('node-info').textContent !== info) $('node-info').textContent = info;
    var indices = snap.gpus.map(function (g) { return g.index; });
    var changed = indices.join(',') !== state.order.join(',');
    if (changed) rebuild(indices);
    var tagVendor = Overview.namesVendors(snap.gpus);
    snap.gpus.forEach(function (gpu) { state.overview.render(gpu, tagVendor); });
    Overview.renderTrouble($('trouble-list'), $('trouble-summary'), snap);
    state.processes.update(snap, state.gpu);
    var scope = state.gpu === null ? '(every GPU; select a column to sort)' : '(GPU ' + state.gpu + ' only)';
    if ($('processes-scope').textContent !== scope) $('processes-scope').textContent = scope;
    if (state.gpu !== null) renderDetail();
    if (changed && state.started) loadHistory();
    refreshHost(false);
    state.energy.refresh(state.seconds, false);  // every Energy.REFRESH_MS
    document.body.dataset.snapshotAt = String(snap.timestamp_s);
    if (document.body.dataset.gpus !== String(indices.length)) document.body.dataset.gpus = String(indices.length);
  }

  function rebuild(indices) {
    state.order = indices;
    var old = state.gpus;
    state.gpus = {};
    indices.forEach(function (i) {
      var g = old[i] || {};
      if (!old[i]) emptyColumns(g);
      state.gpus[i] = g;
    });
    state.overview.rebuild(indices);
    if (state.nodeCharts) state.nodeCharts.destroy();
    $('node-charts').textContent = '';
    state.nodeCharts = new Charts.NodeCharts($('node-charts'), indices, visibleRange, NODE_HEIGHT);
    document.body.classList.toggle('many-gpus', indices.length > 16);
    if (state.gpu !== null && indices.indexOf(state.gpu) < 0) openGpu(null);
  }

  // ---- detail of one GPU ----
  function openGpu(index) {
    if (index !== null && state.order.length && state.order.indexOf(index) < 0) index = null;
    state.gpu = index;
    writeHash();
    var detail = $('detail');
    if (state.gpuCharts) { state.gpuCharts.destroy(); state.gpuCharts = null; }
    $('detail-charts').textContent = '';
    document.querySelectorAll('tr.gpu-row').forEach(function (tr) {
      tr.setAttribute('aria-selected', String(Number(tr.dataset.gpu) === index));
    });
    document.body.dataset.detail = index === null ? '' : String(index);
    if (index === null) {
      detail.hidden = true;
      if (state.snapshot) state.processes.update(state.snapshot, null);
      $('processes-scope').textContent = '(every GPU; select a column to sort)';
      return;
    }
    detail.hidden = false;
    state.gpuCharts = new Charts.GpuCharts($('detail-charts'), index, visibleRange, GPU_HEIGHT);
    if (state.snapshot) {
      renderDetail();
      state.processes.update(state.snapshot, index);
      $('processes-scope').textContent = '(GPU ' + index + ' only)';
    }
    state.dirty = true;
    redraw();
  }

  function stat(box, label, value, title) {
    var d = el('div', 'stat');
    d.appendChild(el('span', 'stat-label', label));
    var v = d.appendChild(el('span', 'stat-value', value));
    if (title) v.title = title;
    box.appendChild(d);
    return v;
  }

  function renderDetail() {
    var gpu = (state.snapshot.gpus || []).filter(function (g) { return g.index === state.gpu; })[0];
    if (!gpu) return;
    var h = Overview.health(gpu);
    var vendor = Overview.namesVendors(state.snapshot.gpus) ? ' (' + (gpu.vendor || 'nvidia') + ')' : '';
    $('detail-title').textContent = 'GPU ' + gpu.index + ' · ' + (gpu.name || 'unknown GPU') + vendor;
    var badge = $('detail-badge');
    badge.textContent = h[1];
    badge.dataset.state = h[0];
    $('detail').dataset.state = h[0];
    $('detail-ids').textContent = [gpu.uuid, gpu.pci_bus_id].filter(Boolean).join(' · ');
    var all = Overview.troubles(gpu).map(function (t) { return t.severity.toUpperCase() + ': ' + t.text; });
    $('detail-reason').textContent = all.join('\n') || (h[0] === 'ok' ? '' : h[2]);
    Overview.renderAdvice($('detail-advice'), state.snapshot, gpu.index);
    var box = $('detail-stats');
    box.textContent = '';
    var up = gpu.up && gpu.state === 'ok';
    var limit = has(gpu.enforced_power_limit_w) ? gpu.enforced_power_limit_w : gpu.power_limit_w;
    stat(box, 'Utilization', up && has(gpu.utilization_gpu_ratio) ? num(gpu.utilization_gpu_ratio * 100, 0, '%') : 'N/A');
    stat(box, 'Memory', has(gpu.memory_used_bytes) ? num(gpu.memory_used_bytes / GIB, 1) + ' / ' + num(has(gpu.memory_total_bytes) ? gpu.memory_total_bytes / GIB : null, 1, 'GiB') : 'N/A');
    stat(box, 'Temperature', num(gpu.temperature_gpu_c, 0) + ' / ' + num(gpu.temperature_gpu_slowdown_c, 0, '°C'), 'current / slowdown');
    stat(box, 'Power', num(gpu.power_draw_w, 0) + ' / ' + num(limit, 0, 'W'), 'draw / enforced limit');
    stat(box, 'SM clock', num(has(gpu.clocks_current_sm_hz) ? gpu.clocks_current_sm_hz / 1e6 : null, 0) + ' / ' +
      num(has(gpu.clocks_max_sm_hz) ? gpu.clocks_max_sm_hz / 1e6 : null, 0, 'MHz'), 'current / max');
    stat(box, 'PCIe link', has(gpu.pcie_link_gen_current) ? 'Gen ' + gpu.pcie_link_gen_current + ' x' + num(gpu.pcie_link_width_current, 0) : 'N/A');
    state.energyCell = stat(box, 'Energy in range', '…', 'energy of this GPU over the selected range');
    stat(box, 'Processes', gpu.processes ? String(gpu.processes.length) : 'N/A');
    renderGpm(gpu);
    renderEvents(gpu);
    renderEnergy();
  }

  // The server's energy of the GPU over the range, with cost and CO2 where serve has rates
  // (/api/v1/energy?seconds=N&gpu=I, dashboard_energy.js); pageEnergy where it has no such route.
  function renderEnergy() {
    if (!state.energyCell || state.gpu === null) return;
    state.energy.gpuCell(state.energyCell, state.seconds, state.gpu, pageEnergy);
  }
  // An older serve: the difference of the energy counter over the rows the page holds.
  function pageEnergy(cell) {
    var g = state.gpus[state.gpu];
    if (!g) return;
    var e = g.v.energy_total_j || [], first = null, last = null;
    for (var i = 0; i < e.length; i++) if (has(e[i])) { if (first === null) first = e[i]; last = e[i]; }
    cell.title = 'from the GPU\'s energy counter over the rows this page holds';
    cell.textContent = first === null || last === null || last < first ? 'N/A' : Energy.whText(last - first);
  }

  var GPM = [['sm_active_ratio', 'SM active'], ['sm_occupancy_ratio', 'SM occupancy'], ['tensor_active_ratio', 'Tensor'],
             ['dram_active_ratio', 'DRAM'], ['fp64_active_ratio', 'FP64'], ['fp32_active_ratio', 'FP32'],
             ['fp16_active_ratio', 'FP16'], ['graphics_active_ratio', 'Graphics']];
  function renderGpm(gpu) {
    var box = $('detail-gpm');
    box.textContent = '';
    var shown = GPM.filter(function (m) { return has(gpu[m[0]]); });
    if (!shown.length) {
      box.appendChild(el('p', 'hint', 'Not reported for this GPU (GPM needs Hopper or later, and serve reads it from its second sample on).'));
      return;
    }
    shown.forEach(function (m) {
      var row = el('div', 'gpm-row');
      row.appendChild(el('span', 'gpm-label', m[1]));
      var meter = row.appendChild(el('div', 'meter'));
      var fill = meter.appendChild(el('span', 'meter-fill'));
      fill.style.width = Math.min(100, gpu[m[0]] * 100).toFixed(1) + '%';
      row.appendChild(el('span', 'meter-text', num(gpu[m[0]] * 100, 0, '%')));
      box.appendChild(row);
    });
  }

  function renderEvents(gpu) {
    var table = $('detail-events');
    table.textContent = '';
    var head = el('tr');
    ['When', 'Event', 'Detail'].forEach(function (c) { var th = el('th', null, c); th.scope = 'col'; head.appendChild(th); });
    table.appendChild(el('thead')).appendChild(head);
    var body = table.appendChild(el('tbody'));
    var rows = [];
    (gpu.xid_events || []).forEach(function (x) {
      rows.push([x.last_seen_s, 'Xid ' + x.xid, x.count + (x.count === 1 ? ' time' : ' times') + ' since serve started']);
    });
    var ecc = [['ecc_errors_uncorrected_volatile_total', 'ECC uncorrected'], ['ecc_errors_corrected_volatile_total', 'ECC corrected'],
               ['retired_pages_pending', 'retired pages pending'], ['remapped_rows_pending', 'row remapping pending'],
               ['remapped_rows_failure', 'row remapping failed']];
    ecc.forEach(function (e) {
      var v = gpu[e[0]];
      if (has(v) && v !== 0 && v !== false) rows.push([null, e[1], String(v) + ' (since the driver loaded)']);
    });
    (gpu.alerts || []).forEach(function (a) { rows.push([null, 'alert ' + a.name + ' (' + a.state + ')', a.summary]); });
    rows.sort(function (a, b) { return (b[0] || 0) - (a[0] || 0); });
    if (!rows.length) {
      var tr = el('tr', 'none');
      var td = tr.appendChild(el('td', null, 'No Xid, ECC or alert events on this GPU.'));
      td.colSpan = 3;
      body.appendChild(tr);
      return;
    }
    rows.forEach(function (r) {
      var tr = el('tr');
      tr.appendChild(el('td', 'num', has(r[0]) ? clockTime(r[0]) : 'now'));
      tr.appendChild(el('td', null, r[1]));
      tr.appendChild(el('td', null, r[2]));
      body.appendChild(tr);
    });
  }

  // ---- URL: #gpu=3&range=3600 ----
  function readHash() {
    var out = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
      var m = /^(gpu|range)=(\d+)$/.exec(kv);
      if (m) out[m[1]] = Number(m[2]);
    });
    return out;
  }
  function writeHash() {
    var parts = [];
    if (state.gpu !== null) parts.push('gpu=' + state.gpu);
    if (state.seconds !== 300) parts.push('range=' + state.seconds);
    var hash = parts.length ? '#' + parts.join('&') : '';
    if (location.hash !== hash) history.replaceState(null, '', hash || location.pathname + location.search);
  }

  // ---- range selector ----
  function selectRange(seconds, prefetched) {
    state.seconds = seconds;
    document.querySelectorAll('#ranges button').forEach(function (b) {
      b.setAttribute('aria-pressed', String(+b.dataset.seconds === seconds));
    });
    document.body.dataset.range = String(seconds);
    writeHash();
    if (state.host) refreshHost(true);
    if (state.energy) {
      state.energy.refresh(seconds, true);
      renderEnergy();
    }
    return loadHistory(prefetched);
  }

  function redrawPeriodMs() { return Math.min(30000, Math.max(1000, state.seconds / 600 * 1000)); }
  function tick() {
    if (state.serverOk && state.started && !state.streamOk) pollRecent();
    if (state.serverOk) redraw();  // the window slides even when no sample comes (a lost GPU)
    setTimeout(tick, redrawPeriodMs());
  }

  // ---- keyboard: ↑/↓ between overview rows, Esc closes the detail ----
  function onKey(e) {
    if (e.key === 'Escape' && state.gpu !== null) {
      openGpu(null);
      var link = document.querySelector('tr.gpu-row .gpu-link');
      if (link) link.focus();
      return;
    }
    if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && e.target.closest && e.target.closest('tr.gpu-row')) {
      var row = e.target.closest('tr.gpu-row');
      var next = e.key === 'ArrowDown' ? row.nextElementSibling : row.previousElementSibling;
      if (next) { next.querySelector('.gpu-link').focus(); e.preventDefault(); }
    }
  }

  function start() {
    var hash = readHash();
    if (hash.range) state.seconds = hash.range;
    if (has(hash.gpu)) state.gpu = hash.gpu;
    state.overview = new Overview.Overview($('overview-table'), function (i) {
      openGpu(state.gpu === i ? null : i);
      if (state.gpu !== null) $('detail').scrollIntoView({ block: 'start' });
    });
    state.processes = new Processes.ProcessTable($('process-table'));
    state.host = new Host.HostPanel($('host'), $('host-line'), $('host-charts'), visibleRange, HOST_HEIGHT);
    state.energy = new Energy.EnergyView({
      section: $('energy'), scope: $('energy-scope'), stats: $('energy-stats'), hints: $('energy-hints'),
      sources: $('energy-sources'), gpus: $('energy-gpus'),
      jobsSection: $('jobs'), jobsToggle: $('jobs-toggle'), jobsBody: $('jobs-body'), jobsNote: $('jobs-note'),
      jobsTable: $('jobs-table')
    }, { nowS: serverNow, rangeLabel: rangeLabel });
    document.querySelectorAll('#ranges button').forEach(function (b) {
      b.addEventListener('click', function () { selectRange(+b.dataset.seconds); });
    });
    window.addEventListener('hashchange', function () {
      var h = readHash();
      var gpu = has(h.gpu) ? h.gpu : null;
      if (gpu !== state.gpu) openGpu(gpu);
      if (gpu !== null) $('detail').scrollIntoView({ block: 'start' });
      if (h.range && h.range !== state.seconds) selectRange(h.range);
    });
    $('detail-close').addEventListener('click', function (e) { e.preventDefault(); openGpu(null); });
    document.addEventListener('keydown', onKey);
    window.addEventListener('resize', function () {
      if (state.nodeCharts) state.nodeCharts.resize();
      if (state.gpuCharts) state.gpuCharts.resize();
      state.host.resize();
      state.dirty = true;
    });
    setInterval(refreshSnapshot, 1000);  // findings and alerts reach the overview within a second or two
    var firstHistory = fetchJson('api/v1/history?seconds=' + state.seconds);  // at once, with the snapshot
    firstHistory.catch(function () {});  // reported when loadHistory reads it
    refreshSnapshot().then(function () {
      if (state.gpu !== null) openGpu(state.gpu);
      connectEvents();
      return selectRange(state.seconds, firstHistory);
    }).then(function () {
      state.started = true;
      document.body.dataset.ready = 'true';
      setTimeout(tick, redrawPeriodMs());
    });
  }

  start();
})();
