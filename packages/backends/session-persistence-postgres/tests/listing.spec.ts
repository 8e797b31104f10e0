/**
 * Listing cost and paging (02 §6b "List"): a later page is an index range scan that joins the last record only for the
 * rows it returns; headers an earlier listing checked are reused only while every stored value they came from is equal.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { Statements } from '../src/sql.ts'
import { turn } from './events.ts'
import { freshSchema, sql, useTestDatabase } from './fixture.ts'
import { mountPostgres, type Mounted } from './mount.ts'

const database = useTestDatabase()
const mounts: Mounted[] = []
const schemas: string[] = []

afterEach(async () => {
  for (const mount of mounts.splice(0)) await mount.stop()
  for (const schema of schemas.splice(0)) await sql(database(), `DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
})

/** A mounted store holding `ids`, session i's events ending at `time(i) + 50`. */
async function storeWith(ids: readonly string[], time: (i: number) => number): Promise<{ m: Mounted; schema: string }> {
  const schema = freshSchema()
  schemas.push(schema)
  const m = await mountPostgres({ connectionString: database(), schema, poolSize: 2 })
  mounts.push(m)
  for (const [i, id] of ids.entries()) await m.store(id, turn(0, 1, time(i)))
  return { m, schema }
}

const codes = (page: { problems: readonly { sessionId?: string; error: Error }[] }) =>
  page.problems.map(p => [p.sessionId, (p.error as { code?: string }).code])

describe('listing', () => {
  it('P-167 a later page is an index range scan of logbook_sessions_by_update bounded by the keyset, under its LIMIT, with no sort', async () => {
    const { schema } = await storeWith(['a', 'b'], i => 1_700_000_001_000 + i)
    const statements = new Statements(schema)
    const lines = await sql<{ 'QUERY PLAN': string }>(database(), `EXPLAIN ${statements.listSessionsAfter.replace(/\$(\d)/g, (_, n: string) =>
      ['NULL::text', '0', 'NULL::text', 'NULL::bigint', '1700000002000::bigint', `'x'::text`, '51'][Number(n) - 1]!)}`)
    const plan = lines.map(row => row['QUERY PLAN']).join('\n')
    expect(plan).toMatch(/^Limit/)
    expect(plan).toMatch(/Index Scan using logbook_sessions_by_update on .*logbook_sessions s/)
    // The keyset bounds the scan (an index condition), so no page reads the rows before its position.
    expect(plan).toMatch(/Index Cond: \(updated_at <= '1700000002000'::bigint\)/)
    expect(plan).not.toMatch(/Sort/)
  })

  it('P-167 a walk with ties across page boundaries returns every session once in order, skipping a bad row mid-page', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g']
    const { m, schema } = await storeWith(ids, i => 1_700_000_001_000 + Math.floor(i / 3) * 1000)
    await sql(database(), `UPDATE "${schema}".logbook_sessions SET crc = crc + 1 WHERE id = 'e'`)
    const seen: string[] = []
    let cursor: string | null | undefined
    for (let pages = 0; cursor !== null; pages++) {
      const page = await m.persistence.list(cursor === undefined ? { limit: 2 } : { limit: 2, cursor })
      expect(codes(page)).toEqual(pages === 0 ? [['e', 'SESSION_CORRUPT']] : [])
      seen.push(...page.items.map(s => s.id))
      cursor = page.nextCursor
    }
    expect(seen).toEqual(['g', 'd', 'f', 'a', 'b', 'c'])
  })

  it('P-168 a header or last record changed after a listing is checked again: the next first page reports it', async () => {
    const { m, schema } = await storeWith(['a', 'b', 'c'], i => 1_700_000_001_000 + i)
    expect((await m.persistence.list()).items.map(s => s.id)).toEqual(['c', 'b', 'a'])
    await sql(database(), `UPDATE "${schema}".logbook_sessions SET header = replace(header, 'home', 'hove') WHERE id = 'a'`)
    await sql(database(), `UPDATE "${schema}".logbook_events SET body = replace(body, 'completed', 'completes') WHERE session_id = 'b' AND seq = 5`)
    const page = await m.persistence.list()
    expect(page.items.map(s => s.id)).toEqual(['c'])
    expect(codes(page).sort()).toEqual([['a', 'SESSION_CORRUPT'], ['b', 'SESSION_CORRUPT']])
  })
})
