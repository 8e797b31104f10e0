import { join } from 'node:path'
import type { SessionEvent } from '@logbook/session'
import { beforeAll, describe, expect, it } from 'vitest'
import { DEMO_MODEL, DEMO_PROVIDER } from '../src/app/embedded.ts'
import { DEMO_PROMPTS, DEMO_SYSTEM } from '../src/demo/script.ts'
import { lines, logbook } from './helpers/cli.ts'
import { tempDir, withStore } from './helpers/store.ts'

describe('logbook show', () => {
  const cwd = tempDir()
  const root = join(cwd, '.logbook')
  let stored: readonly SessionEvent[] = []

  beforeAll(async () => {
    stored = await withStore(root, async (app) => {
      const agent = await app.agents().create({ sessionId: 'c1', options: { provider: DEMO_PROVIDER, model: DEMO_MODEL, system: DEMO_SYSTEM } })
      await agent.send(DEMO_PROMPTS.plan)
      await agent.send(DEMO_PROMPTS.explain)
      const result = await app.compaction().compactNow(agent)
      expect(result).not.toBeNull()
      await agent.dispose()
      return app.persistence().readFrom('c1', 0)
    })
  })

  it('L-111 show --surface after a compaction starts, after the system prompt, with the summary', async () => {
    const run = await logbook(['show', 'c1', '--surface'], { cwd })
    expect(run.code).toBe(0)
    const out = lines(run.stdout)
    expect(out[0]).toBe(`system> ${DEMO_SYSTEM}`)
    expect(out[1]).toBe('summary> Earlier conversation was compacted. The block below is an automatically generated summary of it; treat it as background and continue without commenting on it.')
    expect(out).toContain('         <compacted-summary>')
    expect(out).not.toContain(`you> ${DEMO_PROMPTS.plan}`)
  })

  it('L-111 plain show still shows the shadowed messages, with the compaction as a marker line', async () => {
    const run = await logbook(['show', 'c1'], { cwd })
    expect(run.code).toBe(0)
    const out = lines(run.stdout)
    expect(out[0]).toBe(`system> ${DEMO_SYSTEM}`)
    expect(out[1]).toBe(`you> ${DEMO_PROMPTS.plan}`)
    expect(out).toContain('tool> list_notes({})')
    expect(out).toContain(`you> ${DEMO_PROMPTS.explain}`)
    expect(out.at(-1)).toMatch(/^── compacted \d+ surface nodes into a summary ──$/)
    expect(out.filter(line => line === '── turn 1 ended: completed ──')).toHaveLength(1)
  })

  it('L-111 show --json lines parse to the stored events; --log has one line per event', async () => {
    const json = await logbook(['show', 'c1', '--json'], { cwd })
    expect(json.code).toBe(0)
    expect(lines(json.stdout).map(line => JSON.parse(line) as unknown)).toEqual(stored)
    const log = await logbook(['show', 'c1', '--log'], { cwd })
    const rows = lines(log.stdout)
    expect(rows).toHaveLength(stored.length)
    expect(rows[0]).toBe(`0 ${new Date(stored[0]!.time).toISOString()} turn/start turn 1`)
    expect(rows.some(row => / compaction\/start /.test(row))).toBe(true)
  })

  it('L-111 show modes cannot be combined', async () => {
    const run = await logbook(['show', 'c1', '--surface', '--log'], { cwd })
    expect(run.code).toBe(2)
    expect(lines(run.stderr)).toEqual(['logbook: --surface and --log cannot be combined [USAGE]'])
  })
})

describe('logbook show --at', () => {
  const cwd = tempDir()
  const root = join(cwd, '.logbook')
  let stored: readonly SessionEvent[] = []

  beforeAll(async () => {
    stored = await withStore(root, async (app) => {
      const agent = await app.agents().create({ sessionId: 'a1', options: { provider: DEMO_PROVIDER, model: DEMO_MODEL, system: DEMO_SYSTEM } })
      await agent.send(DEMO_PROMPTS.plan)
      await agent.send(DEMO_PROMPTS.explain)
      await agent.dispose()
      return app.persistence().readFrom('a1', 0)
    })
  })

  it('L-178 starts the transcript, --log and --json at that event', async () => {
    const second = stored.find(event => event.type === 'turn/start' && event.data.turn === 2)!
    const full = lines((await logbook(['show', 'a1'], { cwd })).stdout)
    const run = await logbook(['show', 'a1', '--at', String(second.seq)], { cwd })
    expect(run.code).toBe(0)
    const out = lines(run.stdout)
    expect(out[0]).toBe(`── from seq ${second.seq} of ${stored.length} ──`)
    expect(out[1]).toBe(`you> ${DEMO_PROMPTS.explain}`)
    expect(out.slice(1)).toEqual(full.slice(full.indexOf(`you> ${DEMO_PROMPTS.explain}`)))
    const log = lines((await logbook(['show', 'a1', '--log', '--at', String(second.seq)], { cwd })).stdout)
    expect(log).toHaveLength(stored.length - second.seq)
    expect(log[0]).toBe(`${second.seq} ${new Date(second.time).toISOString()} turn/start turn 2`)
    const json = lines((await logbook(['show', 'a1', '--json', '--at', String(second.seq)], { cwd })).stdout)
    expect(json.map(line => JSON.parse(line) as unknown)).toEqual(stored.slice(second.seq))
    expect(lines((await logbook(['show', 'a1', '--at', '0'], { cwd })).stdout)).toEqual(full)
  })

  it('L-178 --at past the end, not a number, or with --surface is a usage error (exit 2)', async () => {
    const past = await logbook(['show', 'a1', '--at', String(stored.length)], { cwd })
    expect(past.code).toBe(2)
    expect(lines(past.stderr)).toEqual([`logbook: --at ${stored.length} is past the end of session "a1" (${stored.length} events) [USAGE]`])
    expect(lines((await logbook(['show', 'a1', '--at', 'x'], { cwd })).stderr)).toEqual(['logbook: option --at must be a non-negative integer, got "x" [USAGE]'])
    expect(lines((await logbook(['show', 'a1', '--surface', '--at', '3'], { cwd })).stderr)).toEqual(['logbook: --at cannot be combined with --surface [USAGE]'])
  })
})
