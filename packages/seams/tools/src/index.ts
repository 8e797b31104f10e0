/**
 * `@logbook/tools` — the tool registry and execution seam (spec 03 §4): `ctx.tools`, the JSON-schema subset checked
 * on arguments, the awaited fail-closed `tools/before-execute` hook, and outcomes that never throw.
 */

import { ToolsService } from './service.ts'
import type { ToolExecution } from './types.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    tools: ToolsService
  }
  interface Events {
    /**
     * Awaited (parallel) after argument checks and before a body runs. A rejection fails the execution closed:
     * the outcome carries the earliest-registered failing listener's code, else `HOOK_FAILED`, and the body is
     * not run.
     */
    'tools/before-execute'(execution: ToolExecution): void | Promise<void>
  }
}

/** The plugin: the `Service` registered as `ctx.tools`. */
export default ToolsService

export { ToolsService }
export { errorOutcome, thrownOutcome, unknownToolMessage } from './outcome.ts'
export { ToolError, ToolRegistryError, type ToolOutcomeCode, type ToolRegistryErrorCode } from './errors.ts'
export type {
  ToolArguments,
  ToolConcurrency,
  ToolContent,
  ToolContext,
  ToolDefinition,
  ToolExecution,
  ToolOutcome,
  ToolOutcomeError,
  ToolReturn,
  ToolSchema,
} from './types.ts'
