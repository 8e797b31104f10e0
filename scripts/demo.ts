/**
 * `pnpm demo` for the session core: create a session, append a turn whose model calls a tool, fork the session
 * inside the open turn (right after the tool call was logged as started) and print what each session's model would
 * be sent. Everything runs in memory; nothing is written to disk.
 */
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { CallId, MessageId, type Message, type Session } from '@logbook/session'

const app = new Context()
await app.plugin(SessionStore)
const sessions = app.sessions

const parent = sessions.create('demo-parent')
const model = { kind: 'model', provider: 'scripted', model: 'demo' } as const
const call = CallId('call-1')

parent.append('system/message', {
  id: MessageId('system-0'), role: 'system', source: { kind: 'system' },
  content: [{ type: 'text', text: 'You are a careful release assistant.' }],
}, { surfaceOp: 'append' })
parent.append('turn/start', { turn: 1 })
parent.append('user/message', {
  id: MessageId('user-2'), role: 'user', source: { kind: 'user' },
  content: [{ type: 'text', text: 'What changed since the last release?' }],
}, { surfaceOp: 'append' })
parent.append('step/start', { turn: 1, step: 1 })
const answer = parent.append('assistant/message', {
  turn: 1, step: 1, message: {
    id: MessageId('assistant-4'), role: 'assistant', source: model,
    content: [
      { type: 'text', text: 'Let me read the changelog.' },
      { type: 'tool-call', id: call, name: 'read_file', arguments: '{"path":"CHANGELOG.md"}' },
    ],
  },
}, { surfaceOp: 'append', sourceEventSeqs: [] })
const started = parent.append('tool/call', { turn: 1, step: 1, callId: call, name: 'read_file', arguments: '{"path":"CHANGELOG.md"}' })

// Fork while the tool body is still running: the child inherits the open turn and closes it with `forked` closers.
const child = sessions.fork(parent, started.seq, 'demo-child')

parent.append('tool/result', {
  turn: 1, step: 1, message: {
    id: MessageId('tool-result-6'), role: 'user', source: { kind: 'tool', callId: call },
    content: [{ type: 'tool-result', toolCallId: call, content: [{ type: 'text', text: '- faster resume\n- fork inside a turn' }] }],
  },
}, { surfaceOp: 'append', sourceEventSeqs: [started.seq] })
parent.append('step/end', { turn: 1, step: 1 })
parent.append('turn/end', { turn: 1, reason: { kind: 'completed' } })

print(parent, `parent (assistant message at seq ${answer.seq}, tool call logged at seq ${started.seq})`)
print(child, `child forked at seq ${started.seq}`)

function print(session: Session, title: string): void {
  console.log(`\n== ${session.id}: ${title}`)
  console.log(`   ${session.seq} events, surface nodes [${session.surface.nodes.join(', ')}]`)
  if (session.inheritedEventCount > 0) {
    console.log(`   inherited ${session.inheritedEventCount} events, then wrote:`)
    for (const event of session.events.slice(session.inheritedEventCount)) {
      console.log(`   seq ${event.seq} ${event.type} ${JSON.stringify(event.data).slice(0, 90)}`)
    }
  }
  console.log('   derived messages:')
  for (const message of session.deriveMessages()) console.log(`   ${render(message)}`)
}

function render(message: Message): string {
  const parts = message.content.map((block) => {
    switch (block.type) {
      case 'text': return block.text.replaceAll('\n', ' | ')
      case 'reasoning': return `(thinking) ${block.text}`
      case 'image': return `[image ${block.image.uri}]`
      case 'tool-call': return `${block.name}(${block.arguments})`
      case 'tool-result': return `result ${block.toolCallId}${block.isError ? ' (error)' : ''}: ${block.content.map((c) => c.type === 'text' ? c.text : '[image]').join(' ').replaceAll('\n', ' | ')}`
    }
  })
  const role = message.source.kind === 'tool' ? 'tool' : message.role
  return `${role.padEnd(9)} ${parts.join(' ')}`
}
