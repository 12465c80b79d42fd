// DuckDB (the independent engine published on npm as @duckdb/node-api) doing the Parquet
// work spate's bench does, on the same file, one thread:
//   node duckdb_parquet_bench.mjs <spate-written.parquet> <out-dir>
// Prints one JSON object: seconds for reading spate's file (all columns, aggregated),
// loading it into memory, and writing it back as snappy Parquet, and that file's size.
import { DuckDBInstance } from '@duckdb/node-api';
import { statSync } from 'node:fs';

const [input, outDir] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run("SET threads = 1");
const q = (s) => s.replaceAll("'", "''");
const time = async (sql) => {
  const t0 = process.hrtime.bigint();
  await con.runAndReadAll(sql);
  return Number(process.hrtime.bigint() - t0) / 1e9;
};
let read = Infinity, write = Infinity;
for (let r = 0; r < 3; ++r) {
  read = Math.min(read, await time(
      `SELECT count(*), sum(id), sum(d), max(s) FROM read_parquet('${q(input)}')`));
}
await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet('${q(input)}')`);
const out = `${outDir}/duckdb.parquet`;
for (let r = 0; r < 3; ++r) {
  write = Math.min(write, await time(
      `COPY t TO '${q(out)}' (FORMAT parquet, COMPRESSION snappy)`));
}
console.log(JSON.stringify({ read_s: read, write_s: write, out, out_bytes: statSync(out).size }));
