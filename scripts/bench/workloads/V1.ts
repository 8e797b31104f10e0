/**
 * V1: the viewer's first paint of W's session page in headless Chromium. W is stored in a temporary JSONL store
 * (untimed); the viewer plugin serves it on 127.0.0.1 from this process, and Debian's Chromium (playwright-core,
 * `executablePath`) swaps the token for the cookie on the session list (untimed). Timed: one navigation to
 * `/session/w` with the viewer's session cache cold, from the navigation's start to the first contentful paint, as
 * the page's own Paint Timing reports it — the server's read of W's 111,000 events, the fold of the last page of
 * turns and its rendering included. Extra figures: the time to the first byte (the server's share), to
 * `DOMContentLoaded`, and the server's CPU time over the navigation. The target (≤ 1 s) is absolute.
 */

import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@logbook/session'
import JsonlSessionPersistence from '@logbook/session-persistence-jsonl'
import SessionProjections from '@logbook/session-projection'
import SessionViewer from '@logbook/session-viewer'
import { chromium } from 'playwright-core'
import { cpuSince, report } from '../harness.ts'
import { W_TURNS, wEvents } from '../session-w.ts'
import { storeEvents, storePath, tempStore } from './persistence-store.ts'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync']

const temp = tempStore('v1')
const app = new Context()
const fibers = [app.plugin(SessionStore)]
await fibers[0]
fibers.push(app.plugin(JsonlSessionPersistence, { root: storePath('jsonl', temp.dir), durability: 'none' }))
await fibers[1]
fibers.push(app.plugin(SessionProjections, { checkpoint: { enabled: false, everyEvents: 1000 } }))
await fibers[2]
await storeEvents(app.get('sessionPersistence')!, 'w', wEvents())
fibers.push(app.plugin(SessionViewer, {}))
await fibers[3]
const url = app.get('sessionViewer')!.url()
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
try {
  const page = await browser.newPage()
  await page.goto(url)
  const base = new URL(url).origin
  // CPU time of this process (the server) over the navigation: unlike the elapsed time it does not grow while the
  // process waits for a core, so it stays comparable on a loaded machine (reported, not judged).
  const cpuBefore = process.cpuUsage()
  await page.goto(`${base}/session/w`, { waitUntil: 'load' })
  const serverCpuMs = cpuSince(cpuBefore) / 1000
  // The paint entry may be recorded after `load`: wait for it (buffered), at most 10 s. Passed as text, because the
  // TypeScript loader would add helpers to a function that do not exist in the page.
  const timing = await page.evaluate(`new Promise(resolve => {
    const nav = performance.getEntriesByType('navigation')[0]
    const timer = setTimeout(() => resolve({ paint: null, firstByte: nav.responseStart, domContentLoaded: nav.domContentLoadedEventEnd }), 10000)
    new PerformanceObserver(list => {
      const entry = list.getEntriesByName('first-contentful-paint')[0]
      if (entry === undefined) return
      clearTimeout(timer)
      resolve({ paint: entry.startTime, firstByte: nav.responseStart, domContentLoaded: nav.domContentLoadedEventEnd })
    }).observe({ type: 'paint', buffered: true })
  })`) as { paint: number | null; firstByte: number; domContentLoaded: number }
  const turns = await page.locator('#log-view article.turn').count()
  const last = await page.locator(`#turn-${W_TURNS}`).count()
  if (timing.paint === null) throw new Error('V1: the page reported no first contentful paint')
  if (turns !== 50 || last !== 1) throw new Error(`V1: expected the last 50 turns of W, saw ${turns} (turn ${W_TURNS}: ${last})`)
  report({
    workload: 'V1', figure: timing.paint, floor: null, ratio: null,
    extra: { firstByteMs: timing.firstByte, domContentLoadedMs: timing.domContentLoaded, serverCpuMs },
  })
} finally {
  await browser.close()
  for (const fiber of fibers.reverse()) await fiber.dispose()
  temp.remove()
}
