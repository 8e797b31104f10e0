import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { SessionEvent } from '@logbook/session'
import { recordChecksum } from '@logbook/session-persistence'
import { withDatabase } from '../../backends/session-persistence-sqlite/tests/fixture.ts'
import { beforeAll, describe, expect, it } from 'vitest'
import { lines, logbook } from './helpers/cli.ts'
import { fingerprint, rewriteLine, sessionFile } from './helpers/files.ts'
import { storeEvents, tempDir, turnEvents, withStore } from './helpers/store.ts'

const T0 = Date.UTC(2026, 2, 1)

function lock(seq: number): SessionEvent {
  return { type: 'compaction/start', seq, time: T0, data: { compactionId: '6f1c1d9e-3b7a-4c55-9a43-1f1d2a7c9e01', turn: null, trigger: 'manual' } } as unknown as SessionEvent
}

function longTurn(total: number): SessionEvent[] {
  const events = turnEvents(0, 1, T0, 'a long answer', { open: true }).slice(0, 3)
  while (events.length < total - 3) {
    events.push({ type: 'assistant/chunk', seq: events.length, time: T0, data: { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'x' } } } as SessionEvent)
  }
  const tail = turnEvents(events.length - 3, 1, T0, 'a long answer').slice(3)
  return [...events, ...tail]
}

