// Copyright spate authors.
// The Structured Streaming page of spate's monitoring server (docs/observability.md), as
// Spark's Structured Streaming tab: /StreamingQuery/ lists the active and completed runs,
// /StreamingQuery/statistics/?id=<runId> charts one run's retained progress. Everything
// comes from the server's JSON (/api/v1/streams, /api/v1/streams/<runId>/progress: the
// StreamingQueryStatusListener's record, already redacted), polled about once a second;
// the charts are inline SVG drawn here. Text from the server is only ever set as
// textContent (never parsed as HTML).
//
// For tests and for anyone curious, window.spateStreaming holds what is shown: `page`,
// `updates` (completed refreshes), `queries` (the list page's runs) or `run` and `charts`
// (the statistics page: per chart the batch ids `x` and the plotted values `series`,
// name -> array with null where a batch has no value).
'use strict';
(function () {
  const POLL_MS = 1000;
  const SVG = 'http://www.w3.org/2000/svg';
  const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b',
                  '#e377c2', '#7f7f7f'];
  const shown = { page: null, updates: 0, error: null };
  window.spateStreaming = shown;

  // ---- small DOM helpers ----
  function el(tag, attrs, children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    for (const c of children || []) {
      e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return e;
  }
  function svg(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    return e;
  }
  function text(v) { return v === null || v === undefined ? '' : String(v); }

  // ---- formatting ----
  function fmtTime(ms) {
    if (ms === null || ms === undefined) return '';
    return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  }
  function fmtDuration(ms) {
    if (ms === null || ms === undefined) return '';
    const s = ms / 1000;
    if (s < 60) return s.toFixed(s < 10 ? 1 : 0) + ' s';
    if (s < 3600) return (s / 60).toFixed(1) + ' min';
    if (s < 86400) return (s / 3600).toFixed(1) + ' h';
    return (s / 86400).toFixed(1) + ' days';
  }
  function fmtNumber(v) {
    if (v === null || v === undefined || !isFinite(v)) return 'NaN';
    const a = Math.abs(v);
    if (a >= 1e9) return (v / 1e9).toFixed(2) + 'G';
    if (a >= 1e6) return (v / 1e6).toFixed(2) + 'M';
    if (a >= 1e4) return (v / 1e3).toFixed(1) + 'k';
    if (Number.isInteger(v)) return String(v);
    return v.toFixed(a >= 100 ? 0 : 2);
  }

  async function getJson(path) {
    const r = await fetch(path, { cache: 'no-store' });
    if (!r.ok) {
      const e = new Error(path + ': HTTP ' + r.status);
      e.status = r.status;
      throw e;
    }
    return r.json();
  }
  function setConnection(ok, message) {
    const c = document.getElementById('conn');
    c.className = 'conn ' + (ok ? 'live' : 'down');
    c.textContent = ok ? 'live' : 'disconnected';
    c.title = ok ? 'updated ' + new Date().toISOString() : message;
  }
  // Runs `refresh` now and then POLL_MS after each one ends (never two at once).
  function poll(refresh) {
    const tick = async () => {
      try {
        await refresh();
        shown.updates += 1;
        shown.error = null;
        setConnection(true);
      } catch (e) {
        shown.error = String(e);
        setConnection(false, String(e));
      }
      setTimeout(tick, POLL_MS);
    };
    tick();
  }

  // ---- the list page ----
  function statisticsLink(run, label) {
    return el('a', { href: '/StreamingQuery/statistics/?id=' + encodeURIComponent(run.runId) },
              [label]);
  }
  function queryTable(runs, finished) {
    const cols = ['Name', 'Status', 'ID', 'Run ID', 'Start Time', 'Duration', 'Avg Input /sec',
                  'Avg Process /sec', 'Latest Batch'];
    if (finished) cols.push('Error');
    const head = el('tr', {}, cols.map((c) => el('th', {}, [c])));
    const rows = runs.map((r) => {
      const cells = [
        el('td', {}, [statisticsLink(r, r.name === null ? '<no name>' : r.name)]),
        el('td', { class: 'status-' + r.status }, [r.status]),
        el('td', { class: 'mono' }, [r.id]),
        el('td', { class: 'mono' }, [statisticsLink(r, r.runId)]),
        el('td', {}, [fmtTime(r.startTimestamp)]),
        el('td', { class: 'num' }, [fmtDuration(r.durationMs)]),
        el('td', { class: 'num' }, [r.avgInputRowsPerSecond === null ? 'NaN' : fmtNumber(r.avgInputRowsPerSecond)]),
        el('td', { class: 'num' }, [r.avgProcessedRowsPerSecond === null ? 'NaN' : fmtNumber(r.avgProcessedRowsPerSecond)]),
        el('td', { class: 'num' }, [text(r.latestBatchId)]),
      ];
      if (finished) cells.push(el('td', { class: 'error' }, [text(r.exception)]));
      return el('tr', { 'data-run-id': r.runId }, cells);
    });
    return el('table', { class: 'queries', id: finished ? 'completed' : 'active' },
              [el('thead', {}, [head]), el('tbody', {}, rows)]);
  }
  function listPage(app) {
    shown.page = 'list';
    shown.queries = [];
    poll(async () => {
      const runs = await getJson('/api/v1/streams');
      const active = runs.filter((r) => r.isActive);
      const done = runs.filter((r) => !r.isActive);
      const parts = [];
      for (const [title, list, finished] of [['Active Streaming Queries', active, false],
                                             ['Completed Streaming Queries', done, true]]) {
        parts.push(el('h2', {}, [title + ' (' + list.length + ')']));
        parts.push(list.length ? queryTable(list, finished)
                               : el('p', { class: 'empty' }, ['None.']));
      }
      app.replaceChildren(...parts);
      shown.queries = runs;
    });
  }

  // ---- charts ----
  // The plotted data of one run's progress (oldest first): per chart the batch ids and
  // the series, as Spark's statistics page computes them. Only batches that ran are
  // plotted: a trigger that found no data before the run's first batch reports a progress
  // (Spark's too) with the next batch's id and no addBatch, which is not a batch.
  function chartData(allProgress) {
    const progress = allProgress.filter((p) => 'addBatch' in (p.durationMs || {}));
    const x = progress.map((p) => p.batchId);
    const num = (v) => (typeof v === 'number' && isFinite(v) ? v : null);
    const ms = (t) => { const v = Date.parse(t); return isNaN(v) ? null : v; };
    const stateSum = (p, field) => (p.stateOperators && p.stateOperators.length
      ? p.stateOperators.reduce((s, o) => s + (num(o[field]) || 0), 0) : null);
    const ops = [];
    for (const p of progress) {
      for (const k of Object.keys(p.durationMs || {})) {
        if (k !== 'triggerExecution' && !ops.includes(k)) ops.push(k);
      }
    }
    const opSeries = {};
    for (const k of ops) opSeries[k] = progress.map((p) => num((p.durationMs || {})[k]));
    const gap = progress.map((p) => {
      const wm = p.eventTime && p.eventTime.watermark ? ms(p.eventTime.watermark) : null;
      const ts = ms(p.timestamp);
      // As Spark: only batches whose watermark is set (> 0), in seconds.
      return wm !== null && wm > 0 && ts !== null ? (ts - wm) / 1000 : null;
    });
    const one = (title, unit, name, values) => ({ title, unit, x, series: { [name]: values } });
    return {
      inputRate: one('Input Rate', 'records/sec', 'inputRowsPerSecond',
                     progress.map((p) => num(p.inputRowsPerSecond))),
      processRate: one('Process Rate', 'records/sec', 'processedRowsPerSecond',
                       progress.map((p) => num(p.processedRowsPerSecond))),
      inputRows: one('Input Rows', 'records', 'numInputRows',
                     progress.map((p) => num(p.numInputRows))),
      batchDuration: one('Batch Duration', 'ms', 'batchDuration',
                         progress.map((p) => num(p.batchDuration))),
      operationDuration: { title: 'Operation Duration', unit: 'ms', x, series: opSeries },
      watermarkGap: one('Global Watermark Gap', 'seconds', 'watermarkGap', gap),
      stateRows: one('Aggregated Number Of Total State Rows', 'records', 'numRowsTotal',
                     progress.map((p) => stateSum(p, 'numRowsTotal'))),
      stateUpdated: one('Aggregated Number Of Updated State Rows', 'records', 'numRowsUpdated',
                        progress.map((p) => stateSum(p, 'numRowsUpdated'))),
      stateMemory: one('Aggregated State Memory Used In Bytes', 'bytes', 'memoryUsedBytes',
                       progress.map((p) => stateSum(p, 'memoryUsedBytes'))),
      droppedRows: one('Aggregated Number Of Rows Dropped By Watermark', 'records',
                       'numRowsDroppedByWatermark',
                       progress.map((p) => stateSum(p, 'numRowsDroppedByWatermark'))),
    };
  }

  // A round upper bound for the y axis: 1, 2 or 5 times a power of ten.
  function niceMax(v) {
    if (!(v > 0)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 5, 10]) if (v <= m * p) return m * p;
    return 10 * p;
  }
  // One line chart (a polyline per series) as an <svg>, 480 x 200 user units.
  function drawChart(key, chart) {
    const W = 480, H = 200, L = 56, R = 12, T = 10, B = 28;
    const names = Object.keys(chart.series);
    let max = 0;
    for (const n of names) for (const v of chart.series[n]) if (v !== null && v > max) max = v;
    const top = niceMax(max);
    const n = chart.x.length;
    const xAt = (i) => L + (n <= 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (n - 1));
    const yAt = (v) => T + (H - T - B) * (1 - v / top);
    const s = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': chart.title,
                           'data-chart': key });
    for (let g = 0; g <= 4; ++g) {
      const v = (top * g) / 4;
      s.appendChild(svg('line', { class: 'grid', x1: L, x2: W - R, y1: yAt(v), y2: yAt(v) }));
      const t = svg('text', { x: L - 4, y: yAt(v) + 4, 'text-anchor': 'end' });
      t.textContent = fmtNumber(v);
      s.appendChild(t);
    }
    s.appendChild(svg('line', { class: 'axis', x1: L, x2: L, y1: T, y2: H - B }));
    s.appendChild(svg('line', { class: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B }));
    if (n) {
      for (const [i, anchor] of [[0, 'start'], [n - 1, 'end']]) {
        const t = svg('text', { x: xAt(i), y: H - B + 16, 'text-anchor': n === 1 ? 'middle' : anchor });
        t.textContent = 'batch ' + chart.x[i];
        s.appendChild(t);
      }
    }
    names.forEach((name, si) => {
      const color = COLORS[si % COLORS.length];
      const values = chart.series[name];
      const pts = [];
      values.forEach((v, i) => { if (v !== null) pts.push(`${xAt(i).toFixed(1)},${yAt(v).toFixed(1)}`); });
      s.appendChild(svg('polyline', { points: pts.join(' '), stroke: color, 'data-series': name,
                                      'data-points': pts.length }));
      values.forEach((v, i) => {
        if (v === null) return;
        const c = svg('circle', { cx: xAt(i).toFixed(1), cy: yAt(v).toFixed(1), r: 2.5, fill: color });
        const tip = svg('title');
        tip.textContent = `batch ${chart.x[i]}: ${name} ${fmtNumber(v)} ${chart.unit}`;
        c.appendChild(tip);
        s.appendChild(c);
      });
    });
    return s;
  }
  function chartBox(key, chart) {
    const names = Object.keys(chart.series);
    const any = names.some((n) => chart.series[n].some((v) => v !== null));
    const box = el('div', { class: 'chart', id: 'chart-' + key },
                   [el('h3', {}, [chart.title + ' (' + chart.unit + ')'])]);
    if (!any) {
      box.appendChild(el('p', { class: 'none' }, ['No data in the retained progress.']));
      return box;
    }
    box.appendChild(drawChart(key, chart));
    if (names.length > 1) {
      box.appendChild(el('div', { class: 'legend' }, names.map((nm, i) =>
        el('span', {}, [el('span', { class: 'swatch sw' + (i % COLORS.length) }), nm]))));
    }
    return box;
  }

  // ---- the statistics page ----
  function statisticsPage(app, runId) {
    shown.page = 'statistics';
    shown.runId = runId;
    if (!runId) {
      app.replaceChildren(el('p', { class: 'banner' }, ['No run id: open a query from the ',
        el('a', { href: '/StreamingQuery/' }, ['list']), '.']));
      return;
    }
    const base = '/api/v1/streams/' + encodeURIComponent(runId);
    poll(async () => {
      let run, progress;
      try {
        [run, progress] = await Promise.all([getJson(base), getJson(base + '/progress')]);
      } catch (e) {
        if (e.status !== 404) throw e;
        app.replaceChildren(el('p', { class: 'banner', id: 'unknown-run' }, [
          'No streaming query run with runId ' + runId + ' (finished runs beyond ' +
          'spark.sql.streaming.ui.retainedQueries are dropped). ',
          el('a', { href: '/StreamingQuery/' }, ['All queries']), '.']));
        shown.run = null;
        shown.charts = null;
        return;
      }
      const charts = chartData(progress);
      const last = progress.length ? progress[progress.length - 1] : null;
      const info = el('dl', { class: 'info' }, [
        el('dt', {}, ['Name']), el('dd', {}, [run.name === null ? '<no name>' : run.name]),
        el('dt', {}, ['Id']), el('dd', { class: 'mono' }, [run.id]),
        el('dt', {}, ['RunId']), el('dd', { class: 'mono' }, [run.runId]),
        el('dt', {}, ['Status']), el('dd', { class: 'status-' + run.status }, [run.status]),
        el('dt', {}, ['Started']), el('dd', {}, [fmtTime(run.startTimestamp) + ' (' +
          (run.isActive ? 'running for ' : 'ran for ') + fmtDuration(run.durationMs) + ')']),
        el('dt', {}, ['Batches']), el('dd', {}, [run.numBatches + ' retained, latest ' +
          text(run.latestBatchId)]),
        el('dt', {}, ['Sources']), el('dd', { class: 'mono' },
          [last ? last.sources.map((s) => s.description).join(', ') : '']),
        el('dt', {}, ['Sink']), el('dd', { class: 'mono' }, [last ? last.sink.description : '']),
      ]);
      const parts = [el('h2', {}, ['Streaming Query Statistics']), info];
      if (run.exception !== null) parts.push(el('pre', { class: 'banner' }, [run.exception]));
      parts.push(el('div', { class: 'charts' },
                    Object.entries(charts).map(([k, c]) => chartBox(k, c))));
      app.replaceChildren(...parts);
      shown.run = run;
      shown.charts = charts;
    });
  }

  function start() {
    const app = document.getElementById('app');
    if (/\/statistics\/?$/.test(location.pathname)) {
      statisticsPage(app, new URLSearchParams(location.search).get('id'));
    } else {
      listPage(app);
    }
  }
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
