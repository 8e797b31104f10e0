/**
 * F-007…F-019: searching real JSONL stores (spec 04 §2): hits on the surface and only in the log (compacted
 * originals, pruned results, cut-off streams), Chinese and Japanese, refusals, deletion, options, and that only
 * stored events are found.
 */
import { MessageId, type Session, SessionId } from '@logbook/session'
import { afterEach, describe, expect, it } from 'vitest'
import { COMPACTION_TYPES, compact, prune, requestErrorStep } from './events.ts'
import { brief, checkIndex, createSession, detachSession, forkSession, jsonlStore, matches, mountApp, type TestApp, turn } from './helpers.ts'

const apps: TestApp[] = []
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop()
})

async function app(config: Parameters<typeof mountApp>[1] = {}, persistence: Record<string, unknown> = {}): Promise<TestApp> {
  const t = await mountApp(jsonlStore(), config, persistence)
  for (const type of COMPACTION_TYPES) t.app.sessions.registerEventType(type)
  apps.push(t)
  return t
}

async function stored(t: TestApp, id: string, write: (s: Session) => void): Promise<Session> {
  const s = await createSession(t, id)
  write(s)
  await t.app.sessions.flush(s)
  return s
}

const refusal = async (work: Promise<unknown>): Promise<{ code: unknown; message: string }> => {
  const error = await work.then(() => undefined, (e: unknown) => e)
  if (error === undefined) throw new Error('expected a rejection')
  return { code: (error as { code?: unknown }).code, message: (error as Error).message }
}

describe('hits', () => {
  it('F-007 a word on the surface: session, title, turn, seq, type, field, on surface, the match marked', async () => {
    const t = await app()
    let seqs: ReturnType<typeof turn> | undefined
    await stored(t, 'release', s => {
      seqs = turn(s, 1, { prompt: 'Plan the release for Friday', reply: 'Reading the plan', tool: 'read_note', args: '{"name":"plan.md"}', result: 'freeze the branch, then deploy', answer: 'We deploy on Friday.' })
    })
    const hits = await t.search.query('deploy')
    expect(brief(hits).sort()).toEqual([`release@${seqs!.answer} assistant surface`, `release@${seqs!.result} tool-result surface`].sort())
    const answer = hits.find(hit => hit.seq === seqs!.answer)!
    expect(answer).toMatchObject({ sessionId: 'release', title: 'Plan the release for Friday', turn: 1, type: 'assistant/message', inherited: false })
    expect(answer.snippet).toEqual([{ text: 'We ', match: false }, { text: 'deploy', match: true }, { text: ' on Friday.', match: false }])
    expect(answer.score).toBeGreaterThan(0)
    const call = await t.search.query('read_note')
    expect(brief(call)).toEqual([`release@${seqs!.assistant} tool-name surface`])
    expect(brief(await t.search.query('plan.md'))).toEqual([`release@${seqs!.assistant} tool-arguments surface`])
  })

  it('F-008 a word only a compacted original holds is a log-only hit; the summary is on the surface', async () => {
    const t = await app()
    let checkpoint = -1
    let first: ReturnType<typeof turn> | undefined
    await stored(t, 'long', s => {
      first = turn(s, 1, { prompt: 'The octopus budget is secret', reply: 'Noted' })
      turn(s, 2, { prompt: 'anything else', reply: 'No' })
      checkpoint = compact(s, 'The user shared a confidential budget.')
    })
    expect(brief(await t.search.query('octopus'))).toEqual([`long@${first!.user} user log-only`])
    expect(brief(await t.search.query('confidential'))).toEqual([`long@${checkpoint} summary surface`])
    // The checkpoint's framing is not indexed: its words find nothing.
    expect(await t.search.query('automatically generated')).toEqual([])
    expect(brief(await t.search.query('octopus', { onSurface: true }))).toEqual([])
    expect(brief(await t.search.query('octopus', { onSurface: false }))).toEqual([`long@${first!.user} user log-only`])
  })

  it('F-009 a pruned tool result is found in its original, log-only; the pruned copy adds no hit', async () => {
    const t = await app()
    let result = -1
    await stored(t, 'pruned', s => {
      result = turn(s, 1, { prompt: 'dump the table', reply: 'Dumping', tool: 'sql', args: '{}', result: `${'row '.repeat(50)}zebra-crossing ${'row '.repeat(50)}` }).result!
      s.append('turn/start', { turn: 2 })
      prune(s, 1)
      s.append('turn/end', { turn: 2, reason: { kind: 'completed' } })
    })
    const hits = await t.search.query('zebra')
    expect(brief(hits)).toEqual([`pruned@${result} tool-result log-only`])
    expect(matches(hits[0]!)).toEqual(['zebra'])
    expect(await t.search.query('pruned')).toEqual([])
  })

  it('F-010 Chinese and Japanese text is found, short words included', async () => {
    const t = await app()
    const seqs: number[] = []
    await stored(t, 'cjk', s => {
      seqs.push(turn(s, 1, { prompt: '我们今天把服务器部署到生产环境', reply: '好的' }).user)
      seqs.push(turn(s, 2, { prompt: '本番環境にデプロイしました。東京のサーバーです', reply: 'はい' }).user)
    })
    expect(brief(await t.search.query('部署到生产'))).toEqual([`cjk@${seqs[0]} user surface`])
    expect(matches((await t.search.query('服务器'))[0]!)).toEqual(['服务器'])
    expect(brief(await t.search.query('デプロイ'))).toEqual([`cjk@${seqs[1]} user surface`])
    const short = await t.search.query('東京')
    expect(brief(short)).toEqual([`cjk@${seqs[1]} user surface`])
    expect(matches(short[0]!)).toEqual(['東京'])
    expect(brief(await t.search.query('東京 デプロイ'))).toEqual([`cjk@${seqs[1]} user surface`])
    expect(await t.search.query('大阪')).toEqual([])
  })

  it('F-011 chunks no message carries (a failed request) are found, log-only', async () => {
    const t = await app()
    let first = -1
    let end = -1
    await stored(t, 'failed', s => {
      s.append('turn/start', { turn: 1 })
      first = requestErrorStep(s, 1, ['Migrating', ' the', ' penguin', ' database'])
      end = s.append('turn/end', { turn: 1, reason: { kind: 'error', error: { code: 'PROVIDER', message: 'upstream failed' } } }).seq
    })
    const hits = await t.search.query('penguin')
    expect(hits.map(hit => [hit.seq, hit.type, hit.field, hit.onSurface, hit.turn])).toEqual([[first, 'assistant/chunk', 'assistant', false, 1]])
    expect(brief(await t.search.query('upstream'))).toEqual([`failed@${end} error log-only`])
  })

  it('F-012 ranking: the text where the words weigh most comes first', async () => {
    const t = await app()
    await stored(t, 'a', s => turn(s, 1, { prompt: `kiwi ${'filler words here '.repeat(20)}`, reply: 'ok' }))
    await stored(t, 'b', s => turn(s, 1, { prompt: 'kiwi kiwi kiwi', reply: 'ok' }))
    const hits = await t.search.query('kiwi')
    expect(hits.map(hit => hit.sessionId)).toEqual(['b', 'a'])
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score)
  })
})