describe('logbook verify', () => {
  const cwd = tempDir()
  const root = join(cwd, '.logbook')

  beforeAll(async () => {
    await withStore(root, async (app) => {
      for (const id of ['clean', 'torn', 'garbage', 'newer', 'busy']) await storeEvents(app, id, [...turnEvents(0, 1, T0, 'one'), ...turnEvents(6, 2, T0, 'two')])
      await storeEvents(app, 'open', [...turnEvents(0, 1, T0, 'one'), ...turnEvents(6, 2, T0, 'two', { open: true })])
      await storeEvents(app, 'locked', [...turnEvents(0, 1, T0, 'one'), lock(6)])
      await storeEvents(app, 'big', longTurn(50_000))
      for (const id of ['usable', 'stale', 'ahead']) {
        const events = [...turnEvents(0, 1, T0, 'one'), ...turnEvents(6, 2, T0 + 1000, 'two')]
        await storeEvents(app, id, events)
        const seq = id === 'usable' ? 5 : 11
        const anchor = id === 'stale' ? { time: T0, type: 'turn/start' } : { time: events[seq]!.time, type: events[seq]!.type }
        const handle = await app.persistence().open(id, 'write')
        try {
          await app.persistence().writeProjectionCheckpoint(id, { sessionId: id, seq, anchor, rows: { 'acme/count': seq } })
        } finally {
          await handle.close()
        }
      }
    })
    const ahead = sessionFile(root, 'ahead')
    const aheadBytes = readFileSync(ahead)
    writeFileSync(ahead, aheadBytes.subarray(0, aheadBytes.length - 3))
    const torn = sessionFile(root, 'torn')
    const bytes = readFileSync(torn)
    writeFileSync(torn, bytes.subarray(0, bytes.length - 7))
    const garbage = sessionFile(root, 'garbage')
    const rows = readFileSync(garbage, 'utf8').split('\n')
    rows.splice(rows.length - 2, 0, 'this is not json')
    writeFileSync(garbage, rows.join('\n'))
    rewriteLine(sessionFile(root, 'newer'), 0, text => text.replace(/"version":\d+/, '"version":3'))
  })

  async function verify(id: string, ...flags: string[]) {
    const file = sessionFile(root, id)
    const before = fingerprint(file)
    const run = await logbook(['verify', id, ...flags], { cwd })
    expect(fingerprint(file)).toEqual(before)
    return run
  }

  it('L-115 a clean session verifies ok (exit 0), every check printed', async () => {
    const run = await verify('clean')
    expect(run.code).toBe(0)
    const out = lines(run.stdout)
    expect(out[0]).toBe('clean: ok (12 events)')
    expect(out.slice(1).map(line => line.trim().split(/ +/).slice(0, 2).join(' '))).toEqual([
      'ok format', 'ok checksums', 'ok torn-tail', 'ok corruption', 'ok events', 'ok surface', 'ok relations', 'ok pairing', 'ok compaction', 'ok projection-checkpoint',
    ])
  })

  it('L-115 a torn final line is repairable: exit 5, bytes and mtime unchanged', async () => {
    const run = await verify('torn')
    expect(run.code).toBe(5)
    expect(lines(run.stdout)[0]).toBe('torn: repairable (11 events)')
    expect(run.stdout).toMatch(/ {2}warn {2}torn-tail +resume would cut the unfinished last record at seq 11: /)
  })

  it('L-115 a garbage line before a valid turn/end is corruption: exit 6', async () => {
    const run = await verify('garbage', '--json')
    expect(run.code).toBe(6)
    const report = JSON.parse(run.stdout) as { session: string; status: string; findings: { severity: string; check: string }[] }
    expect(report.session).toBe('garbage')
    expect(report.status).toBe('corrupt')
    expect(report.findings.some(finding => finding.severity === 'FAIL' && finding.check === 'corruption')).toBe(true)
    expect(report.findings.find(finding => finding.check === 'corruption')).toMatchObject({ seq: 11 })
    expect((report as unknown as { events: number }).events).toBe(11)
    const text = await verify('garbage')
    expect(text.code).toBe(6)
    expect(lines(text.stdout)[0]).toBe('garbage: corrupt (11 valid events before the first defect)')
    expect(lines(text.stdout)[2]).toMatch(/^ {2}FAIL {2}corruption {2}session "garbage": .*line 13 \(seq 11\).*logbook repair garbage shows what a cut there removes$/)
  })

  it('L-115 a newer format is unsupported: exit 6', async () => {
    const run = await verify('newer', '--json')
    expect(run.code).toBe(6)
    const report = JSON.parse(run.stdout) as { status: string; findings: { severity: string; check: string; message: string }[] }
    expect(report.status).toBe('unsupported')
    expect(report.findings[0]).toMatchObject({ severity: 'FAIL', check: 'format' })
    expect(report.findings[0]!.message).toMatch(/newer Logbook \(format 3, this build reads 2\): upgrade Logbook/)
    expect(lines((await verify('newer')).stdout)[0]).toBe('newer: unsupported (not read)')
  })

  it('L-115 an open last turn or a live compaction lock is repairable: exit 5', async () => {
    const open = await verify('open')
    expect(open.code).toBe(5)
    expect(open.stdout).toMatch(/ {2}warn {2}relations +turn 2 is open; a resume appends 1 closer\(s\)/)
    const locked = await verify('locked', '--json')
    expect(locked.code).toBe(5)
    const report = JSON.parse(locked.stdout) as { status: string; findings: { severity: string; check: string; seq?: number }[] }
    expect(report.status).toBe('repairable')
    expect(report.findings).toContainEqual(expect.objectContaining({ severity: 'warn', check: 'compaction', seq: 6 }))
  })

  it('L-115 the projection checkpoint is reported usable, stale or ahead and never changes the verdict', async () => {
    const usable = await verify('usable')
    expect(usable.code).toBe(0)
    expect(lines(usable.stdout).at(-1)).toMatch(/^ {2}ok {4}projection-checkpoint +usable at seq 5 \(acme\/count\)$/)
    const stale = await verify('stale', '--json')
    expect(stale.code).toBe(0)
    const report = JSON.parse(stale.stdout) as { status: string; findings: { severity: string; check: string; message: string; seq?: number }[] }
    expect(report.status).toBe('ok')
    expect(report.findings.at(-1)).toEqual({
      severity: 'warn', check: 'projection-checkpoint', seq: 11,
      message: 'stale: the event at seq 11 does not match its anchor; projections fold from 0',
    })
    // A torn tail drops the checkpoint's event: the read API hides such a checkpoint, verify still names it.
    const ahead = await verify('ahead')
    expect(ahead.code).toBe(5)
    expect(lines(ahead.stdout)[0]).toBe('ahead: repairable (11 events)')
    expect(lines(ahead.stdout).at(-1)).toMatch(/^ {2}warn {2}projection-checkpoint +ahead: seq 11 is not stored; projections fold from 0$/)
  })

  it('L-115 verify runs beside a writer: another owner\'s write lock neither stops it nor is disturbed', async () => {
    await withStore(root, async (app) => {
      const handle = await app.persistence().open('busy', 'write')
      try {
        const run = await verify('busy')
        expect(run.stderr).toBe('')
        expect(run.code).toBe(0)
        expect(lines(run.stdout)[0]).toBe('busy: ok (12 events)')
        expect(handle.nextSeq).toBe(12)
        await handle.append([{ type: 'turn/start', seq: 12, time: T0, data: { turn: 3 } } as SessionEvent])
      } finally {
        await handle.close()
      }
    })
    const after = await verify('busy')
    expect(after.code).toBe(5)
    expect(lines(after.stdout)[0]).toBe('busy: repairable (13 events)')
  })

  it('L-115 a path to the session file verifies that session', async () => {
    const run = await logbook(['verify', sessionFile(root, 'clean')], { cwd: tempDir() })
    expect(run.code).toBe(0)
    expect(lines(run.stdout)[0]).toBe('clean: ok (12 events)')
    const folder = await logbook(['verify', dirname(sessionFile(root, 'torn'))], { cwd: tempDir() })
    expect(folder.code).toBe(5)
    expect(lines(folder.stdout)[0]).toBe('torn: repairable (11 events)')
    const missing = await logbook(['verify', 'no/such/session.jsonl'], { cwd })
    expect(missing.code).toBe(2)
    expect(lines(missing.stderr)).toEqual([`logbook: ${join(cwd, 'no/such/session.jsonl')} is neither an existing file nor a valid session id [USAGE]`])
  })

  it('L-118 --progress on a 50,000-event verify prints progress on stderr only; --quiet prints none', async () => {
    const run = await verify('big', '--progress')
    expect(run.code).toBe(0)
    const progress = lines(run.stderr)
    expect(progress[0]).toBe('logbook: verify big: 0/50000')
    expect(progress.at(-1)).toBe('logbook: verify big: 50000/50000')
    expect(progress.every(line => /^logbook: verify big: \d+\/50000$/.test(line))).toBe(true)
    expect(run.stdout).not.toContain('/50000')
    const quiet = await verify('big', '--progress', '--quiet')
    expect(quiet.code).toBe(0)
    expect(quiet.stderr).toBe('')
    const plain = await verify('big')
    expect(plain.stderr).toBe('')
  })
})

