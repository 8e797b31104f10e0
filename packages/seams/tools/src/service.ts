/**
 * `ctx.tools`: the tool registry and the one entry point for executions (spec 03 §4).
 */

import { type Context, Service } from '@deepseek-ai/cordis'
import Schema from '@deepseek-ai/schemastery'
import type { ToolSchema } from '@logbook/session'
import { ToolRegistryError } from './errors.ts'
import { executeTool } from './execute.ts'
import type { ToolArguments, ToolDefinition, ToolExecution, ToolOutcome } from './types.ts'
import { assertToolDefinition } from './validate.ts'

/**
 * The tool seam service (ctx key `tools`). Tools register per name, owned by the registering plugin; `execute`
 * runs one call to a `ToolOutcome` and never throws for tool failures.
 */
export class ToolsService extends Service {
  /** The plugin has no configuration. */
  static readonly Config = Schema.object({})

  // Not `#private`: Cordis hands callers a proxy of the service, and proxies cannot reach `#fields`.
  private readonly tools = new Map<string, ToolDefinition>()

  constructor(ctx: Context) {
    super(ctx, 'tools')
  }

  /**
   * Register `def` under its name, owned by the calling plugin: the disposer (also run when that plugin unloads)
   * removes it.
   * @throws ToolRegistryError `INVALID_TOOL` for a malformed definition, `TOOL_NAME_TAKEN` when the name is
   * registered; nothing changes.
   */
  register<A extends object = ToolArguments>(def: ToolDefinition<A>): () => void {
    const definition = def as unknown as ToolDefinition
    assertToolDefinition(definition)
    const { name } = definition
    if (this.tools.has(name)) throw new ToolRegistryError('TOOL_NAME_TAKEN', `tool "${name}" is already registered`)
    const tools = this.tools
    const dispose = this.ctx.effect(() => {
      tools.set(name, definition)
      return () => {
        if (tools.get(name) === definition) tools.delete(name)
      }
    }, `tools.register(${JSON.stringify(name)})`)
    return () => void dispose()
  }

  /** The registered tool called `name`, if any. */
  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name)
  }

  /** Every registered tool, in registration order. */
  list(): ToolDefinition[] {
    return [...this.tools.values()]
  }

  /**
   * The model-facing schemas `{ name, description, parameters }`: of every tool in registration order, or of the
   * registered tools among `names`, in the order of `names` (unknown names are skipped).
   */
  schemas(names?: readonly string[]): ToolSchema[] {
    const defs = names === undefined
      ? this.list()
      : names.flatMap(name => {
        const def = this.tools.get(name)
        return def === undefined ? [] : [def]
      })
    return defs.map(({ name, description, parameters }) => ({ name, description, parameters }))
  }

  /**
   * Run one call to its outcome (§4): `UNKNOWN_TOOL`, `INVALID_ARGS` naming the path, the awaited
   * `tools/before-execute` hook (a rejection ⇒ the earliest-registered failing listener's code or `HOOK_FAILED`,
   * body not run), then the body (`ToolError` code, `TOOL_ERROR`, `ABORTED`, `TOOL_TIMEOUT`). Never rejects.
   */
  execute(execution: ToolExecution): Promise<ToolOutcome> {
    const tools = this.tools
    const ctx = this.ctx
    return executeTool(execution, {
      lookup: name => tools.get(name),
      beforeExecute: req => ctx.parallel('tools/before-execute', req),
    })
  }
}
