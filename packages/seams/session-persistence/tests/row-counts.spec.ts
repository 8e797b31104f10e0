import { describe, expect, it } from 'vitest'
import { RevisionRowCounts } from '../src/row-counts.ts'

describe('row counts by revision (a row store\'s physicalLength)', () => {
  it('gives a count only for the very revision it was remembered at', () => {
    const counts = new RevisionRowCounts()
    expect(counts.at('a', 'r1')).toBeUndefined()
    counts.set('a', 'r1', 0)
    expect(counts.at('a', 'r1')).toBe(0)
    expect(counts.at('a', 'r2')).toBeUndefined()
    expect(counts.at('b', 'r1')).toBeUndefined()
    counts.set('a', 'r2', 7)
    expect([counts.at('a', 'r1'), counts.at('a', 'r2')]).toEqual([undefined, 7])
  })

  it('a full scan remembers its rows; a seek reports the remembered count of its revision, else −1', () => {
    const counts = new RevisionRowCounts()
    expect(counts.scanned('a', 'r1', 3, true)).toBe(-1)
    expect(counts.scanned('a', 'r1', 12, false)).toBe(12)
    expect(counts.scanned('a', 'r1', 3, true)).toBe(12)
    expect(counts.scanned('a', 'r2', 3, true)).toBe(-1)
  })

  it('forgets one session on delete and every session on clear', () => {
    const counts = new RevisionRowCounts()
    counts.set('a', 'r1', 1)
    counts.set('b', 'r1', 2)
    counts.delete('a')
    expect([counts.at('a', 'r1'), counts.at('b', 'r1')]).toEqual([undefined, 2])
    counts.clear()
    expect(counts.at('b', 'r1')).toBeUndefined()
  })
})
