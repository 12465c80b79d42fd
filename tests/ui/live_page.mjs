// Copyright spate authors.
// The monitoring server's live page in headless Chromium (Debian's chromium, driven by
// playwright-core): ui_driver runs a real streaming query with the UI on; the test opens
// the list page and a run's statistics page, waits (conditions with timeouts, never
// sleeps) for batches, checks that the plotted series equal what /api/v1 serves for the
// same batches, that they grow as batches run and stay bounded by
// spark.sql.streaming.ui.retainedProgressUpdates, that every chart drew its points, and
// takes screenshots under the build folder (checked to be real PNGs of a real size).
// Usage: node live_page.mjs <ui_driver> <output folder>
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { chromium } from 'playwright-core';

const [driverPath, outDir] = process.argv.slice(2);
if (!driverPath || !outDir) {
  console.error('usage: node live_page.mjs <ui_driver> <output folder>');
  process.exit(2);
}
const RETAINED = 10;  // spark.sql.streaming.ui.retainedProgressUpdates given to the driver
const WAIT_MS = 90_000;
const chromiumPath = process.env.SPATE_CHROMIUM || '/usr/bin/chromium';

let failures = 0;
let passes = 0;
function check(ok, what) {
  if (ok) {
    passes += 1;
  } else {
    failures += 1;
    console.error('FAIL: ' + what);
  }
}
function must(ok, what) {
  if (!ok) throw new Error(what);
}

// A watchdog: whatever hangs, the test ends.
const watchdog = setTimeout(() => {
  console.error('FAIL: the test did not finish in 240 s');
  process.exit(1);
}, 240_000);

const driver = spawn(driverPath, [String(RETAINED)], { stdio: ['pipe', 'pipe', 'inherit'] });
const driverExit = new Promise((resolve) => driver.on('exit', (code, signal) => resolve({ code, signal })));
const lines = readline.createInterface({ input: driver.stdout });
const announced = {};
const announcedAll = new Promise((resolve, reject) => {
  lines.on('line', (line) => {
    const [key, value] = line.split(' ', 2);
    announced[key] = value;
    if (announced.URL && announced.FINISHED && announced.RUNNING) resolve(announced);
  });
  driverExit.then(({ code }) => reject(new Error('ui_driver exited early with ' + code)));
  setTimeout(() => reject(new Error('ui_driver announced nothing in 60 s')), 60_000);
});

async function api(url) {
  const r = await fetch(url);
  must(r.ok, url + ': HTTP ' + r.status);
  return r.json();
}

// What each chart must plot for one progress entry, from Spark's progress JSON.
function expectedPoint(key, series, p) {
  const num = (v) => (typeof v === 'number' ? v : null);
  const stateSum = (f) => (p.stateOperators.length
    ? p.stateOperators.reduce((s, o) => s + o[f], 0) : null);
  switch (key) {
    case 'inputRate': return num(p.inputRowsPerSecond);
    case 'processRate': return num(p.processedRowsPerSecond);
    case 'inputRows': return p.numInputRows;
    case 'batchDuration': return p.batchDuration;
    case 'operationDuration': return num(p.durationMs[series]);
    case 'watermarkGap': {
      const wm = p.eventTime.watermark ? Date.parse(p.eventTime.watermark) : 0;
      return wm > 0 ? (Date.parse(p.timestamp) - wm) / 1000 : null;
    }
    case 'stateRows': return stateSum('numRowsTotal');
    case 'stateUpdated': return stateSum('numRowsUpdated');
    case 'stateMemory': return stateSum('memoryUsedBytes');
    case 'droppedRows': return stateSum('numRowsDroppedByWatermark');
    default: throw new Error('unexpected chart ' + key);
  }
}
const CHARTS = ['inputRate', 'processRate', 'inputRows', 'batchDuration', 'operationDuration',
                'watermarkGap', 'stateRows', 'stateUpdated', 'stateMemory', 'droppedRows'];

