import { readdirSync, readFileSync, openSync, readSync, closeSync, statSync } from 'node:fs'
import { readFileEnds } from './src/file-ends.ts'
const cpu = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6
const root = '/tmp/lst/jsonl/jsonl'
const files: string[] = []
for (const p of readdirSync(root)) { if (p.startsWith('.')) continue; for (const s of readdirSync(`${root}/${p}`)) files.push(`${root}/${p}/${s}/session.jsonl`) }
const b = Buffer.allocUnsafe(16384)
for (let r = 0; r < 4; r++) {
  let t = cpu(); for (const f of files) readFileEnds(f); const a = cpu() - t
  t = cpu(); for (const f of files) { const fd = openSync(f, 'r'); const { size } = statSync(f); readSync(fd, b, 0, 4096, 0); readSync(fd, b, 0, Math.min(4096, size), Math.max(0, size - 4096)); closeSync(fd) } const c = cpu() - t
  t = cpu(); for (const f of files) { const fd = openSync(f, 'r'); readSync(fd, b, 0, 16384, 0); closeSync(fd) } const d = cpu() - t
  t = cpu(); for (const f of files) { const fd = openSync(f, 'r'); readSync(fd, b, 0, 16384, 0); closeSync(fd); b.toString('utf8', 0, 200); b.toString('utf8', 6000, 6100); b.indexOf(10); b.lastIndexOf(10, 6700) } const e = cpu() - t
  console.log('ends', a.toFixed(0), 'floor', c.toFixed(0), 'read16k', d.toFixed(0), 'read16k+str', e.toFixed(0))
}
