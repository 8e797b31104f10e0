/**
 * The bundled scripted-model script of the embedded app (spec 03 §6.1, §6.2): every reply of the demo tour,
 * matched by the prompt text or by the tool whose result came last, so that a reply never depends on how many
 * requests a process has made. The compaction reply repeats, so `logbook compact` works on any session.
 */

import type { ScriptEntry } from '@logbook/llm-scripted'

/** The prompts of the demo tour; each contains the text its scripted reply matches. */
export const DEMO_PROMPTS = Object.freeze({
  plan: 'Plan the release from my notes.',
  deploy: 'Deploy it to staging.',
  explain: 'What happened to the deploy?',
  status: 'Where do we stand?',
  notes: 'Skip the deploy and draft the release notes instead.',
})

/** The system prompt of the demo session. */
export const DEMO_SYSTEM = 'You are a release assistant. Keep answers short and use the tools to read notes.'

/** The summary the scripted model writes for every compaction request. */
export const DEMO_SUMMARY = [
  'Goal and requests: plan release 1.4 from the notes; deploy it to staging.',
  'Decisions and constraints: code freeze Thursday; production needs a second approver.',
  'Files, commands and identifiers: release.md, deploy.md, `make deploy ENV=staging`, /health.',
  'Errors and fixes: the staging deploy was interrupted (TOOL_OUTCOME_UNKNOWN).',
  'Work done: todos written.',
  'Open items and next step: check /health on staging before any retry.',
].join('\n')

/** The script, in matching order: compaction first, then replies after a tool, then replies to a prompt. */
export const DEMO_SCRIPT: readonly ScriptEntry[] = Object.freeze([
  { match: { purpose: 'compaction' }, text: DEMO_SUMMARY, repeat: true },
  {
    match: { afterTool: 'list_notes' },
    text: 'Reading the release and deploy notes.',
    toolCalls: [{ name: 'read_note', arguments: { name: 'release.md' } }, { name: 'read_note', arguments: { name: 'deploy.md' } }],
    repeat: true,
  },
  {
    match: { afterTool: 'read_note' },
    text: 'Writing the plan down as todos.',
    toolCalls: [{
      name: 'todo_write',
      arguments: {
        todos: [
          { content: 'Code freeze on Thursday', status: 'pending' },
          { content: 'Deploy to staging and smoke-test /health', status: 'pending' },
          { content: 'Get a second approver for production', status: 'pending' },
        ],
      },
    }],
    repeat: true,
  },
  {
    match: { afterTool: 'todo_write' },
    text: 'Plan: freeze on Thursday, deploy to staging with `make deploy ENV=staging`, smoke-test /health, then get a second approver for production. The steps are in your todo list.',
    repeat: true,
  },
  {
    match: { lastUserIncludes: 'Plan the release' },
    text: 'Let me look at your notes first.',
    toolCalls: [{ name: 'list_notes', arguments: {} }],
    repeat: true,
  },
  {
    match: { lastUserIncludes: 'Deploy it to staging' },
    text: 'Deploying to staging now.',
    toolCalls: [{ name: 'deploy', arguments: { env: 'staging' } }],
    repeat: true,
  },
  {
    match: { lastUserIncludes: 'What happened to the deploy' },
    text: 'The session stopped while `deploy` was running, so its outcome is unknown. Before retrying, smoke-test /health on staging to see whether the release went out.',
    repeat: true,
  },
  {
    match: { lastUserIncludes: 'Where do we stand' },
    text: 'The plan is in place (freeze Thursday). The staging deploy may or may not have happened: check /health on staging first, then deploy again if needed.',
    repeat: true,
  },
  {
    match: { lastUserIncludes: 'draft the release notes' },
    text: 'Release 1.4 — Logbook now resumes cleanly after a crash and can fork a session inside an open turn.',
    repeat: true,
  },
  { text: 'This is the scripted demo model; it only knows the demo tour.', repeat: true },
])
