/**
 * The plugin config (spec 03 §5.1, §7), defaults declared once here. `agents[]` entries name a session to create
 * (`sessionId`) or resume (`resumeSessionId`), never both.
 */

import Schema from '@deepseek-ai/schemastery'
import type { AgentLoopConfig, ConfiguredAgent } from './types.ts'

const AgentEntry = Schema.object({
  id: Schema.string().min(1).required().description('Label of the agent; the default session id is `<id>-<uuid>`.'),
  sessionId: Schema.string().min(1).description('Create this session (exclusive with resumeSessionId).'),
  resumeSessionId: Schema.string().min(1).description('Resume this stored session (exclusive with sessionId).'),
  provider: Schema.string().min(1).required().description('Model provider (an adapter registered on llm).'),
  model: Schema.string().min(1).required().description('Model name.'),
  maxTokens: Schema.natural().min(1).description('Output token limit per request.'),
  system: Schema.string().min(1).description('System prompt (surface node 0).'),
  // Every schemastery array defaults to []; `tools` must stay absent when left out, since absent means every tool.
  tools: Schema.array(Schema.string().min(1)).default(undefined as unknown as string[])
    .description('Allowed tool names; absent means every registered tool.'),
  prompts: Schema.array(Schema.string()).description('Prompts queued by startConfigured(), one turn each.'),
})

const RuntimeContext = Schema.object({
  enabled: Schema.boolean().default(false).description('Inject the runtime-context message before model requests.'),
  instructionFiles: Schema.array(Schema.string().min(1)).default(['AGENTS.md'])
    .description('Instruction files of the instructions section, relative to the agent\'s working directory.'),
  sections: Schema.dict(Schema.boolean()).default({}).description('Section name → false turns that section off (default on).'),
}).default({ enabled: false, instructionFiles: ['AGENTS.md'], sections: {} })

/** The config schema; invalid config fails the plugin with Cordis's `ValidationError`. */
export const AgentLoopConfigSchema: Schema<Partial<AgentLoopConfig>, AgentLoopConfig> = Schema.transform(
  Schema.object({
    maxSteps: Schema.natural().min(1).default(25).description('Steps per turn before it ends `max-steps`.'),
    maxParallelToolCalls: Schema.natural().min(1).default(4).description('Bodies of one parallel-safe group running at once.'),
    maxRequestRetries: Schema.natural().default(3).description('Retries of a failed request per step that agent/request-error may ask for.'),
    toolCancelGraceMs: Schema.natural().default(5000).description('How long a cancelled tool body may run on before its outcome is recorded as unknown (ms).'),
    runtimeContext: RuntimeContext.description('The runtime-context message (instructions, cwd, date, plugin sections).'),
    watchBufferEvents: Schema.natural().min(1).default(10_000)
      .description('Events one ctx.agents.watch() iterator may hold unread before it fails WATCH_OVERFLOW.'),
    agents: Schema.array(AgentEntry).default([]).description('Agents startConfigured() creates or resumes, in order.'),
  }),
  (input) => {
    const value = input as unknown as AgentLoopConfig
    value.agents.forEach((entry: ConfiguredAgent, index: number) => {
      if (entry.sessionId !== undefined && entry.resumeSessionId !== undefined) {
        throw new Schema.ValidationError('sessionId and resumeSessionId are exclusive', { path: ['agents', index] })
      }
    })
    return value
  },
  true,
  // A default on the transform itself: schemastery hands a nullable input through a transform without one.
).default({}) as unknown as Schema<Partial<AgentLoopConfig>, AgentLoopConfig>
