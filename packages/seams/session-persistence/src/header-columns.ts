/**
 * The header columns of a row store (02 §6, §6b): a session row keeps the full header JSON and indexed copies of some
 * of its fields, which must agree with it. SQLite and PostgreSQL check both with these functions.
 */
import type { SessionHeader } from '@logbook/session'

/** The columns of a session row that copy header fields, plus the header text itself. */
export interface HeaderColumns {
  readonly id: string
  readonly version: number
  readonly created_at: number
  readonly cwd: string | null
  readonly parent_session: string | null
  readonly header: string
}

/** The parsed header JSON of a row, or `undefined` when it does not parse. */
export function parseHeaderColumn(row: HeaderColumns): unknown {
  try {
    return JSON.parse(row.header) as unknown
  } catch {
    return undefined
  }
}

const columnValue = (value: unknown): unknown => (value === undefined ? null : value)

/**
 * Why the row's indexed columns disagree with its parsed header object, or `undefined` when they agree (or when the
 * header is not an object: the coordinator reports that itself).
 */
export function headerColumnProblem(row: HeaderColumns, header: unknown): string | undefined {
  if (typeof header !== 'object' || header === null || Array.isArray(header)) return undefined
  const h = header as Partial<Record<keyof SessionHeader, unknown>>
  const pairs: readonly [string, unknown, unknown][] = [
    ['id', row.id, h.id],
    ['version', row.version, h.version],
    ['created_at', row.created_at, h.createdAt],
    ['cwd', row.cwd, columnValue(h.cwd)],
    ['parent_session', row.parent_session, columnValue(h.parentSession)],
  ]
  for (const [column, stored, inHeader] of pairs) {
    if (stored !== inHeader) {
      return `header column ${column} (${JSON.stringify(stored)}) differs from the header JSON (${JSON.stringify(inHeader) ?? 'absent'})`
    }
  }
  return undefined
}
