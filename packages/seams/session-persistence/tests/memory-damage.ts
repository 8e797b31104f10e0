/**
 * The memory backend's damage kit for the conformance suite (spec 02 §9, `damage: 'rows'`): edits the records of a
 * named memory store in place. Test code only, never shipped.
 */
import { deepFreeze } from '@logbook/session'
import { changeOneDigit } from '../../session-persistence-conformance/src/damage.ts'
import type { LockOwner } from '../src/backend.ts'
import { type MemoryRecord, type MemorySession, memoryStore } from '../src/memory-backend.ts'
import { decodeRecordText, recordChecksum } from '../src/record-codec.ts'

function sessionOf(storeName: string, id: string): MemorySession {
  const session = memoryStore(storeName).sessions.get(id)
  if (session === undefined) throw new Error(`memory damage: session "${id}" is not stored in "${storeName}"`)
  return session
}

const countOf = (record: MemoryRecord) => (record.eventCount === undefined ? {} : { eventCount: record.eventCount })

/** A record holding `text` with a checksum that matches it (as a writer would have stored it). */
const written = (text: string, eventCount?: number): MemoryRecord =>
  ({ text, crc: recordChecksum(text), ...(eventCount === undefined ? {} : { eventCount }) })

/** A `DamageKit` (conformance types.ts) over the named memory store `storeName`. */
export function memoryDamage(storeName: string) {
  return {
    /**
     * Keep the first `keep` characters of the last record's text and mark it torn (a write cut short, as a JSONL
     * fragment without its newline); returns its full length.
     */
    tearLastRecord(id: string, keep: number): number {
      const session = sessionOf(storeName, id)
      const last = session.records.at(-1)
      if (last === undefined) throw new Error(`memory damage: session "${id}" has no records`)
      const length = last.text.length
      if (keep < length) {
        session.records[session.records.length - 1] = { ...written(last.text.slice(0, keep), last.eventCount), torn: true }
        session.counter += 1
      }
      return length
    },
    /**
     * `'garbage'`: a record that does not parse; `'seq-gap'`: its first seq one higher than stored (both with a
     * matching checksum); `'checksum'`: one digit of its text changed, its stored checksum left as it was.
     */
    corruptRecord(id: string, index: number, kind: 'garbage' | 'seq-gap' | 'checksum'): void {
      const session = sessionOf(storeName, id)
      const record = session.records[index]
      if (record === undefined) throw new Error(`memory damage: session "${id}" has no record ${index}`)
      if (kind === 'checksum') {
        session.records[index] = { ...countOf(record), text: changeOneDigit(record.text), crc: record.crc }
      } else if (kind === 'seq-gap') {
        const value = JSON.parse(record.text) as { seq?: number; seq0?: number }
        if (value.seq0 !== undefined) value.seq0 += 1
        else value.seq = (value.seq ?? 0) + 1
        session.records[index] = written(JSON.stringify(value), record.eventCount)
      } else {
        session.records[index] = written('{"garbage": ', record.eventCount)
      }
      session.counter += 1
    },
    /** Append `text` as one record; the cursor advances when it decodes to events at the next seq. */
    appendRawRecord(id: string, text: string): void {
      const session = sessionOf(storeName, id)
      session.records.push(written(text))
      const result = decodeRecordText(text)
      const events = result.ok ? result.events : []
      if (events.length > 0 && events[0]!.seq === session.nextSeq) session.nextSeq = events.at(-1)!.seq + 1
      session.counter += 1
    },
    /** Set (or with `undefined` delete) one stored header field. */
    setHeaderField(id: string, key: string, value: unknown): void {
      const session = sessionOf(storeName, id)
      const header = { ...(session.header as Record<string, unknown>) }
      if (value === undefined) delete header[key]
      else header[key] = value
      session.header = deepFreeze(header)
      session.headerCrc = recordChecksum(JSON.stringify(header))
      session.counter += 1
    },
    /** Change one digit of the stored header's `createdAt`, leaving its checksum as it was. */
    flipHeaderDigit(id: string): void {
      const session = sessionOf(storeName, id)
      const header = session.header as { createdAt: number }
      session.header = deepFreeze({ ...header, createdAt: header.createdAt % 10 === 9 ? header.createdAt - 1 : header.createdAt + 1 })
      session.counter += 1
    },
    /** Replace the stored header by something that is not a JSON object. */
    corruptHeader(id: string): void {
      const session = sessionOf(storeName, id)
      session.header = undefined
      session.counter += 1
    },
    /** Store a lock for `holder`, replacing any existing one. */
    writeLockRecord(id: string, holder: LockOwner): void {
      memoryStore(storeName).locks.set(id, { holder })
    },
  }
}
