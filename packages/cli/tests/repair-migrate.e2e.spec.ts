import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { lines, logbook } from './helpers/cli.ts'
import { fingerprint, sessionFile } from './helpers/files.ts'
import { storeEvents, tempDir, turnEvents, withStore } from './helpers/store.ts'

const T0 = Date.UTC(2026, 2, 1)

/** A session file of the older store format (framing 1: plain JSON lines, no checksums). */
function writeLegacy(root: string, id: string): string {
  const file = sessionFile(root, id)
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const header = JSON.stringify({ type: 'session', version: 2, incarnation: '0b6a3c2e-6c1f-4a8e-9d3b-1f2e3d4c5b6a', id, createdAt: T0 })
  writeFileSync(file, `${[header, ...turnEvents(0, 1, T0, 'old').map(e => JSON.stringify(e))].join('\n')}\n`, { mode: 0o600 })
  return file
}

describe('logbook repair', () => {
  const cwd = tempDir()
  const root = join(cwd, '.logbook')

  beforeAll(async () => {
    await withStore(root, async (app) => {
      for (const id of ['clean', 'garbage']) await storeEvents(app, id, [...turnEvents(0, 1, T0, 'one'), ...turnEvents(6, 2, T0, 'two')])
    })
    const garbage = sessionFile(root, 'garbage')
    const rows = readFileSync(garbage, 'utf8').split('\n')
    rows.splice(rows.length - 2, 0, 'this is not json')
    writeFileSync(garbage, rows.join('\n'))
  })

  it('L-197 without --yes: the first defect, every record a cut removes with its events, nothing written, exit 5', async () => {
    const file = sessionFile(root, 'garbage')
    const before = fingerprint(file)
    const run = await logbook(['repair', 'garbage'], { cwd })
    expect(run.code).toBe(5)
    const out = lines(run.stdout)
    expect(out[0]).toMatch(/^garbage: first defect at line 13 \(seq 11\): /)
    expect(out.slice(1)).toEqual([
      'a cut removes 2 records from seq 11 (1 event and 1 record that does not decode):',
      expect.stringMatching(/^ {2}line 13 {2}events unknown {2}\S/),
      '  line 14  seq 11  1 event',
      'nothing written; run logbook repair garbage --yes to cut them (a backup is kept first)',
    ])
    expect(fingerprint(file)).toEqual(before)
    const verify = await logbook(['verify', 'garbage'], { cwd })
    expect(verify.code).toBe(6)
  })

  it('L-197 a --cut-at the log refuses (past the first defect) or that is not a seq → exit 2, nothing written', async () => {
    const file = sessionFile(root, 'garbage')
    const before = fingerprint(file)
    const past = await logbook(['repair', 'garbage', '--cut-at', '12', '--yes'], { cwd })
    expect(past.code).toBe(2)
    expect(lines(past.stderr)).toEqual(['logbook: session "garbage": cannot cut at seq 12: the first defect is at seq 11; a cut starts at or before it [USAGE]'])
    const bad = await logbook(['repair', 'garbage', '--cut-at', '-1'], { cwd })
    expect(bad.code).toBe(2)
    expect(lines(bad.stderr)).toEqual(['logbook: --cut-at must be a non-negative integer seq, got "-1" [USAGE]'])
    expect(fingerprint(file)).toEqual(before)
  })

  it('L-197 with --yes: a byte-identical backup beside the file, then the cut; the log opens and verifies at the cut', async () => {
    const file = sessionFile(root, 'garbage')
    const original = readFileSync(file)
    const run = await logbook(['repair', 'garbage', '--yes'], { cwd })
    expect(run.code).toBe(0)
    const out = lines(run.stdout)
    expect(out[1]).toBe('cut 2 records from seq 11 (1 event and 1 record that does not decode):')
    const backup = /^backup: (.+)$/.exec(out.at(-1)!)?.[1]
    expect(backup).toMatch(/session\.jsonl\.\d{8}T\d{6}Z(-\d+)?\.bak$/)
    expect(dirname(backup!)).toBe(dirname(file))
    expect(readFileSync(backup!).equals(original)).toBe(true)
    const verify = await logbook(['verify', 'garbage', '--json'], { cwd })
    expect(JSON.parse(verify.stdout)).toMatchObject({ session: 'garbage', events: 11 })
    const again = await logbook(['repair', 'garbage'], { cwd })
    expect(again.code).toBe(0)
    expect(lines(again.stdout)).toEqual(['garbage: no defect', 'nothing to cut'])
  })

  it('L-197 a clean log has nothing to cut: exit 0, nothing written; --json gives the result', async () => {
    const file = sessionFile(root, 'clean')
    const before = fingerprint(file)
    const run = await logbook(['repair', 'clean', '--json'], { cwd })
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ sessionId: 'clean', defect: null, cutAt: null, records: [], events: 0, cut: false })
    expect(fingerprint(file)).toEqual(before)
    expect((await logbook(['repair', 'nope'], { cwd })).code).toBe(3)
  })
})