// The page's plotted data against the served progress, batch by batch (the batches both
// hold: the page read the progress a moment before the test did).
function compareWithApi(charts, allProgress, label) {
  // The batches that ran (the page plots no trigger that ran none).
  const progress = allProgress.filter((p) => 'addBatch' in p.durationMs);
  const byBatch = new Map(progress.map((p) => [p.batchId, p]));
  check(JSON.stringify(Object.keys(charts).sort()) === JSON.stringify([...CHARTS].sort()),
        `${label}: the page has the charts ${CHARTS.join(', ')}: ${Object.keys(charts)}`);
  let compared = 0;
  for (const key of CHARTS) {
    const c = charts[key];
    if (!c) continue;
    const ops = new Set();
    for (const p of progress) {
      for (const k of Object.keys(p.durationMs)) if (k !== 'triggerExecution') ops.add(k);
    }
    if (key === 'operationDuration') {
      for (const k of ops) {
        check(k in c.series || !c.x.some((b) => byBatch.has(b) && k in byBatch.get(b).durationMs),
              `${label}: operation ${k} is plotted`);
      }
      check(!('triggerExecution' in c.series), `${label}: triggerExecution is not an operation`);
    }
    c.x.forEach((batchId, i) => {
      const p = byBatch.get(batchId);
      if (!p) return;
      for (const [name, values] of Object.entries(c.series)) {
        const want = expectedPoint(key, name, p);
        check(values[i] === want,
              `${label}: ${key}.${name} of batch ${batchId}: page ${values[i]}, /api/v1 ${want}`);
        compared += 1;
      }
    });
  }
  return compared;
}

function checkPng(file, minWidth, minHeight) {
  must(fs.existsSync(file), 'no screenshot at ' + file);
  const b = fs.readFileSync(file);
  const signature = '89504e470d0a1a0a';
  check(b.subarray(0, 8).toString('hex') === signature, file + ' is a PNG');
  const width = b.readUInt32BE(16);
  const height = b.readUInt32BE(20);
  check(width >= minWidth && height >= minHeight, `${file} is ${width}x${height}`);
  check(b.length > 20_000, `${file} has ${b.length} bytes (a blank page compresses to less)`);
}

