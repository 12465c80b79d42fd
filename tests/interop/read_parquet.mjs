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

const hex = b => Array.from(b, x => x.toString(16).padStart(2, '0')).join('')

function same(exp, act, where) {
  if (exp === null) {
    if (act === null || act === undefined) return
    throw new Error(`${where}: expected null, got ${show(act)}`)
  }
  if (act === undefined || act === null) throw new Error(`${where}: expected ${JSON.stringify(exp)}, got null`)
  if (typeof exp === 'boolean') {
    if (act !== exp) throw new Error(`${where}: expected ${exp}, got ${show(act)}`)
    return
  }
  if (typeof exp === 'string') {
    if (typeof act === 'string') {
      if (act !== exp) throw new Error(`${where}: expected ${JSON.stringify(exp)}, got ${JSON.stringify(act)}`)
      return
    }
    if (typeof act === 'bigint') {
      if (act.toString() !== exp) throw new Error(`${where}: expected ${exp}, got ${act}`)
      return
    }
    if (typeof act === 'number') {
      if (/^-?\d+$/.test(exp) && Number.isInteger(act) && !Object.is(act, -0)) {
        if (String(act) !== exp) throw new Error(`${where}: expected ${exp}, got ${act}`)
        return
      }
      const e = Number(exp)
      if (Number.isNaN(e) && Number.isNaN(act)) return
      if (!Object.is(e, act)) throw new Error(`${where}: expected ${exp}, got ${act}`)
      return
    }
    throw new Error(`${where}: expected ${exp}, got ${show(act)}`)
  }
  if (Array.isArray(exp)) {
    if (!Array.isArray(act) || act.length !== exp.length) throw new Error(`${where}: expected ${JSON.stringify(exp)}, got ${show(act)}`)
    exp.forEach((e, i) => same(e, act[i], `${where}[${i}]`))
    return
  }
  if ('dec' in exp) {
    const e = Number(exp.dec)
    if (typeof act !== 'number' || Math.abs(act - e) > 1e-12 * Math.max(1, Math.abs(e))) {
      throw new Error(`${where}: expected decimal ${exp.dec}, got ${show(act)}`)
    }
    return
  }
  if ('bin' in exp) {
    if (!(act instanceof Uint8Array) || hex(act) !== exp.bin) throw new Error(`${where}: expected bytes ${exp.bin}, got ${show(act)}`)
    return
  }
  if ('struct' in exp) {
    if (typeof act !== 'object') throw new Error(`${where}: expected a struct, got ${show(act)}`)
    for (const [k, v] of Object.entries(exp.struct)) same(v, act[k], `${where}.${k}`)
    return
  }
  if ('map' in exp) {
    const entries = act instanceof Map ? [...act.entries()] : Object.entries(act)
    if (entries.length !== exp.map.length) throw new Error(`${where}: expected ${exp.map.length} map entries, got ${show(act)}`)
    const got = new Map(entries.map(([k, v]) => [String(k), v]))
    for (const [k, v] of exp.map) {
      if (!got.has(String(k))) throw new Error(`${where}: missing map key ${k} in ${show(act)}`)
      same(v, got.get(String(k)), `${where}{${k}}`)
    }
    return
  }
  throw new Error(`${where}: bad expectation ${JSON.stringify(exp)}`)
}

function show(v) {
  return JSON.stringify(v, (k, x) => typeof x === 'bigint' ? `${x}n` : x instanceof Uint8Array ? `0x${hex(x)}` : x)
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
