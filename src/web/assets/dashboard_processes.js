// gpuwatch serve dashboard: the node's process table (every GPU process once, with the GPUs it
// uses), sortable by any column, from /api/v1/snapshot. Absent values read "–" and sort last.
(function () {
  'use strict';
  var MIB = 1024 * 1024;

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function has(v) { return v !== null && v !== undefined; }
  function duration(s) {
    if (!has(s)) return '–';
    if (s < 60) return Math.round(s) + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min';
    if (s < 86400) return Math.floor(s / 3600) + ' h ' + Math.floor(s % 3600 / 60) + ' min';
    return Math.floor(s / 86400) + ' d ' + Math.floor(s % 86400 / 3600) + ' h';
  }
  function pct(r) { return has(r) ? (r * 100).toFixed(0) + ' %' : '–'; }
  function mib(b) { return has(b) ? (b / MIB).toFixed(0) + ' MiB' : '–'; }

  // One entry per PID: the GPUs it is on, its GPU memory summed over them, the SM % of each.
  function collect(snap) {
    var byPid = {};
    (snap.gpus || []).forEach(function (gpu) {
      (gpu.processes || []).forEach(function (p) {
        var e = byPid[p.pid];
        if (!e) {
          e = byPid[p.pid] = { pid: p.pid, user: p.user, command: p.command_line || p.name, name: p.name, gpus: [],
                               memory: null, sm: null, cpu: p.host_cpu_ratio, rss: p.host_rss_bytes, run: p.run_seconds,
                               owner: p.owner && p.owner.summary ? p.owner.summary : null, ownerInfo: p.owner };
        }
        if (e.gpus.indexOf(gpu.index) < 0) e.gpus.push(gpu.index);
        if (has(p.used_memory_bytes)) e.memory = (e.memory || 0) + p.used_memory_bytes;
        if (has(p.sm_ratio)) e.sm = (e.sm || 0) + p.sm_ratio;
      });
    });
    return Object.keys(byPid).map(function (k) { return byPid[k]; });
  }

  var COLUMNS = [
    { key: 'pid', title: 'PID', num: true },
    { key: 'user', title: 'User' },
    { key: 'command', title: 'Command' },
    { key: 'gpus', title: 'GPU', num: true, sortValue: function (e) { return e.gpus[0]; } },
    { key: 'memory', title: 'GPU memory', num: true },
    { key: 'sm', title: 'SM %', num: true },
    { key: 'cpu', title: 'CPU %', num: true },
    { key: 'rss', title: 'RSS', num: true },
    { key: 'run', title: 'Run time', num: true },
    { key: 'owner', title: 'Container / pod / job' }
  ];

  function ProcessTable(table, onGpu) {
    var self = this;
    this.table = table;
    this.sort = { key: 'memory', dir: -1 };
    this.entries = [];
    this.onGpu = onGpu;
    var head = el('tr');
    this.heads = {};
    COLUMNS.forEach(function (c) {
      var th = el('th');
      th.scope = 'col';
      if (c.num) th.className = 'num';
      var b = el('button', 'sort', c.title);
      b.type = 'button';
      b.addEventListener('click', function () {
        self.sort = { key: c.key, dir: self.sort.key === c.key ? -self.sort.dir : (c.num ? -1 : 1) };
        self.draw();
      });
      th.appendChild(b);
      head.appendChild(th);
      self.heads[c.key] = th;
    });
    table.appendChild(el('thead')).appendChild(head);
    this.body = table.appendChild(el('tbody'));
  }

  ProcessTable.prototype.update = function (snap, onlyGpu) {
    var entries = collect(snap);
    if (onlyGpu !== undefined && onlyGpu !== null) entries = entries.filter(function (e) { return e.gpus.indexOf(onlyGpu) >= 0; });
    var key = JSON.stringify(entries);
    if (key === this.key) return;  // unchanged: keep the DOM (and any selection)
    this.key = key;
    this.entries = entries;
    this.readable = (snap.gpus || []).some(function (g) { return g.processes; });
    this.draw();
  };

  ProcessTable.prototype.draw = function () {
    var self = this, s = this.sort;
    var col = COLUMNS.filter(function (c) { return c.key === s.key; })[0];
    var value = col.sortValue || function (e) { return e[col.key]; };
    var rows = this.entries.slice().sort(function (a, b) {
      var x = value(a), y = value(b);
      if (!has(x) && !has(y)) return a.pid - b.pid;
      if (!has(x)) return 1;  // absent sorts last either way
      if (!has(y)) return -1;
      if (x < y) return -s.dir;
      if (x > y) return s.dir;
      return a.pid - b.pid;
    });
    COLUMNS.forEach(function (c) {
      self.heads[c.key].setAttribute('aria-sort', c.key === s.key ? (s.dir > 0 ? 'ascending' : 'descending') : 'none');
    });
    this.body.textContent = '';
    if (!rows.length) {
      var tr = el('tr', 'none');
      var td = el('td', null, this.readable ? 'No GPU processes.' : 'Process list not available (no GPU up, or not readable).');
      td.colSpan = COLUMNS.length;
      tr.appendChild(td);
      this.body.appendChild(tr);
      return;
    }
    rows.forEach(function (e) {
      var tr = el('tr');
      tr.dataset.pid = String(e.pid);
      tr.appendChild(el('td', 'num', String(e.pid)));
      tr.appendChild(el('td', null, has(e.user) ? e.user : '–'));
      var cmd = el('td', 'cmd', e.command || '–');
      cmd.title = e.command || '';
      tr.appendChild(cmd);
      var gpus = el('td', 'num');
      e.gpus.forEach(function (g, k) {
        if (k) gpus.appendChild(document.createTextNode(', '));
        var a = el('a', 'gpu-link', String(g));
        a.href = '#gpu=' + g;
        gpus.appendChild(a);
      });
      tr.appendChild(gpus);
      var mem = el('td', 'num', mib(e.memory));
      mem.dataset.bytes = has(e.memory) ? String(e.memory) : '';
      tr.appendChild(mem);
      tr.appendChild(el('td', 'num', pct(e.sm)));
      tr.appendChild(el('td', 'num', pct(e.cpu)));
      tr.appendChild(el('td', 'num', mib(e.rss)));
      tr.appendChild(el('td', 'num', duration(e.run)));
      var owner = el('td', 'owner', e.owner || '–');
      if (e.ownerInfo && e.owner) {
        owner.title = ['pod_uid', 'container_id', 'runtime', 'slurm_user']
          .filter(function (k) { return has(e.ownerInfo[k]); })
          .map(function (k) { return k + ': ' + e.ownerInfo[k]; }).join('\n');
      }
      tr.appendChild(owner);
      self.body.appendChild(tr);
    });
  };

  window.GpuwatchProcesses = { ProcessTable: ProcessTable, collect: collect, duration: duration };
})();
