/**
 * The tool part of a step (spec 03 §5.2 item 9, scheduling, §5.5): consecutive `parallel-safe` calls form a group,
 * each `exclusive` call its own; per group all `tool/call`s are logged, bodies run (at most
 * `maxParallelToolCalls` at once, rolling) and results are logged in model order, so log order never depends on
 * timing. Cancellation and a `CHECKPOINT_FAILED` outcome stop dispatching; a cancelled body still running after
 * `toolCancelGraceMs` is recorded `TOOL_OUTCOME_UNKNOWN`.
 */

import type { CallId, MessageId, ToolCallBlock, ToolResultMessage, TurnEndReason } from '@logbook/session'
import { errorOutcome, thrownOutcome, unknownToolMessage, type ToolOutcome } from '@logbook/tools'
import { abortedReason, errorReason, type TurnState } from './reasons.ts'

/** The outcome of a call cancelled before its body was dispatched. */
function notDispatched(): ToolOutcome {
  return errorOutcome('ABORTED_BEFORE_DISPATCH', 'tool call aborted before dispatch', 'AbortedBeforeDispatch')
}

/** The outcome of a cancelled body that did not stop within the grace period. */
function unknownOutcome(): ToolOutcome {
  return errorOutcome('TOOL_OUTCOME_UNKNOWN', 'tool did not stop after cancellation; its outcome is unknown', 'ToolOutcomeUnknownError')
}

/** Split `calls` into scheduling groups: runs of parallel-safe calls, and single exclusive calls. */
function groupCalls(state: TurnState, calls: readonly ToolCallBlock[]): ToolCallBlock[][] {
  const groups: ToolCallBlock[][] = []
  let parallel = false
  for (const call of calls) {
    const safe = state.tc.runtime.tools.get(call.name)?.concurrency === 'parallel-safe'
    if (safe && parallel) groups.at(-1)!.push(call)
    else groups.push([call])
    parallel = safe
  }
  return groups
}

/** Shared by the groups of one step: why dispatching stopped. */
interface Halt {
  checkpoint?: { readonly code: string; readonly message: string }
  failure?: unknown
}

class StepTools {
  readonly halt: Halt = {}

  constructor(private readonly state: TurnState, private readonly step: number) {}

  private get halted(): boolean {
    return this.state.signal.aborted || this.halt.checkpoint !== undefined || this.halt.failure !== undefined
  }

  private logCall(call: ToolCallBlock): number {
    const { turn } = this.state
    return this.state.tc.session.append('tool/call', { turn, step: this.step, callId: call.id, name: call.name, arguments: call.arguments }).seq
  }

  private logResult(call: ToolCallBlock, callSeq: number, outcome: ToolOutcome): void {
    const { session } = this.state.tc
    const message: ToolResultMessage = {
      id: `tool-result-${session.seq}` as MessageId,
      role: 'user',
      source: { kind: 'tool', callId: call.id },
      content: [{ type: 'tool-result', toolCallId: call.id, content: outcome.content, isError: outcome.isError }],
    }
    const data = {
      turn: this.state.turn, step: this.step, message,
      ...(outcome.error === undefined ? {} : { error: { name: outcome.error.name, code: outcome.error.code } }),
      ...(outcome.meta === undefined ? {} : { meta: outcome.meta }),
    }
    session.append('tool/result', data, { surfaceOp: 'append', sourceEventSeqs: [callSeq] })
  }

  /** Run one body through `ctx.tools.execute`, bounded by the grace period once the turn is cancelled. */
  private execute(call: ToolCallBlock): Promise<ToolOutcome> {
    const { tc, turn, signal } = this.state
    const allowed = tc.options.tools
    if (allowed !== undefined && !allowed.includes(call.name)) {
      return Promise.resolve(errorOutcome('UNKNOWN_TOOL', unknownToolMessage(call.name)))
    }
    let running: Promise<ToolOutcome>
    try {
      running = tc.runtime.tools.execute({
        callId: call.id as CallId, name: call.name, arguments: call.arguments, signal, session: tc.session, turn, step: this.step,
      })
    } catch (error) {
      running = Promise.reject(error)
    }
    return new Promise<ToolOutcome>(resolve => {
      let timer: ReturnType<typeof setTimeout> | undefined
      let expired = false
      const onAbort = (): void => {
        timer = setTimeout(() => {
          expired = true
          resolve(unknownOutcome())
        }, tc.runtime.config.toolCancelGraceMs)
      }
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, { once: true })
      const settle = (outcome: ToolOutcome): void => {
        signal.removeEventListener('abort', onAbort)
        if (timer !== undefined) clearTimeout(timer)
        if (!expired) return resolve(outcome)
        tc.runtime.warn(`agent "${tc.session.id}": tool ${call.name} (call ${call.id}) finished after its outcome was recorded as unknown; result discarded`)
      }
      // The seam never throws; should a replacement `tools` service do so, the call still gets an outcome and the
      // group's workers never reject (a rejected worker would let the turn close while other bodies still run).
      running.then(settle, (error: unknown) => settle(thrownOutcome('TOOL_ERROR', error)))
    })
  }

  /** One group: log every call, run bodies with rolling concurrency, log results in model order. */
  async runGroup(calls: readonly ToolCallBlock[], limit: number): Promise<void> {
    if (this.halted) {
      for (const call of calls) this.logResult(call, this.logCall(call), notDispatched())
      return
    }
    const seqs = calls.map(call => this.logCall(call))
    this.state.tc.waitingForTools(true)
    const outcomes: (ToolOutcome | undefined)[] = calls.map(() => undefined)
    let logged = 0
    const logReady = (): void => {
      while (logged < calls.length && outcomes[logged] !== undefined) {
        this.logResult(calls[logged]!, seqs[logged]!, outcomes[logged]!)
        logged++
      }
    }
    let next = 0
    const worker = async (): Promise<void> => {
      while (next < calls.length) {
        const index = next++
        const outcome = this.halted ? notDispatched() : await this.execute(calls[index]!)
        if (outcome.error?.code === 'CHECKPOINT_FAILED') this.halt.checkpoint ??= { code: outcome.error.code, message: outcome.error.message }
        outcomes[index] = outcome
        try {
          logReady()
        } catch (error) {
          this.halt.failure ??= error
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(limit, calls.length) }, worker))
    this.state.tc.waitingForTools(false)
    if (this.halt.failure !== undefined) throw this.halt.failure
  }
}

/**
 * Run the calls of one assistant message. Resolves to the reason the turn must end with — `aborted` after a
 * cancellation, `error CHECKPOINT_FAILED` after a failed tool-body checkpoint — or `undefined` to continue.
 * @throws a failure to append a call or result (the turn then closes with an error).
 */
export async function runTools(state: TurnState, step: number, calls: readonly ToolCallBlock[]): Promise<TurnEndReason | undefined> {
  const runner = new StepTools(state, step)
  const { maxParallelToolCalls } = state.tc.runtime.config
  for (const group of groupCalls(state, calls)) {
    const parallel = group.length > 1 || state.tc.runtime.tools.get(group[0]!.name)?.concurrency === 'parallel-safe'
    await runner.runGroup(group, parallel ? maxParallelToolCalls : 1)
  }
  if (runner.halt.checkpoint !== undefined) return errorReason(runner.halt.checkpoint.code, runner.halt.checkpoint.message)
  if (state.signal.aborted) return abortedReason(state)
  return undefined
}