describe('logbook verify <database>', () => {
  const cwd = tempDir()
  const db = join(cwd, 'store', 'logbook.sqlite')

  beforeAll(async () => {
    await withStore({ kind: 'sqlite', path: db }, async (app) => {
      await storeEvents(app, 'clean', [...turnEvents(0, 1, T0, 'one'), ...turnEvents(6, 2, T0, 'two')])
      await storeEvents(app, 'open', [...turnEvents(0, 1, T0 + 1000, 'one'), ...turnEvents(6, 2, T0 + 1000, 'two', { open: true })])
    })
  })

  it('L-115 a SQLite file verifies every session in it; --json is an array; the worst session sets the exit code', async () => {
    const before = fingerprint(db)
    const run = await logbook(['verify', db], { cwd: tempDir() })
    expect(fingerprint(db)).toEqual(before)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(5)
    const verdicts = lines(run.stdout).filter(line => !line.startsWith(' '))
    expect(verdicts).toEqual(['open: repairable (11 events)', 'clean: ok (12 events)'])
    const json = await logbook(['verify', 'store/logbook.sqlite', '--json'], { cwd })
    expect(json.code).toBe(5)
    const reports = JSON.parse(json.stdout) as { session: string; events: number; status: string }[]
    expect(reports.map(({ session, events, status }) => ({ session, events, status }))).toEqual([
      { session: 'open', events: 11, status: 'repairable' },
      { session: 'clean', events: 12, status: 'ok' },
    ])
  })
})

