/**
 * The sections of the runtime-context message (spec 03 §5.6): the built-in `instructions` (the configured
 * instruction files read from the agent's working directory), `cwd` and `date`, then the sections plugins register,
 * in registration order. Rendering is contained per section: a section that throws is left out with a warning.
 */

import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { messageOf } from '@logbook/session'
import { AgentError } from './errors.ts'
import type { ContextSection, ContextSectionInput, RuntimeContextConfig } from './types.ts'

/** Names of the built-in sections, in rendering order. */
export const BUILTIN_SECTIONS: readonly string[] = Object.freeze(['instructions', 'cwd', 'date'])

const SECTION_NAME = /^[a-z][a-z0-9-]{0,63}$/

/** A rendered section. */
export interface RenderedSection {
  readonly name: string
  readonly text: string
}

/** `YYYY-MM-DD` of `now` in the process's time zone. */
export function localDate(now: number): string {
  const date = new Date(now)
  const pad = (n: number): string => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
}

/** The registry of plugin sections; names are unique and never a built-in name. */
export class ContextSections {
  private readonly sections = new Map<string, ContextSection>()

  /**
   * Add `section`; the returned function removes it (idempotent).
   * @throws AgentError `INVALID_CONTEXT_SECTION` (bad name or render), `CONTEXT_SECTION_TAKEN`.
   */
  add(section: ContextSection): () => void {
    const name = (section as { name?: unknown } | null)?.name
    if (typeof name !== 'string' || !SECTION_NAME.test(name)) {
      throw new AgentError('INVALID_CONTEXT_SECTION', `invalid context section ${JSON.stringify(name)}: the name must match ${SECTION_NAME.source}`)
    }
    if (typeof section.render !== 'function') {
      throw new AgentError('INVALID_CONTEXT_SECTION', `invalid context section ${name}: render must be a function`)
    }
    if (BUILTIN_SECTIONS.includes(name) || this.sections.has(name)) {
      throw new AgentError('CONTEXT_SECTION_TAKEN', `context section ${name} is already registered`)
    }
    const entry: ContextSection = { name, render: section.render.bind(section) }
    this.sections.set(name, entry)
    return () => {
      if (this.sections.get(name) === entry) this.sections.delete(name)
    }
  }

  /** The registered plugin sections, in registration order. */
  list(): ContextSection[] {
    return [...this.sections.values()]
  }
}

/** The instructions section: each configured file that exists, in configured order. */
async function instructions(files: readonly string[], cwd: string, warn: (text: string) => void): Promise<string | undefined> {
  const parts: string[] = []
  for (const file of files) {
    let text: string
    try {
      text = await readFile(resolve(cwd, file), 'utf8')
    } catch (error) {
      const code = (error as { code?: unknown }).code
      // A missing file (or a folder of that name) is simply not part of the context.
      if (code !== 'ENOENT' && code !== 'EISDIR' && code !== 'ENOTDIR') warn(`cannot read instruction file ${file}: ${messageOf(error)}`)
      continue
    }
    parts.push(`<file path="${file}">\n${text.trimEnd()}\n</file>`)
  }
  return parts.length === 0 ? undefined : parts.join('\n')
}

/**
 * Render every enabled section for `input`, built-ins first; empty and failing sections are left out.
 */
export async function renderSections(
  config: RuntimeContextConfig, plugins: readonly ContextSection[], input: ContextSectionInput, warn: (text: string) => void,
): Promise<RenderedSection[]> {
  const enabled = (name: string): boolean => config.sections[name] !== false
  const out: RenderedSection[] = []
  const push = (name: string, text: string | undefined): void => {
    if (typeof text === 'string' && text.trim() !== '') out.push({ name, text: text.trim() })
  }
  if (enabled('instructions')) push('instructions', await instructions(config.instructionFiles, input.cwd, warn))
  if (enabled('cwd')) push('cwd', input.cwd)
  if (enabled('date')) push('date', localDate(input.now))
  for (const section of plugins) {
    if (!enabled(section.name)) continue
    try {
      const text = await section.render(input)
      if (text !== undefined && typeof text !== 'string') throw new TypeError(`render returned ${typeof text}, not a string`)
      push(section.name, text)
    } catch (error) {
      warn(`context section ${section.name} failed: ${messageOf(error)}`)
    }
  }
  return out
}
