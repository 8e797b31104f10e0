/**
 * `@logbook/cli` — the `logbook` command (spec 03 §6, §7). An embedding app runs a command line with `main(argv)`
 * and reads the exit code it resolves to against `EXIT`; everything else (the commands, the apps they boot, the
 * verifier, the renderers, the demo) is the command's own implementation and stays private to the package.
 */

export { main, version, type MainOptions } from './main.ts'
export { EXIT } from './errors.ts'
export type { CliStreams, TextSink, TextSource } from './io.ts'
