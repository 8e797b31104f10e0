/**
 * The demo tools (spec 03 §6.2), registered on `ctx.tools` by the embedded app: `list_notes`, `read_note`
 * (parallel-safe), `todo_write` (its body appends `todo/write`) and `deploy`, which waits until it is aborted —
 * the demo kills its process while `deploy` runs.
 */

import type { Context } from '@deepseek-ai/cordis'
import type { TodoItem } from '@logbook/session'
import { ToolError } from '@logbook/tools'
import { DEMO_NOTES } from './notes.ts'

/** Plugin name. */
export const name = 'logbook-demo-tools'
/** The tools register on `ctx.tools`. */
export const inject = ['tools']

/** Register the four demo tools for as long as the plugin is loaded. */
export function apply(ctx: Context): void {
  ctx.tools.register({
    name: 'list_notes',
    description: 'List the names of the notes in the notebook.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    concurrency: 'parallel-safe',
    execute: () => Object.keys(DEMO_NOTES).join('\n'),
  })
  ctx.tools.register<{ name: string }>({
    name: 'read_note',
    description: 'Read one note by name.',
    parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
    concurrency: 'parallel-safe',
    execute: ({ name: note }) => {
      const text = DEMO_NOTES[note]
      if (text === undefined) throw new ToolError(`no note named "${note}"`, 'NOTE_NOT_FOUND')
      return text
    },
  })
  ctx.tools.register<{ todos: TodoItem[] }>({
    name: 'todo_write',
    description: 'Replace the todo list of this session.',
    parameters: {
      type: 'object',
      properties: {
        todos: {
          type: 'array',
          items: {
            type: 'object',
            properties: { content: { type: 'string' }, status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] } },
            required: ['content', 'status'],
            additionalProperties: false,
          },
        },
      },
      required: ['todos'],
      additionalProperties: false,
    },
    execute: ({ todos }, { session }) => {
      session.append('todo/write', { todos: todos.map(todo => ({ content: todo.content, status: todo.status })) })
      return `Saved ${todos.length} todos.`
    },
  })
  ctx.tools.register<{ env: string }>({
    name: 'deploy',
    description: 'Deploy the current release to an environment. Slow; runs until it is done or cancelled.',
    parameters: { type: 'object', properties: { env: { type: 'string' } }, required: ['env'], additionalProperties: false },
    execute: (_args, { signal }) => new Promise<string>((_resolve, reject) => {
      if (signal.aborted) return reject(signal.reason)
      // The deploy "runs": a live timer keeps the process up until the call is cancelled (or the process killed).
      const running = setInterval(() => {}, 60_000)
      signal.addEventListener('abort', () => {
        clearInterval(running)
        reject(signal.reason)
      }, { once: true })
    }),
  })
}
