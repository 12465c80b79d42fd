// Reads Parquet files with hyparquet (an independent JavaScript implementation) and
// compares every value with the expectations spate wrote next to them.
//
//   node read_parquet.mjs <dir>          checks every <name>.parquet against <name>.expected.json
//   node read_parquet.mjs --dump <file>  prints the file's rows as JSON
//
// Expected values (written by spate's write_parquet_files): null, true/false, strings
// (integers as decimal strings, floats as %.17g / NaN / Infinity), {"dec": "12.34"}
// (hyparquet returns decimals as JS numbers: compared to 1e-12 relative),
// {"bin": "00ff"}, arrays, {"struct": {...}}, {"map": [[key, value], ...]}.
import fs from 'node:fs'
import path from 'node:path'
import { parquetMetadata, parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import { same, show } from './compare.mjs'

const parsers = {
  timestampFromMilliseconds: v => BigInt(v) * 1000n,
  timestampFromMicroseconds: v => BigInt(v),
  timestampFromNanoseconds: v => BigInt(v) / 1000n,
  dateFromDays: v => v,
  stringFromBytes: b => b && new TextDecoder().decode(b),
  jsonFromBytes: b => b && new TextDecoder().decode(b),
}

async function read(file) {
  const buf = fs.readFileSync(file)
  const file_ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)
  const meta = parquetMetadata(file_ab)
  const rows = await parquetReadObjects({ file: file_ab, compressors, parsers, utf8: false })
  return { meta, rows }
}

async function main() {
  const args = process.argv.slice(2)
  if (args[0] === '--dump') {
    const { meta, rows } = await read(args[1])
    console.log(show({ created_by: meta.created_by, num_rows: Number(meta.num_rows), rows }))
    return
  }
  const dir = args[0]
  const files = fs.readdirSync(dir).filter(f => f.endsWith('.parquet')).sort()
  if (files.length === 0) throw new Error(`no .parquet files in ${dir}`)
  let values = 0
  for (const f of files) {
    const exp = JSON.parse(fs.readFileSync(path.join(dir, f.replace(/\.parquet$/, '.expected.json')), 'utf8'))
    const { meta, rows } = await read(path.join(dir, f))
    if (meta.created_by !== 'spate version 0.1.0') throw new Error(`${f}: created_by is ${meta.created_by}`)
    if (rows.length !== exp.rows.length) throw new Error(`${f}: expected ${exp.rows.length} rows, got ${rows.length}`)
    exp.rows.forEach((row, r) => {
      exp.columns.forEach((name, c) => {
        same(row[c], rows[r][name], `${f} row ${r} column ${name}`)
        values++
      })
    })
    console.log(`ok ${f}: ${rows.length} rows`)
  }
  console.log(`hyparquet read ${files.length} files, ${values} values, all equal`)
}

main().catch(e => {
  console.error(`FAIL: ${e.message}`)
  process.exit(1)
})
