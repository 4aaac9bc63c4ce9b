// gpuwatch serve dashboard: the chart set of one GPU (uPlot). Loaded before dashboard.js,
// which owns the data and calls GpuCharts. Absent values (null in the API) are gaps, never 0;
// a pause in the samples longer than a few intervals is a gap too.
(function () {
  'use strict';
  var GIB = 1024 * 1024 * 1024;
  // One chart per entry; each series reads one column of /api/v1/history (and of the events),
  // multiplied by `scale` into the chart's unit.
  var CHARTS = [
    { key: 'utilization', title: 'Utilization', unit: '%', decimals: 0, max: 100, series: [
      { field: 'utilization_gpu_ratio', label: 'GPU', scale: 100, color: '#1f77b4', fill: true },
      { field: 'utilization_memory_ratio', label: 'Memory', scale: 100, color: '#ff7f0e' }] },
    { key: 'memory', title: 'Memory', unit: 'GiB', decimals: 1, series: [
      { field: 'memory_used_bytes', label: 'Used', scale: 1 / GIB, color: '#8e44ad', fill: true },
      { field: 'memory_total_bytes', label: 'Total', scale: 1 / GIB, color: '#7f8c8d', dash: [6, 4] }] },
    { key: 'temperature', title: 'Temperature', unit: '°C', decimals: 0, series: [
      { field: 'temperature_gpu_c', label: 'GPU', scale: 1, color: '#d62728' },
      { field: 'temperature_memory_c', label: 'Memory', scale: 1, color: '#e377c2' }] },
    { key: 'power', title: 'Power', unit: 'W', decimals: 0, series: [
      { field: 'power_draw_w', label: 'Draw', scale: 1, color: '#2ca02c', fill: true },
      { field: 'power_limit_w', label: 'Limit', scale: 1, color: '#7f8c8d', dash: [6, 4] }] },
    { key: 'clocks', title: 'Clocks', unit: 'MHz', decimals: 0, series: [
      { field: 'clocks_current_sm_hz', label: 'SM', scale: 1e-6, color: '#17becf' },
      { field: 'clocks_current_memory_hz', label: 'Memory', scale: 1e-6, color: '#bcbd22' }] }
  ];
  var FIELDS = [];
  CHARTS.forEach(function (c) { c.series.forEach(function (s) { FIELDS.push(s.field); }); });
  var HEIGHT = 170;
  // Time-axis tick steps (s): uPlot's own jump from 1 to 5 minutes, which leaves a 5-minute chart
  // a single label.
  var TIME_INCRS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200,
                    86400, 172800, 604800];

  function yRange(chart) {
    return function (u, min, max) {
      if (chart.max) return [0, Math.max(chart.max, max || 0)];
      var top = max !== null && max > 0 ? max * 1.1 : 1;
      return [0, top];
    };
  }

  // The legend: the value under the cursor, else the latest value (N/A when absent).
  function legendValue(chart) {
    return function (u, v, seriesIndex, index) {
      if (index === null || index === undefined) {
        var values = u.data[seriesIndex] || [];
        v = values.length ? values[values.length - 1] : null;
      }
      return v === null || v === undefined ? 'N/A' : v.toFixed(chart.decimals) + ' ' + chart.unit;
    };
  }

  // The uPlot data of CHART from a GPU's columns: a null row is put wherever consecutive
  // samples are more than MAX_GAP_S apart, so uPlot breaks the line there.
  function chartData(chart, columns, maxGapS) {
    var t = columns.t;
    var x = [];
    var ys = chart.series.map(function () { return []; });
    for (var i = 0; i < t.length; i++) {
      if (i > 0 && t[i] - t[i - 1] > maxGapS) {
        x.push(t[i - 1] + maxGapS / 2);
        ys.forEach(function (y) { y.push(null); });
      }
      x.push(t[i]);
      chart.series.forEach(function (s, k) {
        var v = columns.v[s.field][i];
        ys[k].push(v === null || v === undefined ? null : v * s.scale);
      });
    }
    return [x].concat(ys);
  }

  function pad(n) { return n < 10 ? '0' + n : String(n); }
  // Time axis labels, 24-hour local time: seconds on short ranges, the date on long ones.
  function timeLabels(u, splits) {
    var span = u.scales.x.max - u.scales.x.min;
    return splits.map(function (s) {
      var d = new Date(s * 1000);
      var hm = pad(d.getHours()) + ':' + pad(d.getMinutes());
      if (span <= 600) return hm + ':' + pad(d.getSeconds());
      if (span <= 2 * 86400) return hm;
      return (d.getMonth() + 1) + '/' + d.getDate() + ' ' + hm;
    });
  }

  // The charts of one GPU inside GRID; visibleRange() gives the visible [from, to] in Unix seconds.
  function GpuCharts(grid, gpuIndex, visibleRange) {
    this.plots = [];
    var self = this;
    CHARTS.forEach(function (chart) {
      var box = document.createElement('div');
      box.className = 'chart';
      box.dataset.chart = chart.key;
      box.dataset.gpu = String(gpuIndex);
      var title = document.createElement('div');
      title.className = 'chart-title';
      title.textContent = chart.title + ' [' + chart.unit + ']';
      box.appendChild(title);
      grid.appendChild(box);
      var series = [{}];
      chart.series.forEach(function (s) {
        series.push({ label: s.label, stroke: s.color, width: 1.5, dash: s.dash, spanGaps: false,
                      fill: s.fill ? s.color + '22' : undefined, value: legendValue(chart) });
      });
      var plot = new uPlot({
        width: Math.max(200, box.clientWidth || 300),
        height: HEIGHT,
        cursor: { sync: { key: 'gpuwatch-dashboard' }, drag: { x: false, y: false } },
        scales: { x: { time: true, range: function () { return visibleRange(); } }, y: { range: yRange(chart) } },
        series: series,
        axes: [{ space: 55, size: 30, incrs: TIME_INCRS, values: timeLabels }, { size: 48 }]
      }, chartData(chart, { t: [], v: {} }, 1), box);
      self.plots.push({ chart: chart, plot: plot, box: box });
    });
  }

  GpuCharts.prototype.update = function (columns, maxGapS) {
    this.plots.forEach(function (p) { p.plot.setData(chartData(p.chart, columns, maxGapS)); });
  };

  GpuCharts.prototype.resize = function () {
    this.plots.forEach(function (p) {
      var width = Math.max(200, p.box.clientWidth);
      if (width !== p.plot.width) p.plot.setSize({ width: width, height: HEIGHT });
    });
  };

  window.GpuwatchCharts = { GpuCharts: GpuCharts, FIELDS: FIELDS, CHARTS: CHARTS, chartData: chartData };
})();