let browser;
let code = 1;
try {
  const { URL: base, FINISHED: finishedRun, RUNNING: runningRun } = await announcedAll;
  browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push('page error: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(`console: ${m.text()} at ${m.location().url}`); });
  const shown = () => page.evaluate(() => window.spateStreaming);

  // The list page: "/" redirects to it; both runs in their tables, as /api/v1/streams.
  await page.goto(base + '/');
  check(new URL(page.url()).pathname === '/StreamingQuery/', 'redirected to /StreamingQuery/: ' + page.url());
  await page.waitForFunction(([r, f]) => {
    const s = window.spateStreaming;
    return s && s.queries && s.queries.some((q) => q.runId === r && q.latestBatchId !== null) &&
      s.queries.some((q) => q.runId === f);
  }, [runningRun, finishedRun], { timeout: WAIT_MS });
  const active = page.locator(`#active tr[data-run-id="${runningRun}"] td`);
  const completed = page.locator(`#completed tr[data-run-id="${finishedRun}"] td`);
  check(await active.nth(0).textContent() === 'ui_rate_windows', 'active row name');
  check(await active.nth(1).textContent() === 'RUNNING', 'active row status');
  check(await active.nth(3).textContent() === runningRun, 'active row run id');
  check(/^\d+$/.test(await active.nth(8).textContent()), 'active row latest batch is a number');
  check(await completed.nth(0).textContent() === 'ui_finished_counts', 'completed row name');
  check(await completed.nth(1).textContent() === 'FINISHED', 'completed row status');
  check(await completed.nth(8).textContent() === '1', 'completed row latest batch 1');
  const served = await api(base + '/api/v1/streams');
  const listed = (await shown()).queries;
  check(JSON.stringify(listed.map((q) => [q.runId, q.id, q.name])) ===
        JSON.stringify(served.map((q) => [q.runId, q.id, q.name])),
        'the list page shows the runs of /api/v1/streams');
  fs.mkdirSync(outDir, { recursive: true });
  const listShot = path.join(outDir, 'live_page_list.png');
  await page.screenshot({ path: listShot, fullPage: true });

  // The running query's statistics page, reached by its link.
  await page.locator(`#active tr[data-run-id="${runningRun}"] td a`).first().click();
  await page.waitForURL((u) => u.pathname === '/StreamingQuery/statistics/' &&
                               u.searchParams.get('id') === runningRun, { timeout: WAIT_MS });
  const waiting = { timeout: WAIT_MS, polling: 100 };
  await page.waitForFunction(() => {
    const c = window.spateStreaming.charts;
    return c && c.inputRows.x.length >= 3 &&
      c.watermarkGap.series.watermarkGap.some((v) => v !== null) &&
      c.inputRows.series.numInputRows.some((v) => v > 0);
  }, null, waiting);
  // The page's charts and the served progress, read one after the other; until the
  // served progress still holds the page's latest batch (the query may have run more
  // batches than are retained in between, on a loaded machine), again after the page's
  // next refresh.
  const lookTogether = async (label) => {
    for (;;) {
      const s = await shown();
      const progress = await api(`${base}/api/v1/streams/${runningRun}/progress`);
      const last = s.charts.inputRows.x.at(-1);
      if (progress.some((p) => p.batchId === last)) return [s, progress];
      console.log(`${label}: the page's batch ${last} is no longer retained; again`);
      await page.waitForFunction((n) => window.spateStreaming.updates > n, s.updates, waiting);
    }
  };
  const [first, firstProgress] = await lookTogether('first look');
  check(first.run.runId === runningRun && first.run.status === 'RUNNING', 'statistics of the running run');
  check(compareWithApi(first.charts, firstProgress, 'first look') > 0, 'first look compared some points');
  check(first.charts.stateRows.series.numRowsTotal.every((v) => v !== null),
        'a stateful query has state rows in every batch');
  check(first.charts.watermarkGap.series.watermarkGap.every((v) => v === null || v > 0),
        'the watermark trails the batch time');

  // Live: the charts follow new batches, bounded by retainedProgressUpdates.
  const firstLast = first.charts.inputRows.x.at(-1);
  await page.waitForFunction(([last, retained]) => {
    const c = window.spateStreaming.charts;
    return c.inputRows.x.at(-1) >= last + 3 && c.inputRows.x.length === retained;
  }, [firstLast, RETAINED], waiting);
  const [later, laterProgress] = await lookTogether('later look');
  check(later.updates > first.updates, `the page refreshed (${first.updates} -> ${later.updates})`);
  check(later.charts.inputRows.x.length === RETAINED && laterProgress.length <= RETAINED,
        `at most ${RETAINED} batches kept (page ${later.charts.inputRows.x.length}, api ${laterProgress.length})`);
  check(compareWithApi(later.charts, laterProgress, 'later look') > 0, 'later look compared some points');
  // Every chart with data drew one point per value (polyline and circles).
  for (const key of CHARTS) {
    for (const [name, values] of Object.entries(later.charts[key].series)) {
      const n = values.filter((v) => v !== null).length;
      if (!n) continue;
      const drawn = await page.locator(`#chart-${key} polyline[data-series="${name}"]`).getAttribute('data-points');
      check(Number(drawn) === n, `${key}.${name}: ${drawn} points drawn of ${n}`);
    }
  }
  const statsShot = path.join(outDir, 'live_page_statistics.png');
  await page.screenshot({ path: statsShot, fullPage: true });

  // The finished run: its two batches, FINISHED.
  await page.goto(`${base}/StreamingQuery/statistics/?id=${finishedRun}`);
  await page.waitForFunction(() => window.spateStreaming.run !== undefined, null, waiting);
  const fin = await shown();
  check(fin.run.status === 'FINISHED', 'finished run status ' + fin.run.status);
  check(JSON.stringify(fin.charts.inputRows.x) === '[0,1]', 'finished run batches ' + fin.charts.inputRows.x);
  check(JSON.stringify(fin.charts.inputRows.series.numInputRows) === '[2,1]', 'finished run input rows');
  check(fin.charts.watermarkGap.series.watermarkGap.every((v) => v === null), 'no watermark, no gap');
  check(await page.locator('#chart-watermarkGap svg').count() === 0, 'no watermark chart drawn without a watermark');

  check(pageErrors.length === 0, 'no page errors: ' + pageErrors.join('; '));

  // An unknown run (a 404 from /api/v1, logged by the browser): a message, with the id
  // from the address shown as text, never as markup.
  const evil = '<img src=x id=injected>';
  await page.goto(`${base}/StreamingQuery/statistics/?id=${encodeURIComponent(evil)}`);
  await page.locator('#unknown-run').waitFor(waiting);
  check((await page.locator('#unknown-run').textContent()).includes(evil), 'the unknown id is named');
  check(await page.locator('#injected').count() === 0, 'text from the address is not markup');

  checkPng(listShot, 1280, 400);
  checkPng(statsShot, 1280, 900);

  driver.stdin.end();  // the driver stops its query and exits
  const exit = await Promise.race([driverExit, new Promise((r) => setTimeout(() => r({ code: 'timeout' }), 60_000))]);
  check(exit.code === 0, 'ui_driver exited with ' + exit.code);
  code = failures ? 1 : 0;
} catch (e) {
  console.error('FAIL: ' + (e && e.stack ? e.stack : e));
  failures += 1;
} finally {
  if (browser) await browser.close();
  if (driver.exitCode === null) driver.kill('SIGKILL');
  clearTimeout(watchdog);
}
console.log(`${passes} passed, ${failures} failed`);
process.exit(failures ? 1 : code);
