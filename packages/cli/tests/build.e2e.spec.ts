import { execFileSync } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, inject, it } from 'vitest'
import { cliMode } from './helpers/cli.ts'

const cliRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(cliRoot, 'dist', 'bin.js')

describe('the logbook binary', () => {
  it('the source entry point starts with the node shebang the build keeps', () => {
    expect(readFileSync(join(cliRoot, 'src', 'bin.ts'), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node')
    const manifest = JSON.parse(readFileSync(join(cliRoot, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> }
    expect(manifest.bin).toEqual({ logbook: './dist/bin.js' })
    expect(manifest.scripts.build).toBe('node scripts/build.mjs')
  })

  it.runIf(cliMode() === 'built')('the package build publishes an executable dist/bin.js that runs without tsx or the source condition', () => {
    expect(inject('logbookCommand').argv).toEqual([bin])
    expect(readFileSync(bin, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node')
    expect(statSync(bin).mode & 0o111).toBe(0o111)
    const env = { ...process.env, NODE_OPTIONS: '' }
    expect(execFileSync(bin, ['--version'], { encoding: 'utf8', env })).toBe(`${JSON.parse(readFileSync(join(cliRoot, 'package.json'), 'utf8')).version as string}\n`)
  })

  it.runIf(process.env.TURBO_HASH !== undefined)('under turbo (pnpm test) the suite spawns the built dist/bin.js', () => {
    expect(cliMode()).toBe('built')
  })
})
