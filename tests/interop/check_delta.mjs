// Independent check of a Delta table written by spate (write_delta_table.cc): the log is
// replayed here from PROTOCOL.md's rules (no spate code), the Parquet checkpoint and every
// data file are read with DuckDB (@duckdb/node-api), and the result is compared with what
// the writer says the table holds. Also checks add.stats (numRecords, min/max/nullCount)
// against the data and the protocol/metaData/commitInfo fields readers rely on.
//   node check_delta.mjs <table dir> '<expected json>'
import { DuckDBInstance } from '@duckdb/node-api';
import { readdirSync, readFileSync, existsSync } from 'node:fs';

const [dir, expectedText] = process.argv.slice(2);
const expected = JSON.parse(expectedText);
const fail = (msg) => { console.error('FAIL: ' + msg); process.exit(1); };
const log = `${dir}/_delta_log`;
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const q = (s) => s.replaceAll("'", "''");
const rows = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJS();

// _last_checkpoint -> the checkpoint to start from.
const last = JSON.parse(readFileSync(`${log}/_last_checkpoint`, 'utf8'));
if (last.version !== 10) fail(`_last_checkpoint.version ${last.version}`);
const pad = (v) => String(v).padStart(20, '0');
const cpFile = `${log}/${pad(last.version)}.checkpoint.parquet`;
if (!existsSync(cpFile)) fail('missing checkpoint ' + cpFile);

const active = new Map();  // path -> add
let protocol = null, metaData = null;
for (const r of await rows(`SELECT add, remove, metaData, protocol FROM read_parquet('${q(cpFile)}')`)) {
  if (r.add) active.set(r.add.path, r.add);
  if (r.remove) active.delete(r.remove.path);
  if (r.metaData) metaData = r.metaData;
  if (r.protocol) protocol = r.protocol;
}
if (Number(last.numOfAddFiles) !== active.size) {
  fail(`_last_checkpoint.numOfAddFiles ${last.numOfAddFiles} vs ${active.size} adds`);
}
const commits = readdirSync(log).filter((f) => /^\d{20}\.json$/.test(f)).sort();
let latest = -1;
for (const f of commits) {
  const v = Number(f.slice(0, 20));
  latest = Math.max(latest, v);
  if (v <= last.version) continue;
  for (const line of readFileSync(`${log}/${f}`, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const a = JSON.parse(line);
    if (a.add) active.set(a.add.path, a.add);
    if (a.remove) active.delete(a.remove.path);
    if (a.metaData) metaData = a.metaData;
    if (a.protocol) protocol = a.protocol;
    if (a.commitInfo) {
      for (const k of ['timestamp', 'operation', 'operationParameters', 'engineInfo'])
        if (a.commitInfo[k] === undefined) fail(`commitInfo.${k} missing in ${f}`);
    }
  }
}
if (latest !== expected.version) fail(`latest version ${latest} != ${expected.version}`);
if (Number(protocol.minReaderVersion) !== 1 || Number(protocol.minWriterVersion) !== 2)
  fail('protocol ' + JSON.stringify(protocol));
const schema = JSON.parse(metaData.schemaString);
if (schema.type !== 'struct' || schema.fields.map((f) => f.name).join() !== 'id,name,part')
  fail('schemaString ' + metaData.schemaString);
if (JSON.stringify(Array.from(metaData.partitionColumns)) !== '["part"]')
  fail('partitionColumns');

// Every active file through DuckDB; partition values from the log, not the folders.
let total = 0, sum = 0, p0 = 0;
for (const [path, add] of active) {
  const file = `${dir}/${decodeURIComponent(path)}`;
  const [s] = await rows(`SELECT count(*) AS n, sum(id) AS s, min(id) AS mn, max(id) AS mx,
                                 count(*) - count(name) AS nulls
                          FROM read_parquet('${q(file)}', hive_partitioning = false)`);
  const n = Number(s.n);
  total += n;
  sum += Number(s.s ?? 0);
  const pv = add.partitionValues instanceof Map ? Object.fromEntries(add.partitionValues)
                                               : add.partitionValues;
  const part = Array.isArray(pv) ? Object.fromEntries(pv.map((e) => [e.key, e.value])).part : pv.part;
  if (part === 'p0') p0 += n;
  const stats = JSON.parse(add.stats);
  if (stats.numRecords !== n) fail(`${path}: stats.numRecords ${stats.numRecords} != ${n}`);
  if (stats.minValues.id !== Number(s.mn) || stats.maxValues.id !== Number(s.mx))
    fail(`${path}: stats min/max ${JSON.stringify(stats)} vs ${s.mn}..${s.mx}`);
  if (stats.nullCount.name !== Number(s.nulls)) fail(`${path}: nullCount.name`);
  const cols = (await rows(`DESCRIBE SELECT * FROM read_parquet('${q(file)}', hive_partitioning = false)`)).map((c) => c.column_name);
  if (cols.includes('part')) fail(`${path}: partition column stored in the data file`);
}
if (total !== expected.rows || sum !== expected.sum || p0 !== expected.p0)
  fail(`rows ${total}/${expected.rows} sum ${sum}/${expected.sum} p0 ${p0}/${expected.p0}`);
console.log(`OK: version ${latest}, ${active.size} files, ${total} rows checked independently`);
