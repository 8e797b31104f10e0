/**
 * What `logbook chat` prints of its session (spec 03 §6.2): the events `ctx.agents.watch` yields, rendered as `run`
 * renders them (text and dimmed reasoning streamed, tool calls and results as lines, turn ends as markers). The
 * chat waits on `caughtUp(seq)` before it prompts again, so a reply is fully printed first; nothing polls.
 */

import type { AgentHandle, AgentsService } from '@logbook/agent-loop'
import type { Output } from '../io.ts'
import { LiveTranscript } from '../render/live.ts'

/** Renders one agent's session at a time. */
export class ChatView {
  private readonly live: LiveTranscript
  private renderedSeq = -1
  private waiters: { seq: number; resolve(): void }[] = []
  private stopCurrent: (() => void) | undefined

  constructor(output: Output, interactive: boolean) {
    // A terminal already shows what the user typed at the prompt; a pipe's transcript needs the `you>` lines.
    this.live = new LiveTranscript(output, { skipUserMessages: interactive })
  }

  /** Render `agent`'s session from its next event on (stops following the previous one). */
  follow(agents: AgentsService, agent: AgentHandle): void {
    this.stopCurrent?.()
    this.renderedSeq = agent.session.seq - 1
    const controller = new AbortController()
    const stop = (): void => controller.abort()
    this.stopCurrent = stop
    const iterator = agents.watch(agent.id, { signal: controller.signal })
    // Waiters of a later follow are not this iteration's to release.
    const ended = (): void => {
      if (this.stopCurrent === stop) this.wake(true)
    }
    void (async () => {
      for await (const event of iterator) {
        this.live.event(agent.session, event)
        this.renderedSeq = event.seq
        this.wake()
      }
    })().then(ended, ended)
  }

  /** Resolves once the event at `seq` has been printed (or the session stopped being followed). */
  caughtUp(seq: number): Promise<void> {
    if (this.renderedSeq >= seq) return Promise.resolve()
    return new Promise(resolve => this.waiters.push({ seq, resolve }))
  }

  /** Stop following. */
  stop(): void {
    this.stopCurrent?.()
    this.stopCurrent = undefined
    this.wake(true)
  }

  private wake(all = false): void {
    const ready = this.waiters.filter(waiter => all || waiter.seq <= this.renderedSeq)
    this.waiters = this.waiters.filter(waiter => !ready.includes(waiter))
    for (const waiter of ready) waiter.resolve()
  }
}
