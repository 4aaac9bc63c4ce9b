// gpuwatch serve dashboard: the charts (uPlot). Loaded before dashboard.js, which owns the data.
// Node charts overlay every GPU (one series each); the detail of one GPU has its own set with a
// min/max band over store-backed ranges; a throttle strip runs under the clock charts. Absent
// values (null in the API) are gaps, never 0; a pause longer than a few intervals is a gap too.
(function () {
  'use strict';
  var GIB = 1024 * 1024 * 1024;
  var MB = 1000 * 1000;
  // Okabe-Ito: told apart with the common colour-vision deficiencies. GPUs past 8 reuse them dashed.
  var PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#7f7f7f'];
  var DASHES = [undefined, [6, 3], [2, 2], [8, 3, 2, 3]];
  function gpuColor(i) { return PALETTE[i % PALETTE.length]; }
  function gpuDash(i) { return DASHES[Math.floor(i / PALETTE.length) % DASHES.length]; }

  // Node charts: one field of every GPU each.
  var NODE_CHARTS = [
    { key: 'utilization', title: 'Utilization', unit: '%', decimals: 0, max: 100, field: 'utilization_gpu_ratio', scale: 100 },
    { key: 'memory', title: 'Memory used', unit: 'GiB', decimals: 1, field: 'memory_used_bytes', scale: 1 / GIB },
    { key: 'power', title: 'Power', unit: 'W', decimals: 0, field: 'power_draw_w', scale: 1 },
    { key: 'temperature', title: 'Temperature', unit: '°C', decimals: 0, field: 'temperature_gpu_c', scale: 1 },
    { key: 'clocks', title: 'SM clock', unit: 'MHz', decimals: 0, field: 'clocks_current_sm_hz', scale: 1e-6, strip: true }
  ];
  // The detail of one GPU: several fields each; `band` names the field whose min/max is shaded.
  var GPU_CHARTS = [
    { key: 'utilization', title: 'Utilization', unit: '%', decimals: 0, max: 100, band: 'utilization_gpu_ratio', series: [
      { field: 'utilization_gpu_ratio', label: 'GPU', scale: 100, color: PALETTE[0], fill: true },
      { field: 'utilization_memory_ratio', label: 'Memory', scale: 100, color: PALETTE[1] }] },
    { key: 'memory', title: 'Memory', unit: 'GiB', decimals: 1, band: 'memory_used_bytes', series: [
      { field: 'memory_used_bytes', label: 'Used', scale: 1 / GIB, color: PALETTE[3], fill: true },
      { field: 'memory_total_bytes', label: 'Total', scale: 1 / GIB, color: '#7f7f7f', dash: [6, 4] }] },
    { key: 'temperature', title: 'Temperature', unit: '°C', decimals: 0, band: 'temperature_gpu_c', series: [
      { field: 'temperature_gpu_c', label: 'GPU', scale: 1, color: PALETTE[5] },
      { field: 'temperature_memory_c', label: 'Memory', scale: 1, color: PALETTE[3] },
      { field: 'temperature_gpu_slowdown_c', label: 'Slowdown', scale: 1, color: '#7f7f7f', dash: [6, 4] }] },
    { key: 'power', title: 'Power', unit: 'W', decimals: 0, band: 'power_draw_w', series: [
      { field: 'power_draw_w', label: 'Draw', scale: 1, color: PALETTE[2], fill: true },
      { field: 'enforced_power_limit_w', fallback: 'power_limit_w', label: 'Limit', scale: 1, color: '#7f7f7f', dash: [6, 4] }] },
    { key: 'clocks', title: 'Clocks', unit: 'MHz', decimals: 0, band: 'clocks_current_sm_hz', strip: true, series: [
      { field: 'clocks_current_sm_hz', label: 'SM', scale: 1e-6, color: PALETTE[0] },
      { field: 'clocks_current_memory_hz', label: 'Memory', scale: 1e-6, color: PALETTE[1] },
      { field: 'clocks_max_sm_hz', label: 'SM max', scale: 1e-6, color: '#7f7f7f', dash: [6, 4] }] },
    { key: 'pcie', title: 'PCIe', unit: 'MB/s', decimals: 0, series: [
      { field: 'pcie_rx_throughput_bytes_per_s', label: 'RX', scale: 1 / MB, color: PALETTE[4] },
      { field: 'pcie_tx_throughput_bytes_per_s', label: 'TX', scale: 1 / MB, color: PALETTE[5] }] }
  ];
  var THROTTLE_FIELD = 'clocks_event_reasons_active';
  // Clock event reasons worth a colour (NVML bits); idle, sync boost and application clocks are not trouble.
  var THROTTLE = [
    { name: 'thermal', bits: 0x20 | 0x40, color: '#D55E00' },
    { name: 'power', bits: 0x04 | 0x80, color: '#E69F00' },
    { name: 'hw slowdown', bits: 0x08, color: '#CC79A7' }
  ];
  var FIELDS = [];
  function addField(f) { if (FIELDS.indexOf(f) < 0) FIELDS.push(f); }
  NODE_CHARTS.forEach(function (c) { addField(c.field); });
  GPU_CHARTS.forEach(function (c) { c.series.forEach(function (s) { addField(s.field); }); });
  addField(THROTTLE_FIELD);
  addField('power_limit_w');
  addField('energy_total_j');

  var live = [];  // every uPlot on the page (for tests: label boxes)
  function track(plot) { live.push(plot); return plot; }
  function untrack(plot) { var k = live.indexOf(plot); if (k >= 0) live.splice(k, 1); plot.destroy(); }

  function css(name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#555'; }

  // ---- time axis: labels sized to the range, ticks spaced by the label width (never overlap) ----
  var TIME_INCRS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200,
                    86400, 172800, 345600, 604800, 1209600];
  function pad(n) { return n < 10 ? '0' + n : String(n); }
  function timeFormat(span, incr) {
    if (incr >= 86400) return 'date';             // 11/24
    if (span > 2 * 86400) return 'date-or-time';  // 11/24 at midnight, else 06:00
    if (incr >= 60) return 'minutes';             // 14:05
    return 'seconds';                             // 14:05:30
  }
  function timeLabel(s, format) {
    var d = new Date(s * 1000);
    var hm = pad(d.getHours()) + ':' + pad(d.getMinutes());
    var md = (d.getMonth() + 1) + '/' + d.getDate();
    if (format === 'date') return md;
    if (format === 'date-or-time') return hm === '00:00' ? md : hm;
    if (format === 'minutes') return hm;
    return hm + ':' + pad(d.getSeconds());
  }
  function timeLabels(u, splits, axisIdx, space, incr) {
    var format = timeFormat(u.scales.x.max - u.scales.x.min, incr);
    return splits.map(function (s) { return timeLabel(s, format); });
  }
  // The room a tick needs: its widest label ("14:05:30", else "11/24" or "14:05") and a margin.
  function timeSpace(u, axisIdx, min, max) { return max - min > 1800 ? 56 : 76; }
  function axes(unitSize) {
    var text = css('--text'), grid = css('--grid');
    return [
      { space: timeSpace, size: 28, incrs: TIME_INCRS, values: timeLabels, stroke: text,
        grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } },
      { size: unitSize || 50, stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 }, space: 24 }
    ];
  }
  function yRange(max) {
    return function (u, lo, hi) {
      if (max) return [0, Math.max(max, hi || 0)];
      return [0, hi !== null && hi > 0 ? hi * 1.1 : 1];
    };
  }
  function has(v) { return v !== null && v !== undefined; }
  function fmt(v, decimals, unit) { return v === null || v === undefined ? 'N/A' : v.toFixed(decimals) + ' ' + unit; }

  // ---- data ----
  // Columns of one GPU: {t: [], v: {field: []}, lo: {field: []}, hi: {field: []}} -> uPlot data with a
  // null row wherever two samples are more than MAX_GAP_S apart (uPlot breaks the line there).
  function gpuChartData(chart, columns, maxGapS) {
    var t = columns.t, x = [];
    var n = chart.series.length + (chart.band ? 2 : 0);
    var ys = [];
    for (var k = 0; k < n; k++) ys.push([]);
    var lo = chart.band && columns.lo ? columns.lo[chart.band] : null;
    var hi = chart.band && columns.hi ? columns.hi[chart.band] : null;
    var bandScale = chart.series[0].scale;
    for (var i = 0; i < t.length; i++) {
      if (i > 0 && t[i] - t[i - 1] > maxGapS) {
        x.push(t[i - 1] + maxGapS / 2);
        ys.forEach(function (y) { y.push(null); });
      }
      x.push(t[i]);
      chart.series.forEach(function (s, k) {
        var col = columns.v[s.field];
        var v = col ? col[i] : null;
        if (!has(v) && s.fallback && columns.v[s.fallback]) v = columns.v[s.fallback][i];
        ys[k].push(v === null || v === undefined ? null : v * s.scale);
      });
      if (chart.band) {
        var a = lo ? lo[i] : null, b = hi ? hi[i] : null;
        ys[n - 2].push(b === null || b === undefined ? null : b * bandScale);
        ys[n - 1].push(a === null || a === undefined ? null : a * bandScale);
      }
    }
    return [x].concat(ys);
  }

  // Every GPU's FIELD on one time axis: timestamps are put on the grid of STEP_S (GPUs sample
  // on their own threads, a few ms apart); a slot a GPU has no sample in is undefined (the line
  // goes on), a pause longer than MAX_GAP_S is null (a gap).
  function nodeChartData(chart, gpus, order, stepS, maxGapS) {
    var slots = {}, xs = [];
    var keyOf = function (t) { return Math.round(t / stepS); };
    order.forEach(function (i) {
      var g = gpus[i];
      for (var k = 0; k < g.t.length; k++) {
        var key = keyOf(g.t[k]);
        if (!(key in slots)) { slots[key] = true; xs.push(key); }
        if (k > 0 && g.t[k] - g.t[k - 1] > maxGapS) {
          var gapKey = keyOf(g.t[k - 1]) + 0.5;
          if (!(gapKey in slots)) { slots[gapKey] = true; xs.push(gapKey); }
        }
      }
    });
    xs.sort(function (a, b) { return a - b; });
    var pos = {};
    xs.forEach(function (key, k) { pos[key] = k; });
    var data = [xs.map(function (key) { return key * stepS; })];
    order.forEach(function (i) {
      var g = gpus[i], col = g.v[chart.field] || [];
      var y = new Array(xs.length);
      for (var k = 0; k < g.t.length; k++) {
        if (k > 0 && g.t[k] - g.t[k - 1] > maxGapS) y[pos[keyOf(g.t[k - 1]) + 0.5]] = null;
        var v = col[k];
        y[pos[keyOf(g.t[k])]] = v === null || v === undefined ? null : v * chart.scale;
      }
      data.push(y);
    });
    return data;
  }

  // ---- throttle strip: a row per GPU, coloured where a reason held the clocks down ----
  // Under PLOT's axis, above its legend.
  function ThrottleStrip(plot) {
    var legendBox = plot.root.querySelector('.u-legend');
    var box = document.createElement('div');
    box.className = 'strip';
    plot.root.insertBefore(box, legendBox);
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'throttle-strip';
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-label', 'Throttle reasons over time');
    box.appendChild(this.canvas);
    var legend = document.createElement('div');
    legend.className = 'strip-legend';
    THROTTLE.forEach(function (r) {
      var s = document.createElement('span');
      var sw = document.createElement('i');
      sw.style.background = r.color;
      s.appendChild(sw);
      s.appendChild(document.createTextNode(r.name));
      legend.appendChild(s);
    });
    this.note = document.createElement('span');
    this.note.className = 'strip-note';
    legend.appendChild(this.note);
    box.appendChild(legend);
  }
  // PLOT: the uPlot chart above (the strip shares its x scale and plot area); ROWS: [{t: [], mask: []}].
  ThrottleStrip.prototype.draw = function (plot, rows) {
    var c = this.canvas, ratio = window.devicePixelRatio || 1;
    var rowH = Math.max(2, Math.min(8, Math.floor(64 / Math.max(1, rows.length))));
    var height = rowH * rows.length + 2;
    var left = plot.bbox.left / ratio, width = plot.bbox.width / ratio;
    var size = left + ' ' + width + ' ' + height;
    if (c.dataset.size !== size) {  // resizing a canvas reallocates it: only when needed
      c.dataset.size = size;
      c.style.marginLeft = left + 'px';
      c.style.width = width + 'px';
      c.style.height = height + 'px';
      c.width = Math.max(1, Math.round(width * ratio));
      c.height = Math.max(1, Math.round(height * ratio));
    }
    var ctx = c.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    var min = plot.scales.x.min, max = plot.scales.x.max, any = false, known = false;
    var px = function (t) { return (t - min) / (max - min) * width; };
    rows.forEach(function (row, r) {
      for (var k = 0; k < row.t.length; k++) {
        var mask = row.mask[k];
        if (mask === null || mask === undefined) continue;
        known = true;
        var reason = null;
        for (var j = 0; j < THROTTLE.length; j++) if (mask & THROTTLE[j].bits) { reason = THROTTLE[j]; break; }
        if (!reason) continue;
        any = true;
        var x0 = px(row.t[k]), x1 = k + 1 < row.t.length ? px(row.t[k + 1]) : x0 + 2;
        ctx.fillStyle = reason.color;
        ctx.fillRect(x0, r * rowH + 1, Math.max(1, x1 - x0), rowH - (rowH > 3 ? 1 : 0));
      }
    });
    var note = !known ? 'no reasons known in this range' : any ? '' : 'none in this range';
    if (this.note.textContent !== note) this.note.textContent = note;
    if (c.dataset.throttled !== String(any)) c.dataset.throttled = String(any);
  };

  function legendValue(decimals, unit) {
    return function (u, v, seriesIndex, index) {
      if (index === null || index === undefined) {
        var values = u.data[seriesIndex] || [];
        v = null;
        for (var i = values.length - 1; i >= 0 && v === null; i--) if (values[i] !== undefined) v = values[i];
      }
      return fmt(v, decimals, unit);
    };
  }

  function chartBox(parent, key, title, unit) {
    var box = document.createElement('figure');
    box.className = 'chart';
    box.dataset.chart = key;
    var cap = document.createElement('figcaption');
    cap.className = 'chart-title';
    cap.textContent = title + ' [' + unit + ']';
    box.appendChild(cap);
    parent.appendChild(box);
    return box;
  }
  function widthOf(box) { return Math.max(220, box.clientWidth || 300); }

  // ---- node charts: every GPU overlaid, hover highlights one ----
  function NodeCharts(grid, order, visibleRange, height) {
    var self = this;
    this.plots = [];
    this.height = height;
    NODE_CHARTS.forEach(function (chart) {
      var box = chartBox(grid, chart.key, chart.title, chart.unit);
      var series = [{}];
      order.forEach(function (i) {
        series.push({ label: 'GPU ' + i, stroke: gpuColor(i), dash: gpuDash(i), width: 1.5, spanGaps: false,
                      value: legendValue(chart.decimals, chart.unit) });
      });
      var plot = track(new uPlot({
        width: widthOf(box), height: height,
        focus: { alpha: 0.25 },
        cursor: { sync: { key: 'gpuwatch-node' }, drag: { x: false, y: false }, focus: { prox: 24 } },
        legend: { live: false },  // a colour key: the overview rows have the current values
        scales: { x: { time: true, range: function () { return visibleRange(); } }, y: { range: yRange(chart.max) } },
        series: series,
        axes: axes()
      }, [[]].concat(order.map(function () { return []; })), box));
      var entry = { chart: chart, plot: plot, box: box };
      if (chart.strip) entry.strip = new ThrottleStrip(plot);
      self.plots.push(entry);
    });
  }
  NodeCharts.prototype.update = function (gpus, order, stepS, maxGapS) {
    this.plots.forEach(function (p) {
      p.plot.setData(nodeChartData(p.chart, gpus, order, stepS, maxGapS));
      if (p.strip) p.strip.draw(p.plot, order.map(function (i) { return { t: gpus[i].t, mask: gpus[i].v[THROTTLE_FIELD] || [] }; }));
    });
  };
  NodeCharts.prototype.resize = function () {
    var h = this.height;
    this.plots.forEach(function (p) {
      var w = widthOf(p.box);
      if (w !== p.plot.width) p.plot.setSize({ width: w, height: h });
    });
  };
  NodeCharts.prototype.destroy = function () { this.plots.forEach(function (p) { untrack(p.plot); }); };

  // ---- charts of several series each over one set of columns (DEFS shaped as GPU_CHARTS): the
  // detail of one GPU, with the min/max band of store-backed ranges, and the host's charts ----
  function SeriesCharts(grid, defs, visibleRange, height, syncKey) {
    var self = this;
    this.plots = [];
    this.height = height;
    defs.forEach(function (chart) {
      var box = chartBox(grid, chart.key, chart.title, chart.unit);
      var series = [{}];
      chart.series.forEach(function (s) {
        series.push({ label: s.label, stroke: s.color, width: 1.5, dash: s.dash, spanGaps: false,
                      fill: s.fill ? s.color + '22' : undefined, value: legendValue(chart.decimals, chart.unit) });
      });
      var bands;
      if (chart.band) {
        var n = series.length;
        series.push({ label: 'max', stroke: 'transparent', width: 0, show: true, spanGaps: false, value: legendValue(chart.decimals, chart.unit) });
        series.push({ label: 'min', stroke: 'transparent', width: 0, show: true, spanGaps: false, value: legendValue(chart.decimals, chart.unit) });
        bands = [{ series: [n, n + 1], fill: chart.series[0].color + '33' }];
      }
      var plot = track(new uPlot({
        width: widthOf(box), height: height,
        cursor: { sync: { key: syncKey }, drag: { x: false, y: false } },
        scales: { x: { time: true, range: function () { return visibleRange(); } }, y: { range: yRange(chart.max) } },
        series: series, bands: bands,
        axes: axes()
      }, gpuChartData(chart, { t: [], v: {} }, 1), box));
      if (chart.band) {  // the band's edges have no legend entry of their own
        var rows = plot.root.querySelectorAll('.u-legend .u-series');
        for (var k = rows.length - 2; k < rows.length; k++) if (k > 0) rows[k].style.display = 'none';
      }
      var entry = { chart: chart, plot: plot, box: box };
      if (chart.strip) entry.strip = new ThrottleStrip(plot);
      self.plots.push(entry);
    });
  }
  SeriesCharts.prototype.update = function (columns, maxGapS) {
    this.plots.forEach(function (p) {
      p.plot.setData(gpuChartData(p.chart, columns, maxGapS));
      if (p.strip) p.strip.draw(p.plot, [{ t: columns.t, mask: columns.v[THROTTLE_FIELD] || [] }]);
    });
  };
  SeriesCharts.prototype.resize = NodeCharts.prototype.resize;
  SeriesCharts.prototype.destroy = NodeCharts.prototype.destroy;

  function GpuCharts(grid, gpuIndex, visibleRange, height) {
    SeriesCharts.call(this, grid, GPU_CHARTS, visibleRange, height, 'gpuwatch-gpu');
    this.plots.forEach(function (p) { p.box.dataset.gpu = String(gpuIndex); });
  }
  GpuCharts.prototype = SeriesCharts.prototype;

  // ---- sparkline: a GPU's utilization in the overview row ----
  function sparkline(canvas, t, values, from, to, color) {
    var ratio = window.devicePixelRatio || 1;
    var w = canvas.clientWidth || 100, h = canvas.clientHeight || 22;
    if (canvas.width !== Math.round(w * ratio)) canvas.width = Math.round(w * ratio);
    if (canvas.height !== Math.round(h * ratio)) canvas.height = Math.round(h * ratio);
    var ctx = canvas.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.strokeStyle = color;
    ctx.fillStyle = color + '33';
    ctx.lineWidth = 1.2;
    var path = null, start = null, lastX = null;
    var close = function () {
      if (!path) return;
      ctx.stroke(path);
      path.lineTo(lastX, h); path.lineTo(start, h); path.closePath();
      ctx.fill(path);
      path = null;
    };
    for (var i = 0; i < t.length; i++) {
      var v = values[i];
      if (t[i] < from) continue;
      if (v === null || v === undefined) { close(); continue; }
      var x = (t[i] - from) / (to - from) * w, y = h - 1 - Math.min(1, Math.max(0, v)) * (h - 2);
      if (!path) { path = new Path2D(); path.moveTo(x, y); start = x; } else path.lineTo(x, y);
      lastX = x;
    }
    close();
  }

  window.GpuwatchCharts = {
    NodeCharts: NodeCharts, GpuCharts: GpuCharts, SeriesCharts: SeriesCharts, sparkline: sparkline, PALETTE: PALETTE,
    FIELDS: FIELDS, NODE_CHARTS: NODE_CHARTS, GPU_CHARTS: GPU_CHARTS, THROTTLE: THROTTLE,
    gpuChartData: gpuChartData, nodeChartData: nodeChartData, gpuColor: gpuColor,
    timeFormat: timeFormat, timeLabel: timeLabel, plots: function () { return live.slice(); }
  };
})();
