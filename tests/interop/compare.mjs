// Compares spate's canonical JSON form of a value (see write_parquet_files.cc: null,
// booleans, strings with integers as decimal strings and floats as %.17g / NaN / Infinity,
// {"dec": ...}, {"bin": hex}, arrays, {"struct": {...}}, {"map": [[k, v], ...]}) with a
// JavaScript value as hyparquet returns or hyparquet-writer takes it.
const hex = b => Array.from(b, x => x.toString(16).padStart(2, '0')).join('')

export function same(exp, act, where) {
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

export function show(v) {
  return JSON.stringify(v, (k, x) => typeof x === 'bigint' ? `${x}n` : x instanceof Uint8Array ? `0x${hex(x)}` : x)
}

