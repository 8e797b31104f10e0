/** The listing memo (02 §1.3): a value comes back only for exactly the inputs it was stored with, for two passes. */
import { describe, expect, it } from 'vitest'
import { ListingMemo } from '../src/listing-memo.ts'

describe('ListingMemo', () => {
  it('P-168 a value is returned only while every input is equal (strings by content, null and undefined apart)', () => {
    const memo = new ListingMemo<string>()
    memo.set('s1', ['header text', 7, null], 'checked')
    expect(memo.get('s1', ['header' + ' text', 7, null])).toBe('checked')
    expect(memo.get('s1', ['header text', 8, null])).toBeUndefined()
    expect(memo.get('s1', ['header text', 7, undefined])).toBeUndefined()
    expect(memo.get('s1', ['header text', 7])).toBeUndefined()
    expect(memo.get('s2', ['header text', 7, null])).toBeUndefined()
  })

  it('P-168 an entry not seen by the last two passes is dropped; one seen again is kept', () => {
    const memo = new ListingMemo<string>()
    memo.set('kept', ['a'], 'K')
    memo.set('gone', ['b'], 'G')
    memo.beginPass()
    expect(memo.get('kept', ['a'])).toBe('K')
    memo.beginPass()
    expect(memo.get('kept', ['a'])).toBe('K')
    expect(memo.get('gone', ['b'])).toBeUndefined()
    memo.clear()
    expect(memo.get('kept', ['a'])).toBeUndefined()
  })

  it('P-168 recall computes once for unchanged inputs, again for changed ones, and never remembers an Error', () => {
    const memo = new ListingMemo<string>()
    let calls = 0
    const check = (outcome: string | Error) => () => {
      calls++
      return outcome
    }
    expect(memo.recall('s1', ['h', 1], check('ok'))).toBe('ok')
    expect(memo.recall('s1', ['h', 1], check('other'))).toBe('ok')
    expect(calls).toBe(1)
    expect(memo.recall('s1', ['h', 2], check('changed'))).toBe('changed')
    expect(calls).toBe(2)
    const failure = new Error('bad header')
    expect(memo.recall('s2', ['x'], check(failure))).toBe(failure)
    expect(memo.recall('s2', ['x'], check('fixed?'))).toBe('fixed?')
    expect(calls).toBe(4)
  })
})
