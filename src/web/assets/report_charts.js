// gpuwatch report charts: fills every div.chart of the page (attributes data-gpu: an
// index into gpus, data-series: a chart key) with a uPlot chart of that GPU's series,
// from the JSON in script#gpuwatch-report-data:
//   { charts: [{key, title, unit, decimals, max|null, color}],
//     gpus: [{label, time_s: [...], series: {KEY: [value|null, ...]}}] }
// All charts share one cursor and one time range: drag to zoom in any chart (all follow),
// double-click to zoom out again. null is a gap (no value recorded), never 0.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('gpuwatch-report-data').textContent);
  var charts = {};
  data.charts.forEach(function (c) { charts[c.key] = c; });
  var plots = [];
  var syncing = false;

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

  function draw(box) {
    var gpu = data.gpus[+box.dataset.gpu];
    var chart = charts[box.dataset.series];
    var values = gpu.series[chart.key];
    var recorded = values.some(function (v) { return v !== null; });
    var width = Math.max(320, box.clientWidth || 480);
    var plot = new uPlot({
      title: chart.title + ' [' + chart.unit + ']' + (recorded ? '' : ' (no values recorded)'),
      width: width,
      height: 220,
      cursor: { sync: { key: 'gpuwatch-report' }, drag: { x: true, y: false } },
      scales: { x: { time: true }, y: { range: yRange(chart) } },
      series: [
        {},
        {
          label: gpu.label,
          stroke: chart.color,
          fill: chart.color + '22',
          width: 1.5,
          spanGaps: false,
          value: function (u, v, seriesIndex, index) {
            if (index === null || index === undefined) return '--';  // cursor not on the chart
            return v === null || v === undefined ? 'N/A' : v.toFixed(chart.decimals) + ' ' + chart.unit;
          }
        }
      ],
      axes: [{}, { size: 60 }],
      hooks: { setScale: [shareTimeRange] }
    }, [gpu.time_s, values], box);
    plots.push(plot);
  }

  document.querySelectorAll('div.chart[data-series]').forEach(draw);
  window.addEventListener('resize', function () {
    plots.forEach(function (p) {
      p.setSize({ width: Math.max(320, p.root.parentNode.clientWidth), height: 220 });
    });
  });
  document.body.setAttribute('data-charts-drawn', String(plots.length));
})();
