/** The built-in `todos` unit (03 §1.5): the list carried by the last `todo/write`; turns do not reset it. */
import Schema from '@deepseek-ai/schemastery'
import type { TodoItem } from '@logbook/session'
import type { ProjectionDefinition, TodosState } from './types.ts'

/** The schema of a stored `todos` state. */
export const TodosStateSchema: Schema<TodosState> = Schema.object({
  todos: Schema.array(Schema.object({
    content: Schema.string().required(),
    status: Schema.union(['pending', 'in_progress', 'completed'] as const).required(),
  })),
}) as unknown as Schema<TodosState>

/** The built-in `todos` unit (`stateVersion` 1); its view is the list, or null before any `todo/write`. */
export const todosProjection: ProjectionDefinition<TodosState, readonly TodoItem[] | null, 'todos'> = {
  key: 'todos',
  stateVersion: 1,
  stateSchema: TodosStateSchema,
  init: () => ({ todos: null }),
  // Whole-value event (03 §1.3 rule 7): each write carries the complete list, so the last one wins.
  apply: (s, event) => event.type === 'todo/write' ? { todos: event.data.todos } : s,
  view: s => s.todos,
}
