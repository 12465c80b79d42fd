// The other direction: files written by hyparquet-writer (an independent implementation),
// read by spate (`write_parquet_files --dump`), every value compared with what was written.
//
//   node write_parquet.mjs <dir> <path to write_parquet_files>
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { parquetWriteFile } from 'hyparquet-writer'
import { same } from './compare.mjs'

const n = 3000
const ints = Array.from({ length: n }, (_, i) => (i % 11 === 0 ? null : ((i * 7919) % 100003) - 50000))
const longs = Array.from({ length: n }, (_, i) => (i % 13 === 0 ? null : BigInt(i) * 1234567890123n - 99999999999999n))
const doubles = Array.from({ length: n }, (_, i) => (i % 17 === 0 ? null : i / 7 - 100.25))
const floats = Array.from({ length: n }, (_, i) => (i % 19 === 0 ? null : Math.fround(i * 0.5 - 3.75)))
const strings = Array.from({ length: n }, (_, i) => (i % 5 === 0 ? null : `s${i % 97}-é中`))
const bools = Array.from({ length: n }, (_, i) => (i % 7 === 0 ? null : i % 3 === 0))
const times = Array.from({ length: n }, (_, i) => (i % 23 === 0 ? null : new Date(1700000000000 + i * 3600123)))
const sorted = Array.from({ length: n }, (_, i) => BigInt(1000000 + i * 3))
const lists = Array.from({ length: n }, (_, i) => (i % 9 === 0 ? null : Array.from({ length: i % 4 }, (_, k) => i + k)))

const files = {
  plain_types: {
    columnData: [
      { name: 'i', data: ints, type: 'INT32' },
      { name: 'l', data: longs, type: 'INT64' },
      { name: 'd', data: doubles, type: 'DOUBLE' },
      { name: 'f', data: floats, type: 'FLOAT' },
      { name: 's', data: strings, type: 'STRING' },
      { name: 'b', data: bools, type: 'BOOLEAN' },
      { name: 't', data: times, type: 'TIMESTAMP' },
    ],
  },
  encodings: {
    columnData: [
      { name: 'delta', data: sorted, type: 'INT64', nullable: false, encoding: 'DELTA_BINARY_PACKED' },
      { name: 'bss', data: doubles, type: 'DOUBLE', encoding: 'BYTE_STREAM_SPLIT' },
      { name: 'plain_s', data: strings, type: 'STRING', encoding: 'PLAIN' },
      { name: 'delta_i', data: ints, type: 'INT32', encoding: 'DELTA_BINARY_PACKED' },
    ],
    rowGroupSize: 700,
  },
  uncompressed_lists: {
    columnData: [
      { name: 'id', data: sorted, type: 'INT64', nullable: false },
      // Arrays go in as JSON text (hyparquet-writer's JSON type): spate reads a string column.
      { name: 'xs', data: lists, type: 'JSON' },
    ],
    codec: 'UNCOMPRESSED',
  },
}

// What spate should read back, as JS values comparable with spate's canonical dump.
const expected = v => (v instanceof Date ? BigInt(v.getTime()) * 1000n : Array.isArray(v) ? v.map(expected) : v)

const [dir, tool] = process.argv.slice(2)
let values = 0
for (const [name, opts] of Object.entries(files)) {
  const file = path.join(dir, `${name}.parquet`)
  try {
    parquetWriteFile({ filename: file, ...opts })
  } catch (e) {
    console.error(`FAIL: hyparquet-writer could not write ${name}: ${e.message}`)
    process.exit(1)
  }
  const dump = JSON.parse(execFileSync(tool, ['--dump', file], { maxBuffer: 1 << 28 }).toString())
  const cols = opts.columnData
  if (dump.rows.length !== n) throw new Error(`${name}: spate read ${dump.rows.length} rows, expected ${n}`)
  cols.forEach((c, ci) => {
    if (dump.columns[ci] !== c.name) throw new Error(`${name}: column ${ci} is ${dump.columns[ci]}, expected ${c.name}`)
    c.data.forEach((v, r) => {
      const want = c.type === 'JSON' && v !== null ? JSON.stringify(v) : expected(v)
      same(dump.rows[r][ci], want, `${name} row ${r} column ${c.name} (${dump.types[ci]})`)
      values++
    })
  })
  console.log(`ok ${name}: spate read ${dump.rows.length} rows (${dump.types.join(', ')})`)
}
console.log(`spate read ${Object.keys(files).length} hyparquet-writer files, ${values} values, all equal`)
