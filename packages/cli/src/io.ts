/**
 * Where the CLI writes (spec 03 §6.1): results to stdout; diagnostics, progress and log records to stderr;
 * `--quiet` leaves only errors; colour only on a TTY without `--no-color` / `NO_COLOR`.
 */

/** A writable text stream (process.stdout / process.stderr or a test double). */
export interface TextSink {
  write(text: string): unknown
  readonly isTTY?: boolean
}

/** A readable text source (process.stdin or a test double); `isTTY` decides whether a command may ask. */
export interface TextSource extends NodeJS.ReadableStream {
  readonly isTTY?: boolean
}

/** The process surroundings a command runs in. */
export interface CliStreams {
  readonly stdout: TextSink
  readonly stderr: TextSink
  readonly env: NodeJS.ProcessEnv
  /** Where answers to questions come from (`delete` without `--yes`); absent: nothing can be asked. */
  readonly stdin?: TextSource
}

/** Output switches from the global options. */
export interface OutputFlags {
  readonly quiet: boolean
  readonly progress: boolean
  readonly noColor: boolean
}

/** Minimum interval between two progress lines (03 §6.1). */
export const PROGRESS_INTERVAL_MS = 250

/** The CLI's writer: stdout for results, stderr for everything else. */
export class Output {
  readonly color: boolean
  readonly quiet: boolean
  readonly debug: boolean
  private readonly forceProgress: boolean

  constructor(readonly streams: CliStreams, flags: OutputFlags) {
    const noColor = flags.noColor || (streams.env.NO_COLOR !== undefined && streams.env.NO_COLOR !== '')
    this.color = !noColor && streams.stdout.isTTY === true
    this.quiet = flags.quiet
    this.debug = streams.env.LOGBOOK_DEBUG === '1'
    this.forceProgress = flags.progress
  }

  /** One result line on stdout. */
  line(text = ''): void {
    this.streams.stdout.write(`${text}\n`)
  }

  /** Raw text on stdout (streamed model output). */
  write(text: string): void {
    this.streams.stdout.write(text)
  }

  /** A diagnostic line on stderr (`logbook: ` prefixed); suppressed by `--quiet`. */
  diag(text: string): void {
    if (!this.quiet) this.streams.stderr.write(`logbook: ${text}\n`)
  }

  /** A raw line on stderr without the `logbook: ` prefix; suppressed by `--quiet`. */
  note(text: string): void {
    if (!this.quiet) this.streams.stderr.write(`${text}\n`)
  }

  /** An error line on stderr; never suppressed. */
  error(text: string): void {
    this.streams.stderr.write(`logbook: ${text}\n`)
  }

  /** Dimmed text when colour is on. */
  dim(text: string): string {
    return this.color ? `\u001b[2m${text}\u001b[0m` : text
  }

  /** Bold text when colour is on. */
  bold(text: string): string {
    return this.color ? `\u001b[1m${text}\u001b[0m` : text
  }

  /**
   * A progress reporter for `<op> <id>` over `total` units; silent unless `total` exceeds `threshold` and stderr
   * is a TTY or `--progress` was given, and always silent under `--quiet`.
   */
  progress(op: string, id: string, total: number, threshold: number, now: () => number = Date.now): Progress {
    const tty = this.streams.stderr.isTTY === true
    const enabled = !this.quiet && total > threshold && (tty || this.forceProgress)
    return new Progress(enabled ? this.streams.stderr : undefined, `logbook: ${op} ${id}: `, total, tty, now)
  }
}

/** Progress lines `logbook: <op> <id>: <done>/<total>` at the start, at most every 250 ms, and at the end. */
export class Progress {
  private last = Number.NEGATIVE_INFINITY
  private finished = false

  constructor(
    private readonly sink: TextSink | undefined,
    private readonly prefix: string,
    private readonly total: number,
    private readonly inPlace: boolean,
    private readonly now: () => number,
  ) {
    this.print(0)
  }

  /** Record `done` units; prints when 250 ms passed since the last line. */
  tick(done: number): void {
    if (this.sink === undefined || this.finished) return
    if (this.now() - this.last >= PROGRESS_INTERVAL_MS) this.print(done)
  }

  /** The final line (`total/total`); idempotent. */
  end(): void {
    if (this.finished) return
    this.finished = true
    this.print(this.total)
    if (this.sink !== undefined && this.inPlace) this.sink.write('\n')
  }

  private print(done: number): void {
    if (this.sink === undefined) return
    this.last = this.now()
    const text = `${this.prefix}${done}/${this.total}`
    this.sink.write(this.inPlace ? `\r${text}` : `${text}\n`)
  }
}
