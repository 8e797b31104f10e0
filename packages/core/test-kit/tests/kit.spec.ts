import { describe, expect, it } from 'vitest'
import { captureLogs, deferred, drain, rejection, shape, testApp, textsOf, thrown, tick } from '../src/index.ts'

describe('testApp and captureLogs', () => {
  it('capture each record in order, formatted without colours and as delivered, up to the level asked for', () => {
    const { app, logs, lines, records } = testApp()
    expect(logs).toBe(lines)
    const log = app.logger('unit')
    log.warn('careful: %s', 'x')
    log.debug('detail %d', 7)
    log.error(new Error('broken'))
    expect(lines.slice(0, 2)).toEqual(['careful: x', 'detail 7'])
    expect(lines[2]).toMatch(/^Error: broken\n {4}at /)
    expect(records.map(record => [record.type, record.name])).toEqual([['warn', 'unit'], ['debug', 'unit'], ['error', 'unit']])

    const quiet = testApp({ level: 2 })
    quiet.app.logger('unit').debug('dropped')
    quiet.app.logger('unit').warn('kept')
    expect(quiet.logs).toEqual(['kept'])
  })

  it('captureLogs adds a capture to an existing app; textsOf picks one type (and logger) as text', () => {
    const { app } = testApp()
    const second = captureLogs(app, { level: 3 })
    app.logger('a').warn('one')
    app.logger('b').warn('two')
    app.logger('a').info('three')
    expect(second.lines).toEqual(['one', 'two', 'three'])
    expect(textsOf(second.records, 'warn')).toEqual(['one', 'two'])
    expect(textsOf(second.records, 'warn', 'b')).toEqual(['two'])
  })
})

describe('promises and probes', () => {
  it('deferred settles when the test says so, either way', async () => {
    const ok = deferred<number>()
    const order: string[] = []
    void ok.promise.then(value => order.push(`ok ${value}`))
    await tick()
    expect(order).toEqual([])
    ok.resolve(3)
    await tick()
    expect(order).toEqual(['ok 3'])
    const bad = deferred()
    bad.reject(new Error('no'))
    expect((await rejection(bad.promise)).message).toBe('no')
  })

  it('thrown and rejection return what was thrown, and fail when nothing was', async () => {
    const error = Object.assign(new Error('bad'), { code: 'BAD' })
    expect(thrown(() => { throw error })).toBe(error)
    expect(() => thrown(() => 1)).toThrow('expected a throw')
    expect(await rejection(Promise.reject(error))).toBe(error)
    await expect(rejection(Promise.resolve(1))).rejects.toThrow('expected a rejection')
  })

  it('drain collects an async iterable in order', async () => {
    async function* three() {
      yield 1
      await tick()
      yield 2
      yield 3
    }
    expect(await drain(three())).toEqual([1, 2, 3])
  })
})

describe('shape', () => {
  it('lists type names from an index on, each run of assistant/chunk collapsed to chunks', () => {
    const types = ['turn/start', 'assistant/chunk', 'assistant/chunk', 'assistant/message', 'assistant/chunk', 'turn/end']
    const events = types.map(type => ({ type }))
    expect(shape(events)).toEqual(['turn/start', 'chunks', 'assistant/message', 'chunks', 'turn/end'])
    expect(shape(events, 2)).toEqual(['chunks', 'assistant/message', 'chunks', 'turn/end'])
  })
})
