// gpuwatch serve dashboard: the host beside the GPUs (issue 25). A line of what the host is doing
// now (as `gpuwatch status` writes it) and charts of CPU busy and iowait, disk, network and
// InfiniBand, memory and swap, from GET /api/v1/host: {"latest": {key: value}, "series": {"t":
// [unix s], key: [value or null]}} (keys: host_signals/host_fields.cpp). Loaded after
// dashboard_charts.js; dashboard.js owns the polling and says when to draw. Hidden when the
// server has no host signals (404, latest null: serve --no-host). Absent stays absent: a gap in a
// chart, left out of the line (never 0). Text is set with textContent only.
(function () {
  'use strict';
  var Charts = window.GpuwatchCharts;
  var P = Charts.PALETTE;
  var MB = 1000 * 1000;

  // IB series (`optional`) are drawn only where the host has InfiniBand (a value in the range).
  var HOST_CHARTS = [
    { key: 'host-cpu', title: 'Host CPU', unit: '%', decimals: 0, max: 100, series: [
      { field: 'cpu_busy_percent', label: 'Busy', scale: 1, color: P[0], fill: true },
      { field: 'cpu_iowait_percent', label: 'iowait', scale: 1, color: P[5] }] },
    { key: 'host-disk', title: 'Disk', unit: 'MB/s', decimals: 1, series: [
      { field: 'disk_read_bytes_per_s', label: 'Read', scale: 1 / MB, color: P[2], fill: true },
      { field: 'disk_write_bytes_per_s', label: 'Write', scale: 1 / MB, color: P[1] }] },
    { key: 'host-network', title: 'Network', unit: 'MB/s', decimals: 1, series: [
      { field: 'net_rx_bytes_per_s', label: 'RX', scale: 1 / MB, color: P[4] },
      { field: 'net_tx_bytes_per_s', label: 'TX', scale: 1 / MB, color: P[0] },
      { field: 'ib_rx_bytes_per_s', label: 'IB RX', scale: 1 / MB, color: P[3], optional: true },
      { field: 'ib_tx_bytes_per_s', label: 'IB TX', scale: 1 / MB, color: P[5], dash: [6, 3], optional: true }] },
    { key: 'host-memory', title: 'Host memory', unit: '%', decimals: 0, max: 100, series: [
      { field: 'memory_available_percent', label: 'Available', scale: 1, color: P[3], fill: true },
      { field: 'memory_pressure_some_percent', label: 'PSI some', scale: 1, color: P[5] }] },
    { key: 'host-swap', title: 'Swap', unit: 'pages/s', decimals: 0, series: [
      { field: 'swap_in_pages_per_s', label: 'In', scale: 1, color: P[5] },
      { field: 'swap_out_pages_per_s', label: 'Out', scale: 1, color: P[1] }] }
  ];

  function has(v) { return typeof v === 'number' && isFinite(v); }
  function percent(v) { return Math.round(v) + ' %'; }
  // As status's byte_rate_text: powers of 1000, one decimal under 10.
  function byteRate(v) {
    var units = ['B/s', 'kB/s', 'MB/s', 'GB/s', 'TB/s'], u = 0;
    v = Math.max(0, v);
    while (v >= 999.5 && u + 1 < units.length) { v /= 1000; u++; }
    return (u === 0 || v >= 9.95 ? v.toFixed(0) : v.toFixed(1)) + ' ' + units[u];
  }
  function joined(parts, separator) { return parts.filter(Boolean).join(separator); }
  function labelled(label, v, format) { return has(v) ? label + ' ' + format(v) : ''; }

  // The line `gpuwatch status` prints (status/host_line.cpp, its wide form), from LATEST.
  function hostLineText(h) {
    var cpuDetails = joined([labelled('iowait', h.cpu_iowait_percent, percent), labelled('steal', h.cpu_steal_percent, percent),
                             labelled('PSI', h.cpu_pressure_some_percent, percent)], ', ');
    var cpu = '';
    if (has(h.cpu_busy_percent) || cpuDetails) {
      cpu = 'CPU ' + (has(h.cpu_busy_percent) ? percent(h.cpu_busy_percent) : 'N/A') + (cpuDetails ? ' (' + cpuDetails + ')' : '');
    }
    var swap = has(h.swap_in_pages_per_s) || has(h.swap_out_pages_per_s)
      ? 'swap ' + Math.round((h.swap_in_pages_per_s || 0) + (h.swap_out_pages_per_s || 0)) + ' pg/s' : '';
    var mem = joined([has(h.memory_available_percent) ? percent(h.memory_available_percent) + ' avail' : '', swap,
                      labelled('PSI', h.memory_pressure_some_percent, percent)], ', ');
    var rates = joined([labelled('R', h.disk_read_bytes_per_s, byteRate), labelled('W', h.disk_write_bytes_per_s, byteRate)], ' ');
    var disk = joined([rates, labelled('busy', h.disk_busy_percent, percent), labelled('PSI', h.io_pressure_some_percent, percent)], ', ');
    var pair = function (label, rx, tx) {
      var text = joined([labelled('RX', rx, byteRate), labelled('TX', tx, byteRate)], ' ');
      return text ? label + ' ' + text : '';
    };
    return joined([cpu, mem ? 'mem ' + mem : '', disk ? 'disk ' + disk : '', pair('net', h.net_rx_bytes_per_s, h.net_tx_bytes_per_s),
                   pair('IB', h.ib_rx_bytes_per_s, h.ib_tx_bytes_per_s)], ' | ') || 'N/A';
  }

  function anyValue(column) {
    if (!column) return false;
    for (var i = 0; i < column.length; i++) if (has(column[i])) return true;
    return false;
  }

  // SECTION: the panel (hidden until there is data); LINE: the host line's element; GRID: the charts' box.
  function HostPanel(section, line, grid, visibleRange, height) {
    this.section = section;
    this.line = line;
    this.grid = grid;
    this.visibleRange = visibleRange;
    this.height = height;
    this.charts = null;
    this.shape = '';  // which series the charts were built with
    this.columns = { t: [], v: {} };
  }
  // No host signals on this server (404, or latest null): the panel goes.
  HostPanel.prototype.hide = function () {
    this.section.hidden = true;
    document.body.dataset.host = 'off';
  };
  // ANSWER: the body of /api/v1/host.
  HostPanel.prototype.show = function (answer) {
    if (!answer || !answer.latest) { this.hide(); return; }
    var series = answer.series || {}, t = series.t || [];
    var v = {};
    Object.keys(series).forEach(function (k) { if (k !== 't') v[k] = series[k]; });
    this.columns = { t: t, v: v };
    var defs = HOST_CHARTS.map(function (chart) {
      var kept = chart.series.filter(function (s) { return !s.optional || anyValue(v[s.field]) || has(answer.latest[s.field]); });
      return { key: chart.key, title: chart.title, unit: chart.unit, decimals: chart.decimals, max: chart.max, series: kept };
    });
    var shape = defs.map(function (d) { return d.series.map(function (s) { return s.field; }).join(','); }).join(';');
    var text = hostLineText(answer.latest);
    if (this.line.textContent !== text) this.line.textContent = text;
    this.section.hidden = false;
    document.body.dataset.host = 'on';
    if (shape !== this.shape) {  // built when first shown (a hidden box has no width), rebuilt when IB comes or goes
      if (this.charts) this.charts.destroy();
      this.grid.textContent = '';
      this.charts = new Charts.SeriesCharts(this.grid, defs, this.visibleRange, this.height, 'gpuwatch-host');
      this.shape = shape;
    }
  };
  HostPanel.prototype.draw = function (maxGapS) {
    if (!this.charts || this.section.hidden) return;
    var from = this.visibleRange()[0], c = this.columns;
    this.charts.update(c, maxGapS);
    var points = 0;
    for (var i = 0; i < c.t.length; i++) if (c.t[i] >= from) points++;
    this.section.dataset.points = String(points);  // for tests
  };
  HostPanel.prototype.resize = function () { if (this.charts) this.charts.resize(); };

  window.GpuwatchHost = { HostPanel: HostPanel, HOST_CHARTS: HOST_CHARTS, hostLineText: hostLineText, byteRate: byteRate };
})();
