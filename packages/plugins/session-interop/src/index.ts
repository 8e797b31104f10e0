/**
 * `@logbook/session-interop` — sessions in and out of other tools' formats, as pure functions: `importClaudeCode`,
 * `importCodex` and `importPi` turn a transcript into Logbook sessions ready to store (with a report of what was
 * skipped); `exportAnthropicMessages` and `exportOtelGenAi` turn a stored log into an Anthropic Messages request
 * body and into OpenTelemetry GenAI spans (OTLP/JSON). No plugin: nothing here needs a service.
 */

export { importClaudeCode } from './claude-code.ts'
export { importCodex } from './codex.ts'
export { importPi } from './pi.ts'
export { exportAnthropicMessages } from './export-anthropic.ts'
export { DEFAULT_MAX_INPUT_MESSAGES, exportOtelGenAi, GENAI_SEMCONV_VERSION, type OtelExportOptions } from './export-otel.ts'
export { importKey, planStore, storedImports, storePlan, type StoreAction, type StoredImports, type StorePlanEntry } from './store.ts'
export { INTEROP_ERROR_CODES, InteropError, isInteropError, type InteropErrorCode } from './errors.ts'
export { missingResultText } from './builder.ts'
export { IMPORTED_SUMMARY_VERSION } from './compaction.ts'
export type * from './types.ts'