describe('L-195 verify tells the truth', () => {
  const cwd = tempDir()
  const root = join(cwd, '.logbook')
  const db = join(cwd, 'store', 'logbook.sqlite')

  beforeAll(async () => {
    await withStore(root, async (app) => {
      for (const id of ['badhead', 'wrongid', 'flipped']) await storeEvents(app, id, turnEvents(0, 1, T0, 'one'))
    })
    rewriteLine(sessionFile(root, 'badhead'), 0, () => '{"type":"session", not json')
    rewriteLine(sessionFile(root, 'wrongid'), 0, text => text.replace('"id":"wrongid"', '"id":"other"'))
    rewriteLine(sessionFile(root, 'flipped'), 3, text => text.replace(/"time":(\d*)(\d)/, (_, head: string, d: string) => `"time":${head}${d === '9' ? 8 : Number(d) + 1}`), { keepChecksum: true })
    await withStore({ kind: 'sqlite', path: db }, async (app) => {
      for (const id of ['fine', 'future', 'moved']) await storeEvents(app, id, turnEvents(0, 1, T0, 'one'))
    })
    withDatabase(db, raw => {
      const header = (raw.prepare("SELECT header FROM logbook_sessions WHERE id = 'future'").get() as { header: string }).header.replace(/"version":\d+/, '"version":3')
      raw.prepare("UPDATE logbook_sessions SET header = ?, version = 3, crc = ? WHERE id = 'future'").run(header, recordChecksum(header))
      raw.prepare("UPDATE logbook_sessions SET cwd = '/home/user/elsewhere' WHERE id = 'moved'").run()
    })
  })

  it('L-195 a session.jsonl path with a damaged header, or a header naming another id, is verified by its directory: exit 6 naming the defect', async () => {
    for (const [id, defect] of [['badhead', /the header is not a JSON object/], ['wrongid', /header id "other" does not match directory wrongid/]] as const) {
      const file = sessionFile(root, id)
      const before = fingerprint(file)
      const run = await logbook(['verify', file, '--json'], { cwd: tempDir() })
      expect(run.code, id).toBe(6)
      const report = JSON.parse(run.stdout) as { session: string; status: string; findings: { severity: string; check: string; message: string }[] }
      expect(report).toMatchObject({ session: id, status: 'corrupt' })
      expect(report.findings.find(f => f.severity === 'FAIL')!.message).toMatch(defect)
      expect(fingerprint(file)).toEqual(before)
    }
  })

  it('L-195 a SQLite database reports each session the backend refuses (a newer header version, a header column unlike its JSON): exit 6', async () => {
    const before = fingerprint(db)
    const run = await logbook(['verify', db, '--json'], { cwd: tempDir() })
    expect(fingerprint(db)).toEqual(before)
    expect(run.code).toBe(6)
    const reports = JSON.parse(run.stdout) as { session: string; status: string; findings: { severity: string; message: string }[] }[]
    expect(reports.map(r => [r.session, r.status]).sort()).toEqual([['fine', 'ok'], ['future', 'unsupported'], ['moved', 'corrupt']])
    expect(reports.find(r => r.session === 'future')!.findings[0]!.message).toMatch(/newer Logbook \(format 3, this build reads 2\)/)
    expect(reports.find(r => r.session === 'moved')!.findings.find(f => f.severity === 'FAIL')!.message).toMatch(/header column cwd/)
  })

  it('L-195 another application\'s database is refused without a change: exit 1, bytes and directory as they were', async () => {
    const foreign = join(tempDir(), 'notes.db')
    writeFileSync(foreign, '', { mode: 0o600 })
    withDatabase(foreign, raw => {
      raw.pragma('journal_mode = delete')
      raw.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')")
    })
    const before = fingerprint(foreign)
    const names = readdirSync(dirname(foreign))
    const run = await logbook(['verify', foreign], { cwd: tempDir() })
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/failed to start: store .*notes\.db is not a Logbook store \(application_id 0\)/)
    expect(fingerprint(foreign)).toEqual(before)
    expect(readdirSync(dirname(foreign))).toEqual(names)
  })

  it('L-196 checksums: a changed digit under its checksum is corruption naming the record; a session of the older store format says "no checksums"', async () => {
    const flipped = await logbook(['verify', 'flipped'], { cwd })
    expect(flipped.code).toBe(6)
    expect(lines(flipped.stdout)[2]).toMatch(/FAIL {2}corruption {2}session "flipped": corrupt log: checksum mismatch \(stored [0-9a-f]{8}, computed [0-9a-f]{8}\) at line 4 \(seq 2\)/)
    const file = sessionFile(root, 'legacy')
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
    const header = JSON.stringify({ type: 'session', version: 2, incarnation: '0b6a3c2e-6c1f-4a8e-9d3b-1f2e3d4c5b6a', id: 'legacy', createdAt: T0 })
    writeFileSync(file, `${[header, ...turnEvents(0, 1, T0, 'old').map(e => JSON.stringify(e))].join('\n')}\n`, { mode: 0o600 })
    const legacy = await logbook(['verify', 'legacy'], { cwd })
    expect(legacy.code).toBe(0)
    expect(lines(legacy.stdout)[2]).toBe('  ok    checksums              no checksums (a session of the older store format; logbook migrate legacy adds them)')
  })
})
