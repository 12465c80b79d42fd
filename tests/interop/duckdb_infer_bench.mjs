// DuckDB (the independent engine published on npm as @duckdb/node-api) doing the schema
// inference work of bench/infer_bench.cc on the same files:
//   node duckdb_infer_bench.mjs <events.json> <events.csv> <threads> <repetitions>
// Prints one JSON object of best-of seconds: DESCRIBE over read_json / read_csv with
// sample_size=-1 (the schema from every record, as Spark's samplingRatio=1.0) on 1 thread
// and on <threads>, and an aggregate query over the inferred columns on <threads>.
import { DuckDBInstance } from '@duckdb/node-api';

const [json, csv, threadsArg, repsArg] = process.argv.slice(2);
const threads = Number(threadsArg || 2), reps = Number(repsArg || 3);
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const q = (s) => s.replaceAll("'", "''");
const best = async (n, sql) => {
  await con.run(`SET threads = ${n}`);
  let t = Infinity;
  for (let r = 0; r < reps; ++r) {
    const t0 = process.hrtime.bigint();
    await con.runAndReadAll(sql);
    t = Math.min(t, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return t;
};
const rj = `read_json('${q(json)}', format = 'newline_delimited', sample_size = -1)`;
const rc = `read_csv('${q(csv)}', header = true, sample_size = -1)`;
const version = (await (await con.runAndReadAll('SELECT version()')).getRows())[0][0];
const out = {
  version,
  json_infer_1: await best(1, `DESCRIBE SELECT * FROM ${rj}`),
  json_infer_n: await best(threads, `DESCRIBE SELECT * FROM ${rj}`),
  json_read_n: await best(threads, `SELECT count(*), sum(event_id), max(type), sum(amount),
      max(len(tags)), max(device.os) FROM ${rj}`),
  csv_infer_1: await best(1, `DESCRIBE SELECT * FROM ${rc}`),
  csv_infer_n: await best(threads, `DESCRIBE SELECT * FROM ${rc}`),
  csv_read_n: await best(threads, `SELECT count(*), sum(event_id), max(type), sum(amount),
      max(day) FROM ${rc}`),
};
// The same reads into a Parquet file (DuckDB writes no Delta): inferred, and with the
// columns spate's bronze stream is given (bench/infer_bench.cc's events).
const dir = json.replace(/[^/]*$/, '');
const cols = `{event_id: 'BIGINT', user_id: 'BIGINT', type: 'VARCHAR', ts: 'VARCHAR',
  amount: 'DOUBLE', tags: 'VARCHAR[]', ok: 'BOOLEAN', device: 'STRUCT(os VARCHAR, ver BIGINT)',
  coupon: 'VARCHAR', ref: 'STRUCT(id DECIMAL(20,0))'}`;
out.json_to_parquet_n = await best(threads,
  `COPY (SELECT * FROM ${rj}) TO '${q(dir)}duck_json.parquet' (FORMAT parquet)`);
out.json_schema_to_parquet_n = await best(threads,
  `COPY (SELECT * FROM read_json('${q(json)}', format = 'newline_delimited', columns = ${cols}))
   TO '${q(dir)}duck_bronze.parquet' (FORMAT parquet)`);
out.csv_to_parquet_n = await best(threads,
  `COPY (SELECT * FROM ${rc}) TO '${q(dir)}duck_csv.parquet' (FORMAT parquet)`);
console.log(JSON.stringify(out));
