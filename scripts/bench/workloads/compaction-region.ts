/**
 * One compaction region as B8 and B10-steps time it: the span of `session` summarised through `@logbook/llm`'s
 * scripted model, with the time spent inside the summariser (the model request) measured around each call so the
 * workloads can leave it out.
 */

import type { Context } from '@deepseek-ai/cordis'
import BasicCompaction, { createSummarizer } from '@logbook/compaction-basic'
import type { Session } from '@logbook/session'

type Span = NonNullable<ReturnType<BasicCompaction['selectSpan']>>

/** What `timedRegion` measured: the region's result, its total ms and the ms spent inside the summariser. */
export interface TimedRegion {
  readonly result: Awaited<ReturnType<BasicCompaction['runRegion']>>
  readonly totalMs: number
  readonly summariserMs: number
}

/** Run the compaction region `span` of `session` (owner `turn`, trigger `explicit`) and time it. */
export async function timedRegion(app: Context, session: Session, span: Span): Promise<TimedRegion> {
  const compaction = app.compaction as BasicCompaction
  const summarize = createSummarizer({ llm: app.llm, target: { provider: 'scripted', model: 'summarizer' }, maxTokens: 8192, sessionId: session.id })
  let summariserMs = 0
  const start = performance.now()
  const result = await compaction.runRegion({
    session, span, owner: 'turn', trigger: 'explicit',
    summarize: async (input) => {
      const t0 = performance.now()
      try {
        return await summarize(input)
      } finally {
        summariserMs += performance.now() - t0
      }
    },
  })
  return { result, totalMs: performance.now() - start, summariserMs }
}
