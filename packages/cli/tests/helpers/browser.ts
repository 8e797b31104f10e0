/**
 * A real headless Chromium for the tests that use the viewer as a person would: Debian's `chromium` driven by
 * playwright-core (never a downloaded browser). Without it the browser tests skip with one line saying why — except
 * under CI (`CI` set), where a missing browser fails the run instead, so they can never skip there silently.
 */

import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

/** Debian's Chromium. */
export const CHROMIUM = '/usr/bin/chromium'

/** The launch flags that work on these machines (docs/toolchain.md). */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/** Why the browser tests cannot run here, or `undefined` when they can. */
export const browserMissing: string | undefined = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is missing (install Debian's chromium: apt-get install -y chromium)`

if (browserMissing !== undefined) {
  if (process.env.CI !== undefined && process.env.CI !== '') throw new Error(`browser tests cannot run under CI: ${browserMissing}`)
  console.warn(`[logbook tests] skipping the browser tests: ${browserMissing}`)
}

/** A headless Chromium; close it when done. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
}
