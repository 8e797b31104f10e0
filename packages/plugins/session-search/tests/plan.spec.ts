/** F-005, F-006: how typed text becomes an FTS5 query (spec 04 §2.2), and what is refused. */
import { describe, expect, it } from 'vitest'
import { planQuery, termsOf } from '../src/plan.ts'

const refusal = (run: () => unknown): { code: unknown; message: string } => {
  try {
    run()
  } catch (error) {
    return { code: (error as { code?: unknown }).code, message: (error as Error).message }
  }
  throw new Error('expected a refusal')
}

describe('query plans', () => {
  it('F-005 plain words search the word index, each term quoted so FTS5 syntax in it is literal', () => {
    expect(termsOf('  deploy  "the release" NEAR( ')).toEqual(['deploy', 'the release', 'NEAR('])
    expect(planQuery('deploy "the release"', 'plain')).toEqual({ index: 'words', match: '"deploy" "the release"' })
    expect(planQuery('AND OR "x" y*', 'plain')).toEqual({ index: 'words', match: '"AND" "OR" "x" "y*"' })
    expect(planQuery('say "hi', 'plain')).toEqual({ index: 'words', match: '"say" "hi"' })
    expect(planQuery('compact* NOT error', 'fts')).toEqual({ index: 'words', match: 'compact* NOT error' })
  })

  it('F-005 unspaced scripts and terms without letters are substrings: trigram from 3 characters, LIKE below', () => {
    expect(planQuery('部署服务器', 'plain')).toEqual({ index: 'grams', match: '"部署服务器"', likes: [], terms: ['部署服务器'] })
    expect(planQuery('会議 error', 'plain')).toEqual({ index: 'grams', match: '"error"', likes: ['%会議%'], terms: ['会議', 'error'] })
    expect(planQuery('->', 'plain')).toEqual({ index: 'grams', match: null, likes: ['%->%'], terms: ['->'] })
    expect(planQuery('50%_\\', 'plain')).toEqual({ index: 'words', match: '"50%_\\"' })
    expect(planQuery('%_ 東京', 'plain')).toEqual({ index: 'grams', match: null, likes: ['%\\%\\_%', '%東京%'], terms: ['%_', '東京'] })
  })

  it('F-006 a query with no term is INVALID_QUERY, one line naming it', () => {
    for (const [text, syntax] of [['', 'plain'], ['   ', 'plain'], ['""', 'plain'], [' ', 'fts']] as const) {
      expect(refusal(() => planQuery(text, syntax))).toEqual({ code: 'INVALID_QUERY', message: `invalid search query ${JSON.stringify(text)}: the query is empty` })
    }
  })
})
