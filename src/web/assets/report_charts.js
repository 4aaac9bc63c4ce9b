// gpuwatch report charts (src/report/html_charts.cpp): fills the chart divs of the page with
// uPlot charts from the JSON in script#gpuwatch-report-data:
//   { charts: [{key, title, unit, decimals, max|null}],
//     time_s: [...],                                   one time axis for every GPU
//     utc: true|false,                                  times in UTC (report --utc) or local
//     gpus: [{label, index, severity|null, series: {KEY: [value|null, ...]}}] }
//  * div.node-chart[data-series=KEY]: every GPU overlaid, one series each (a colour-blind-safe
//    palette, dashed after 8 GPUs); a GPU with a warning or critical finding is drawn thicker.
//    Hovering a line picks it out (the others fade).
//  * div.chart[data-gpu=G][data-series=KEY] inside a collapsed details.gpu-detail: GPU G alone,
//    drawn when the details is first opened.
// All charts share one cursor and one time range: drag to zoom in any chart (all follow),
// double-click to zoom out again. null is a gap (no value recorded), never 0. With
// script#job-boundaries ({start_ms, end_ms|null}, report --job) the job's start and end are
// drawn as vertical lines.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('gpuwatch-report-data').textContent);
  var boundaryNode = document.getElementById('job-boundaries');
  var boundaries = [];
  if (boundaryNode) {
    var job = JSON.parse(boundaryNode.textContent);
    if (job.start_ms !== null && job.start_ms !== undefined) boundaries.push(job.start_ms / 1000);
    if (job.end_ms !== null && job.end_ms !== undefined) boundaries.push(job.end_ms / 1000);
  }
  var charts = {};
  data.charts.forEach(function (c) { charts[c.key] = c; });
  // The page's colours (report.css: light, or dark by prefers-color-scheme), read once.
  function css(name, fallback) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
  }
  var chartText = css('--chart-text', '#1d1d1f'), chartGrid = css('--chart-grid', 'rgba(0,0,0,.1)');
  var boundaryColour = css('--chart-boundary', '#6a1b9a');
  // Okabe & Ito's palette (safe for the common colour-vision deficiencies), yellow swapped for
  // grey for contrast, black for white on a dark page; after 8 GPUs the colours repeat, dashed.
  var palette = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', css('--chart-eighth', '#000000'),
                 '#7F7F7F'];
  // Times as `gpuwatch status` writes them (24-hour, 2026-11-30 13:08:29), in the zone of the
  // page's other times: UTC with `report --utc`, else the viewer's local zone.
  function dateOf(t) {
    return data.utc ? uPlot.tzDate(new Date(t * 1e3), 'Etc/UTC') : new Date(t * 1e3);
  }
  function two(n) { return n < 10 ? '0' + n : String(n); }
  function dayText(d) { return d.getFullYear() + '-' + two(d.getMonth() + 1) + '-' + two(d.getDate()); }
  function clockText(d, seconds) {
    return two(d.getHours()) + ':' + two(d.getMinutes()) + (seconds ? ':' + two(d.getSeconds()) : '');
  }
  // Tick labels by tick spacing (uPlot's table form: [incr, format, the format when the
  // year / day / ... changes, ...]): 24-hour clock, dates as YYYY-MM-DD.
  var timeTicks = [
    [3600 * 24 * 365, '{YYYY}', null, null, null, null, null, null, 1],
    [3600 * 24 * 28, '{YYYY}-{MM}', null, null, null, null, null, null, 1],
    [3600 * 24, '{MM}-{DD}', '\n{YYYY}', null, null, null, null, null, 1],
    [3600, '{HH}:{mm}', '\n{YYYY}-{MM}-{DD}', null, '\n{MM}-{DD}', null, null, null, 1],
    [60, '{HH}:{mm}', '\n{YYYY}-{MM}-{DD}', null, '\n{MM}-{DD}', null, null, null, 1],
    [1, '{HH}:{mm}:{ss}', '\n{YYYY}-{MM}-{DD}', null, '\n{MM}-{DD}', null, null, null, 1]
  ];
  function cursorTime(u, t) {
    if (t === null || t === undefined) return '--';
    var d = dateOf(t);
    return dayText(d) + ' ' + clockText(d, true);
  }
  var plots = [];
  var syncing = false;
  var drawn = 0;

  function shareTimeRange(u, key) {
    if (key !== 'x' || syncing) return;
    syncing = true;
    plots.forEach(function (other) {
      if (other !== u) other.setScale('x', { min: u.scales.x.min, max: u.scales.x.max });
    });
    syncing = false;
  }

  function yRange(chart) {
    return function (u, min, max) {
      var top = chart.max !== null ? Math.max(chart.max, max || 0) : (max > 0 ? max * 1.1 : 1);
      return [0, top];
    };
  }

  function valueText(chart) {
    return function (u, v, seriesIndex, index) {
      if (index === null || index === undefined) return '--';  // cursor not on the chart
      return v === null || v === undefined ? 'N/A' : v.toFixed(chart.decimals) + ' ' + chart.unit;
    };
  }

  function drawBoundaries(u) {
    if (!boundaries.length) return;
    var ctx = u.ctx;
    ctx.save();
    ctx.strokeStyle = boundaryColour;
    ctx.lineWidth = 2;
    ctx.setLineDash([6, 4]);
    boundaries.forEach(function (t) {
      var x = Math.round(u.valToPos(t, 'x', true));
      if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.stroke();
    });
    ctx.restore();
  }

  function width(box) {
    return Math.max(300, box.clientWidth || 480);
  }

  function make(box, chart, series, columns, legend) {
    var plot = new uPlot({
      title: chart.title + ' [' + chart.unit + ']',
      width: width(box),
      height: 200,
      legend: { show: legend },
      focus: { alpha: 0.25 },
      cursor: { sync: { key: 'gpuwatch-report' }, drag: { x: true, y: false }, focus: { prox: 24 } },
      scales: { x: { time: true }, y: { range: yRange(chart) } },
      series: [{ value: cursorTime }].concat(series),
      // wide spacing between time labels: they never run into each other, at any range
      axes: [{ space: 80, values: timeTicks, stroke: chartText, grid: { stroke: chartGrid, width: 1 },
               ticks: { stroke: chartGrid, width: 1 } },
             { size: 64, space: 40, stroke: chartText, grid: { stroke: chartGrid, width: 1 },
               ticks: { stroke: chartGrid, width: 1 } }],
      tzDate: dateOf,
      hooks: { setScale: [shareTimeRange], draw: [drawBoundaries] }
    }, [data.time_s].concat(columns), box);
    plots.push(plot);
    drawn += 1;
    document.body.setAttribute('data-charts-drawn', String(drawn));
    return plot;
  }

  function recordedIn(values) {
    return values.some(function (v) { return v !== null; });
  }

  function drawNode(box) {
    var chart = charts[box.dataset.series];
    var series = [], columns = [];
    data.gpus.forEach(function (gpu, i) {
      var values = gpu.series[chart.key];
      series.push({
        label: gpu.label,
        stroke: palette[i % palette.length],
        dash: i >= palette.length ? [6, 3] : undefined,
        width: gpu.severity ? 2.75 : 1.25,
        spanGaps: false,
        value: valueText(chart)
      });
      columns.push(values);
    });
    var any = columns.some(recordedIn);
    var plot = make(box, chart, series, columns, data.gpus.length <= 16);
    if (!any) plot.root.querySelector('.u-title').textContent += ' (no values recorded)';
  }

  function drawGpu(box) {
    var g = +box.dataset.gpu;
    var gpu = data.gpus[g];
    var chart = charts[box.dataset.series];
    var values = gpu.series[chart.key];
    var color = palette[g % palette.length];
    var plot = make(box, chart, [{
      label: gpu.label,
      stroke: color,
      fill: color + '22',
      width: 1.5,
      spanGaps: false,
      value: valueText(chart)
    }], [values], true);
    if (!recordedIn(values)) plot.root.querySelector('.u-title').textContent += ' (no values recorded)';
  }

  document.querySelectorAll('div.node-chart[data-series]').forEach(drawNode);
  // A GPU's own charts: drawn the first time its details opens (they need a width to draw at).
  document.querySelectorAll('details.gpu-detail').forEach(function (details) {
    details.addEventListener('toggle', function () {
      if (!details.open || details.dataset.drawn) return;
      details.dataset.drawn = 'true';
      details.querySelectorAll('div.chart[data-gpu][data-series]').forEach(drawGpu);
    });
  });
  window.addEventListener('resize', function () {
    plots.forEach(function (p) {
      p.setSize({ width: Math.max(300, p.root.parentNode.clientWidth), height: 200 });
    });
  });
  document.body.setAttribute('data-charts-drawn', String(drawn));
  document.body.setAttribute('data-charts-ready', 'true');
})();
