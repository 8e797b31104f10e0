/**
 * The layer and cycle check `pnpm test` runs first: every workspace dependency in a `package.json` and every import in
 * `packages/` must follow `table.ts`, and no two source files may import each other at runtime (type-only imports,
 * erased at compile time, may form circles). Prints one line per violation and exits 1 when there is any.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { cruise, type IForbiddenRuleType } from 'dependency-cruiser'
import { LAYERS, SIBLINGS, TEST_SIBLINGS, type Layer } from './table.ts'

interface WorkspacePackage { key: string; layer: Layer; manifest: Record<string, Record<string, string> | undefined> }

const ROOT = join(import.meta.dirname, '..', '..')
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const

/** Every package under `packages/`, by npm name, with its `folder/name` key (`cli` for the top layer). */
function workspacePackages(): Map<string, WorkspacePackage> {
  const found = new Map<string, WorkspacePackage>()
  for (const layer of LAYERS) {
    const folder = join(ROOT, 'packages', layer)
    const entries = existsSync(join(folder, 'package.json')) ? [''] : readdirSync(folder)
    for (const entry of entries) {
      const file = join(folder, entry, 'package.json')
      if (!existsSync(file)) continue
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as WorkspacePackage['manifest'] & { name: string }
      found.set(manifest.name, { key: entry === '' ? layer : `${layer}/${entry}`, layer, manifest })
    }
  }
  return found
}

function mayUse(from: WorkspacePackage, to: WorkspacePackage, field: (typeof DEPENDENCY_FIELDS)[number]): boolean {
  if (LAYERS.indexOf(to.layer) < LAYERS.indexOf(from.layer)) return true
  const siblings = [...(SIBLINGS[from.key] ?? []), ...(field === 'devDependencies' ? TEST_SIBLINGS[from.key] ?? [] : [])]
  return from.layer === to.layer && siblings.includes(to.key)
}

function manifestViolations(packages: Map<string, WorkspacePackage>): string[] {
  const lines: string[] = []
  for (const [name, pkg] of packages) {
    for (const field of DEPENDENCY_FIELDS) {
      for (const dep of Object.keys(pkg.manifest[field] ?? {})) {
        const target = packages.get(dep)
        if (target !== undefined && !mayUse(pkg, target, field)) {
          lines.push(`packages/${pkg.key}/package.json: ${name} lists ${dep} in ${field}, but ${pkg.key} may not use ${target.key}`)
        }
      }
    }
  }
  return lines
}

function importRules(packages: Map<string, WorkspacePackage>): IForbiddenRuleType[] {
  const rules: IForbiddenRuleType[] = [{
    name: 'no-runtime-cycle',
    severity: 'error',
    from: {},
    to: { circular: true, dependencyTypesNot: ['type-only'], viaOnly: { dependencyTypesNot: ['type-only'] } },
  }, {
    // An import that does not resolve names a package the importer has not declared (or a missing file).
    name: 'resolvable',
    severity: 'error',
    from: {},
    to: { couldNotResolve: true },
  }]
  LAYERS.forEach((layer, i) => {
    const above = LAYERS.slice(i + 1)
    if (above.length > 0) {
      rules.push({ name: `layer-${layer}`, severity: 'error', from: { path: `^packages/${layer}/` }, to: { path: `^packages/(${above.join('|')})/` } })
    }
  })
  for (const pkg of packages.values()) {
    if (!pkg.key.includes('/')) continue
    const name = (key: string) => key.slice(pkg.layer.length + 1)
    const allowed = [pkg.key, ...(SIBLINGS[pkg.key] ?? [])].map(name)
    const inTests = [...allowed, ...(TEST_SIBLINGS[pkg.key] ?? []).map(name)]
    rules.push({
      name: `siblings-${pkg.key}`,
      severity: 'error',
      from: { path: `^packages/${pkg.key}/`, pathNot: `^packages/${pkg.key}/tests/` },
      to: { path: `^packages/${pkg.layer}/(?!(?:${allowed.join('|')})/)` },
    }, {
      name: `siblings-${pkg.key}-tests`,
      severity: 'error',
      from: { path: `^packages/${pkg.key}/tests/` },
      to: { path: `^packages/${pkg.layer}/(?!(?:${inTests.join('|')})/)` },
    })
  }
  return rules
}

async function importViolations(packages: Map<string, WorkspacePackage>): Promise<string[]> {
  process.chdir(ROOT)
  const result = await cruise(['packages'], {
    validate: true,
    ruleSet: { forbidden: importRules(packages) },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['source', 'import', 'node', 'default'], extensions: ['.ts', '.js', '.mjs'] },
  })
  if (typeof result.output === 'string') throw new Error('dependency-cruiser returned text instead of a result')
  return result.output.summary.violations.map(v => {
    const via = v.cycle === undefined ? '' : ` (cycle: ${v.cycle.map(step => step.name).join(' → ')})`
    return `${v.from} → ${v.to}: ${v.rule.name}${via}`
  })
}

const packages = workspacePackages()
const violations = [...manifestViolations(packages), ...await importViolations(packages)]
for (const line of violations) console.error(line)
if (violations.length > 0) {
  console.error(`layers: ${violations.length} violation(s) of scripts/layers/table.ts`)
  process.exit(1)
}
console.log(`layers: ${packages.size} packages follow scripts/layers/table.ts; no runtime import cycle`)
