/** `emitContained` and `warnFailures`: delivery through Cordis dispatch with each listener's failure contained. */

import { Context } from '@deepseek-ai/cordis'
import { describe, expect, it } from 'vitest'
import { emitContained, type FailureSink, warnFailures } from '../src/contain.ts'
import { describeValue } from '../src/errors.ts'

declare module '@deepseek-ai/cordis' {
  interface Events {
    'test/ping'(payload: { n: number }): void
  }
}

describe('emitContained', () => {
  it('calls every listener in order with the payload; a throw and a rejection reach the sink, the rest still run', async () => {
    const app = new Context()
    const ran: string[] = []
    app.on('test/ping', ({ n }) => { ran.push(`a${n}`); throw new Error('sync') })
    app.on('test/ping', ({ n }) => { ran.push(`b${n}`); return Promise.reject('async') as never })
    app.on('test/ping', ({ n }) => { ran.push(`c${n}`) })
    const lines: string[] = []
    emitContained(app.events, warnFailures(line => lines.push(line)), 'test/ping', [{ n: 1 }])
    expect(ran).toEqual(['a1', 'b1', 'c1'])
    await new Promise(resolve => setImmediate(resolve))
    expect(lines).toEqual(['test/ping listener threw: sync', 'test/ping listener rejected: async'])
  })

  it('formats the thrown value with the given text function', () => {
    const app = new Context()
    app.on('test/ping', () => { throw 'quoted' })
    const lines: string[] = []
    emitContained(app.events, warnFailures(line => lines.push(line), describeValue), 'test/ping', [{ n: 1 }])
    expect(lines).toEqual(['test/ping listener threw: "quoted"'])
  })

  it('binds the listeners to thisArg and hands it to the sink; a throwing dispatch runs no listener', () => {
    const app = new Context()
    const self = { id: 'me' }
    const seen: unknown[] = []
    app.on('test/ping', function (this: unknown) { seen.push(this); throw new Error('x') })
    const reports: unknown[][] = []
    const sink: FailureSink = (event, failure, error, thisArg) => reports.push([event, failure, (error as Error).message, thisArg])
    emitContained(app.events, sink, 'test/ping', [{ n: 2 }], self)
    expect(seen).toEqual([self])
    const stop = app.on('internal/dispatch', () => { throw new Error('veto') })
    emitContained(app.events, sink, 'test/ping', [{ n: 3 }], self)
    stop()
    expect(seen).toEqual([self])
    expect(reports).toEqual([['test/ping', 'listener threw', 'x', self], ['test/ping', 'dispatch failed', 'veto', self]])
  })
})
