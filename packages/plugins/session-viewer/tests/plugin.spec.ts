import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@logbook/session'
import MemorySessionPersistence from '@logbook/session-persistence'
import { describe, expect, it } from 'vitest'
import SessionViewer, { DEFAULT_VIEWER_CONFIG, SessionViewerConfigSchema } from '../src/index.ts'
import * as Invariant from '../src/invariant.ts'
import { startViewer } from './app.ts'

describe('the viewer plugin', () => {
  it('L-169 the config has documented defaults and refuses values out of range', () => {
    expect(DEFAULT_VIEWER_CONFIG).toEqual({
      port: 0, turnsPerPage: 50, pollIntervalMs: 250, cachedSessions: 4, listLimit: 50, searchLimit: 50, originalsShown: 200,
    })
    expect(() => SessionViewerConfigSchema({ port: 70_000 })).toThrow()
    expect(() => SessionViewerConfigSchema({ pollIntervalMs: 10 })).toThrow()
    expect(() => SessionViewerConfigSchema({ turnsPerPage: 0 })).toThrow()
  })

  it('L-169 a port that is taken fails the plugin with LISTEN_FAILED naming the address', async () => {
    const first = await startViewer()
    const port = Number(new URL(first.base).port)
    const ctx = new Context()
    await ctx.plugin(SessionStore)
    await ctx.plugin(MemorySessionPersistence)
    try {
      await expect(ctx.plugin(SessionViewer, { port })).rejects.toMatchObject({
        code: 'LISTEN_FAILED', message: expect.stringMatching(new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`)),
      })
    } finally {
      await first.stop()
    }
  })

  it('L-169 disposing the plugin closes the server; the address is then refused', async () => {
    const app = await startViewer()
    const { base } = app
    await app.stop()
    await expect(fetch(`${base}/`)).rejects.toThrow()
    expect(() => app.viewer.url()).toThrow(expect.objectContaining({ code: 'NOT_LISTENING' }))
  })

  it('L-169 the invariant companion registers nothing', () => {
    expect(Invariant.name).toBe('session-viewer-invariant')
    expect(() => Invariant.apply(new Context())).not.toThrow()
  })
})
