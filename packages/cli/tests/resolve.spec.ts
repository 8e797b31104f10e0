import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { activeConditions, exportTarget, resolveFrom } from '../src/app/resolve.ts'
import { tempDir } from './helpers/store.ts'

describe('module resolution for cordis.yml entries', () => {
  it('reads --conditions from execArgv and NODE_OPTIONS', () => {
    expect(activeConditions(['--conditions=source', '--import', 'tsx'], '')).toEqual(['source', 'node', 'import', 'default'])
    expect(activeConditions(['-C', 'dev'], '--conditions=x')).toEqual(['dev', 'x', 'node', 'import', 'default'])
    expect(activeConditions([], '')).toEqual(['node', 'import', 'default'])
  })

  it('maps a subpath through exports with the active conditions, or main', () => {
    const manifest = { exports: { '.': { source: './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' }, './invariant': './dist/invariant.js' } }
    expect(exportTarget(manifest, '.', ['source', 'node', 'import', 'default'])).toBe('./src/index.ts')
    expect(exportTarget(manifest, '.', ['node', 'import', 'default'])).toBe('./dist/index.js')
    expect(exportTarget(manifest, './invariant', ['default'])).toBe('./dist/invariant.js')
    expect(exportTarget(manifest, './hidden', ['default'])).toBeUndefined()
    expect(exportTarget({ exports: './main.js' }, '.', ['default'])).toBe('./main.js')
    expect(exportTarget({ main: 'lib/x.js' }, '.', ['default'])).toBe('lib/x.js')
    expect(exportTarget({}, '.', ['default'])).toBe('./index.js')
  })

  it('finds a package in the node_modules of the config folder or above it', () => {
    const root = tempDir()
    const pkg = join(root, 'node_modules', '@acme', 'plugin')
    mkdirSync(join(pkg, 'lib'), { recursive: true })
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: '@acme/plugin', exports: { '.': { import: './lib/index.js' } } }))
    writeFileSync(join(pkg, 'lib', 'index.js'), 'export const name = "acme"\n')
    const app = join(root, 'apps', 'one')
    mkdirSync(app, { recursive: true })
    expect(resolveFrom('@acme/plugin', app, ['node', 'import', 'default'])).toBe(pathToFileURL(join(pkg, 'lib', 'index.js')).href)
    expect(resolveFrom('@acme/other', app, ['default'])).toBeUndefined()
  })

  it('L-138 a package names itself: an app inside a plugin\'s own folder resolves that plugin through its exports', () => {
    const root = tempDir()
    mkdirSync(join(root, 'src'), { recursive: true })
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: '@acme/histogram', exports: { '.': { source: './src/index.ts', default: './dist/index.js' } } }))
    writeFileSync(join(root, 'src', 'index.ts'), 'export const name = "histogram"\n')
    mkdirSync(join(root, 'app'))
    expect(resolveFrom('@acme/histogram', join(root, 'app'), ['source', 'default'])).toBe(pathToFileURL(join(root, 'src', 'index.ts')).href)
    // Only the nearest package.json names the package; without exports there is no self-reference (as in Node).
    writeFileSync(join(root, 'app', 'package.json'), JSON.stringify({ name: 'the-app' }))
    expect(resolveFrom('@acme/histogram', join(root, 'app'), ['source', 'default'])).toBeUndefined()
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: '@acme/histogram', main: './src/index.ts' }))
    expect(resolveFrom('@acme/histogram', root, ['source', 'default'])).toBeUndefined()
  })
})