describe('what is searchable', () => {
  it('F-013 an append is found once it is stored, never before (the index mirrors the store)', async () => {
    const t = await app({}, { writeBatchMaxDelayMs: 60_000 })
    const s = await createSession(t, 'pending')
    turn(s, 1, { prompt: 'the walrus plan', reply: 'ok' })
    expect(await t.search.query('walrus')).toEqual([])
    await t.app.sessions.flush(s)
    expect(brief(await t.search.query('walrus'))).toEqual(['pending@1 user surface'])
  })

  it('F-014 a deleted session never shows, even before the index is compared with the store again', async () => {
    const t = await app({ reconcileIntervalMs: 3_600_000 })
    await stored(t, 'doomed', s => turn(s, 1, { prompt: 'the narwhal memo', reply: 'ok' }))
    await stored(t, 'kept', s => turn(s, 1, { prompt: 'another narwhal', reply: 'ok' }))
    expect((await t.search.query('narwhal')).map(hit => hit.sessionId).sort()).toEqual(['doomed', 'kept'])
    // Detach it (releasing write ownership), then delete it through the seam.
    await detachSession(t, t.app.sessions.get(SessionId('doomed'))!)
    const { revision } = await t.app.sessionPersistence.inspect('doomed')
    await t.app.sessionPersistence.delete('doomed', { confirm: 'delete-session', sessionId: 'doomed', revision })
    expect((await t.search.query('narwhal')).map(hit => hit.sessionId)).toEqual(['kept'])
    expect(t.search.counts().sessions).toBe(1)
    checkIndex(t.search.indexLocation)
  })

  it('F-015 a fork child’s hits in the prefix it inherited say so', async () => {
    const t = await app()
    const parent = await stored(t, 'parent', s => turn(s, 1, { prompt: 'the heron survey', reply: 'ok' }))
    const child = t.app.sessions.fork(parent, parent.seq - 1, SessionId('child'))
    const own = turn(child, 2, { prompt: 'a heron again', reply: 'ok' }).user
    await t.app.sessions.flush(child)
    const hits = (await t.search.query('heron', { sessionId: 'child' })).map(hit => [hit.seq, hit.inherited])
    expect(hits.sort()).toEqual([[1, true], [own, false]].sort())
    expect((await t.search.query('survey')).map(hit => [hit.sessionId, hit.inherited]).sort()).toEqual([['child', true], ['parent', false]])
  })
})