describe('logbook migrate', () => {
  const cwd = tempDir()
  const root = join(cwd, '.logbook')

  beforeAll(async () => {
    await withStore(root, async (app) => storeEvents(app, 'current', turnEvents(0, 1, T0, 'new')))
    writeLegacy(root, 'legacy')
  })

  it('L-198 migrate <id>: the original kept byte for byte beside the new file, every line framed, verify says checksums; again → current', async () => {
    const file = sessionFile(root, 'legacy')
    const original = readFileSync(file)
    const run = await logbook(['migrate', 'legacy'], { cwd })
    expect(run.code).toBe(0)
    const kept = /^legacy {2}migrated; original kept at (.+)$/.exec(lines(run.stdout)[0]!)?.[1]
    expect(kept).toMatch(/session\.jsonl\.\d{8}T\d{6}Z(-\d+)?\.framing-1$/)
    expect(readFileSync(kept!).equals(original)).toBe(true)
    const migrated = readFileSync(file, 'utf8').split('\n').filter(line => line !== '')
    expect(migrated).toHaveLength(original.toString('utf8').split('\n').filter(line => line !== '').length)
    for (const line of migrated) expect(line).toMatch(/^[0-9a-f]{8} \{/)
    const verify = await logbook(['verify', 'legacy'], { cwd })
    expect(verify.code).toBe(0)
    expect(verify.stdout).toMatch(/ok {4}checksums {14}every record and the header match their checksums/)
    const again = await logbook(['migrate', 'legacy'], { cwd })
    expect(lines(again.stdout)).toEqual(['legacy  current (nothing to do)'])
  })

  it('L-198 migrate --all: the rest migrates, a damaged session is refused on stderr and left alone, exit 1', async () => {
    const cwd = tempDir()
    const root = join(cwd, '.logbook')
    await withStore(root, async (app) => storeEvents(app, 'current', turnEvents(0, 1, T0, 'new')))
    writeLegacy(root, 'other')
    const broken = writeLegacy(root, 'broken')
    // envelope-valid, payload-invalid: only core's event validator tells
    writeFileSync(broken, readFileSync(broken, 'utf8').replace('"role":"user"', '"role":"usex"'))
    const before = fingerprint(broken)
    const run = await logbook(['migrate', '--all'], { cwd })
    expect(run.code).toBe(1)
    const out = lines(run.stdout).sort()
    expect(out).toEqual([
      'current  current (nothing to do)',
      expect.stringMatching(/^other {2}migrated; original kept at /),
    ])
    expect(lines(run.stderr)).toEqual([expect.stringMatching(/^logbook: broken: not migrated: session "broken": corrupt log: event at seq 1: .*role.* \[SESSION_CORRUPT\]$/)])
    expect(fingerprint(broken)).toEqual(before)
    expect(existsSync(dirname(broken))).toBe(true)
  })

  it('L-198 migrate without <id> or --all, or with both → exit 2', async () => {
    for (const argv of [['migrate'], ['migrate', 'legacy', '--all']]) {
      const run = await logbook(argv, { cwd })
      expect(run.code, argv.join(' ')).toBe(2)
      expect(lines(run.stderr)).toEqual(['logbook: migrate needs <id>… or --all (not both) [USAGE]'])
    }
  })
})
