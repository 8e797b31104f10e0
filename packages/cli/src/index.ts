/**
 * `@logbook/cli` — the `logbook` command (spec 03 §6, §7): `main(argv)` runs a command line; the embedded default
 * app, the `cordis.yml` boot, the verifier and the renderers are exported for embedding and tests.
 */

export { main, version, type MainOptions } from './main.ts'
export { parseCommandLine, COMMANDS, type CommandName, type GlobalOptions, type ParsedArgs } from './args.ts'
export { CliError, CLI_ERROR_CODES, EXIT, exitCodeOf, type CliErrorCode } from './errors.ts'
export { Output, Progress, PROGRESS_INTERVAL_MS, type CliStreams, type OutputFlags, type TextSink, type TextSource } from './io.ts'
export type { App } from './app/app.ts'
export { openEmbeddedApp, DEMO_MODEL, DEMO_PROVIDER, type EmbeddedStore } from './app/embedded.ts'
export { bootConfigApp } from './app/boot.ts'
export { activeConditions, exportTarget, importPlugin, resolveFrom } from './app/resolve.ts'
export { installLogExporter, type StderrLogExporter } from './log-exporter.ts'
export { verifySession, statusOf, exitCodeOfStatus } from './verify/verify.ts'
export { checkRelations, type RelationResult } from './verify/relations.ts'
export { checkBrackets } from './verify/brackets.ts'
export type { CheckName, Finding, Severity, VerifyReport, VerifyStatus } from './verify/types.ts'
export { TranscriptRenderer, describeReason, marker, messageLines } from './render/transcript.ts'
export { surfaceLines } from './render/surface.ts'
export { eventSummary, logLine } from './render/log.ts'
export { openAiMessages, EXPORT_FORMAT_VERSION, type ExportFormat } from './commands/export.ts'
export { DEMO_PROMPTS, DEMO_SCRIPT, DEMO_SUMMARY, DEMO_SYSTEM } from './demo/script.ts'
export * as DemoTools from './demo/tools.ts'