describe('sessions that leave before their commits are indexed', () => {
  it('F-016 a fork child detached before the batch ran is indexed from its own events, its inherited prefix marked', async () => {
    const t = await app({ indexDelayMs: 60_000 })
    const parent = await stored(t, 'origin', s => turn(s, 1, { prompt: 'the bittern count', reply: 'ok' }))
    const fork = await forkSession(t, parent, parent.seq - 1, 'branch')
    const own = turn(fork, 2, { prompt: 'a bittern again', reply: 'ok' }).user
    await detachSession(t, fork)
    expect((await t.search.query('bittern', { sessionId: 'branch' })).map(hit => [hit.seq, hit.inherited]).sort()).toEqual([[1, true], [own, false]].sort())
  })

  it('F-017 what the follower holds at teardown is indexed from memory, even after the plugin of its event types left', async () => {
    const store = jsonlStore()
    const t = await mountApp(store, { indexDelayMs: 60_000 })
    const types = await t.app.plugin({ name: 'types', inject: ['sessions'], apply: ctx => { for (const type of COMPACTION_TYPES) ctx.sessions.registerEventType(type) } })
    const s = await createSession(t, 'late')
    // A step still open when the first batch is indexed: the next batch needs its chunks again.
    s.append('turn/start', { turn: 1 })
    s.append('user/message', { id: MessageId('u1'), role: 'user', source: { kind: 'user' }, content: [{ type: 'text', text: 'the shrike survey' }] }, { surfaceOp: 'append' })
    s.append('step/start', { turn: 1, step: 1 })
    const chunk = s.append('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'ok' } })
    await t.app.sessions.flush(s)
    expect(brief(await t.search.query('shrike'))).toEqual(['late@1 user surface'])
    s.append('assistant/message', { turn: 1, step: 1, message: { id: MessageId('a1'), role: 'assistant', source: { kind: 'model', provider: 'p', model: 'm' }, content: [{ type: 'text', text: 'ok' }] } }, { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] })
    s.append('step/end', { turn: 1, step: 1 })
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    compact(s, 'A survey of shrikes.')
    await detachSession(t, s)
    await types.dispose()
    await t.stop()
    expect(t.logs.filter(line => line.includes('indexing failed') || line.includes('cannot be indexed'))).toEqual([])
    const again = await mountApp(store)
    apps.push(again)
    expect(again.search.counts()).toEqual({ sessions: 1, texts: 3 })
    expect(brief(await again.search.query('shrikes'))).toEqual([`late@${s.seq - 2} summary surface`])
  })
})

describe('refusals', () => {
  it('F-018 an expression FTS5 rejects is INVALID_QUERY, one line naming the query', async () => {
    const t = await app()
    await stored(t, 's', s => turn(s, 1, { prompt: 'hello', reply: 'ok' }))
    for (const text of ['deploy AND', '"unterminated', 'NEAR(a b', 'nosuchcolumn: x']) {
      const { code, message } = await refusal(t.search.query(text, { syntax: 'fts' }))
      expect(code).toBe('INVALID_QUERY')
      expect(message.startsWith(`invalid search query ${JSON.stringify(text)}: `)).toBe(true)
      expect(message).not.toMatch(/\n/)
    }
    expect(await refusal(t.search.query('   '))).toEqual({ code: 'INVALID_QUERY', message: 'invalid search query "   ": the query is empty' })
  })

  it('F-019 bad options are INVALID_ARGUMENT; an unknown session is SESSION_NOT_FOUND; an aborted signal rejects with its reason', async () => {
    const t = await app()
    await stored(t, 's', s => turn(s, 1, { prompt: 'hello there', reply: 'ok' }))
    expect(await refusal(t.search.query('hello', { limit: 0 }))).toEqual({ code: 'INVALID_ARGUMENT', message: 'limit must be an integer from 1 to 500, got 0' })
    expect((await refusal(t.search.query('hello', { limit: 1.5 }))).code).toBe('INVALID_ARGUMENT')
    expect(await refusal(t.search.query('hello', { sessionId: 'a/b' }))).toEqual({ code: 'INVALID_ARGUMENT', message: 'invalid session id "a/b"' })
    expect(await refusal(t.search.query('hello', { sessionId: 'nope' }))).toEqual({ code: 'SESSION_NOT_FOUND', message: 'session "nope" not found' })
    const controller = new AbortController()
    const reason = new Error('stop')
    controller.abort(reason)
    await expect(t.search.query('hello', { signal: controller.signal })).rejects.toBe(reason)
    expect((await t.search.query('hello', { limit: 1 })).length).toBe(1)
  })
})
