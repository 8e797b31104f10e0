/**
 * Help texts: the overview (`logbook --help`, and on stderr when no command is given) and one per command.
 */

import type { CommandName } from './args.ts'

const GLOBAL = `Global options:
  --dir <path>      JSONL store of the embedded app (default $LOGBOOK_DIR or ./.logbook; ignored with --config)
  --config <file>   boot this cordis.yml instead of the embedded app
  --json            machine-readable output (list, show, verify, repair, migrate, fork, compact, import, search)
  --progress        progress lines on stderr even when it is not a terminal
  --quiet           print only results and errors
  --no-color        no colours (also NO_COLOR)
  -h, --help        this help
  --version         the version`

/** The overview. */
export const OVERVIEW = `Usage: logbook <command> [options]

Commands:
  demo                                   a guided tour: crash, resume, compaction, fork (offline)
  run --config <cordis.yml>              boot an app, run its configured agents, stream the conversation
  chat [--resume <id> | --fork <id>[@<seq>]]  talk to an agent in the terminal (or read lines from a pipe)
  list [--limit 20] [--cursor <c>]       stored sessions, latest update first
  show <id> [--surface|--log|--json|--projections] [--at <seq>]
                                         transcript, next request, events, raw events, projections
  fork <id> [--at <seq>] [--as <child>]  fork a stored session; the parent is untouched
  compact <id>                           resume a session and compact its history
  verify <id|path>                       check a stored session (or a session file or SQLite database)
  repair <id> [--cut-at <seq>] [--yes]   show what a cut at the first defect removes; cut it with --yes
  migrate <id>…|--all                    rewrite sessions of the older store format with checksums
  export <id> --format jsonl|openai-messages|anthropic-messages|otel-genai|markdown|html [--out <file>]
         [--redact <regex>]… [--no-redact]
  import [--from logbook|claude-code|codex|pi] <file|folder> [--as <id>] [--dry-run] [--force]
                                         store an export, or another tool's transcripts, as sessions
  transfer --to <cordis.yml> <id>…|--all copy sessions to the backend another cordis.yml configures
  search <query> [--session <id>] [--limit <n>] [--fts] [--reindex]
                                         full-text search over every stored session, compacted history included
  delete <id> [--yes]                    delete a stored session (asks first on a terminal)
  view [--port <n>]                      browse the stored sessions in a browser (127.0.0.1, read-only)

${GLOBAL}

Exit codes: 0 ok, 1 failure, 2 usage, 3 not found, 4 conflict, 5 repairable (verify, repair without --yes), 6 corrupt (verify), 130 interrupted.`

const COMMAND_HELP: Readonly<Record<CommandName, string>> = {
  'demo': `Usage: logbook demo

A guided tour on the default store: creates demo-<n>, runs a turn with tools, lets a child process resume it
and kills that process in the middle of a tool call, resumes after the crash, compacts, forks, and verifies.
Offline (a scripted model); deletes nothing.`,
  'run': `Usage: logbook run --config <cordis.yml> [--keep-alive]

Boot the app, create or resume its configured agents (agent-loop config "agents"), stream their turns, and exit
0 when every turn completed, else 1. --keep-alive waits for Ctrl-C after the agents are idle.`,
  'chat': `Usage: logbook chat [--config <cordis.yml>] [--resume <id> | --fork <id>[@<seq>]]

Talk to an agent: a new session (the model of the config's first agents[] entry, else the embedded scripted
model), a resumed one, or a fork of a stored one after event <seq>. A line ending in \\ continues on the next
line; a paste keeps its newlines. Replies stream as they arrive. Ctrl+C cancels the running turn; at an empty
prompt it exits. Commands: /sessions, /fork [<seq>], /compact, /context, /projections, /help, /exit. On exit the
command that resumes the session is printed. With stdin not a terminal, lines are read until end of input.`,
  'list': `Usage: logbook list [--limit 20] [--cursor <c>] [--json]

A page of stored sessions, latest update first: id, created, events, turns, title, parent. When more exist, the
command for the next page is printed on stderr. --json prints { items, nextCursor }.`,
  'show': `Usage: logbook show <id> [--surface | --log | --json | --projections [--json]] [--at <seq>]

Read-only. Default: the transcript (every message ever shown, with compactions and resumes as marker lines).
--surface: what the model sees next. --log: one line per event. --json: the raw events, one per line.
--projections: the view of every registered projection (built-in and from plugins); with --json as one object.
--at <seq>: start the transcript, --log or --json at that event (not with --surface or --projections).`,
  'fork': `Usage: logbook fork <id> [--at <seq>] [--as <child>] [--json]

Fork a stored session after event <seq> (default: its last event) into <child> (default <id>-fork-<n>). The
parent's bytes stay untouched; an open turn at the cut is closed in the child. Prints the child id.`,
  'compact': `Usage: logbook compact <id> [--json]

Resume the session, compact its history into a summary, and release it. Prints what was compacted, or
"nothing to compact".`,
  'verify': `Usage: logbook verify <id|path> [--json]

Read-only checks (no repair, no lock, safe beside a writer): format, checksums, torn tail, corruption, events, surface,
turn/step/tool relations, tool pairing, compaction brackets, projection checkpoint. A path verifies a
session.jsonl file, or every session of a SQLite database. Exit 0 ok, 5 repairable, 6 corrupt or unsupported.`,
  'repair': `Usage: logbook repair <id> [--cut-at <seq>] [--yes] [--json]

Takes write ownership (like a resume), finds the first defect and prints every record a cut there removes, with
the events they hold. Nothing is written without --yes; with it a backup is kept first (JSONL: a copy of the
file; SQLite: VACUUM INTO a file beside the database), then the records are cut. --cut-at cuts at an earlier record
boundary. Exit 0 clean or cut, 5 when records would be cut but --yes was not given.`,
  'migrate': `Usage: logbook migrate (<id>… | --all) [--json]

Takes write ownership and rewrites a session of the older store format (no checksums) with a checksum on every
record: the new file is written beside the old one and swapped in atomically; the original is kept until you
delete it. A SQLite database migrates whole. A session already current is left alone; a damaged one is refused
(see logbook repair). Prints "<id>  migrated|current" per session.`,
  'export': `Usage: logbook export <id> --format jsonl|openai-messages|anthropic-messages|otel-genai|markdown|html [--out <file>] [--redact <regex>]… [--no-redact]

jsonl: an export header line, then every event, one per line (what import reads).
openai-messages: { model, messages, tools? } in the chat-completions format, from what the model sees.
anthropic-messages: { model, system?, messages, tools? } as an Anthropic Messages request, from what the model sees.
otel-genai: the session as OpenTelemetry GenAI spans (semantic conventions 1.41.0) in OTLP/JSON.
markdown: the transcript by turn, as the viewer shows it. html: the viewer's session page as one file that opens
from disk with no network.
Every format replaces common secrets (API keys such as sk-…, AKIA…, ghp_…, bearer tokens, JSON web tokens, PEM
private keys) and each match of every --redact pattern with [redacted]; a redacted jsonl export says so in its
first line. --no-redact exports the session as stored.`,
  'view': `Usage: logbook view [--port <n>] [--config <cordis.yml>]

Serve the session viewer on 127.0.0.1 (port 0, the default, picks a free one) and print its address. The address
carries a one-time token: the first browser to open it gets a cookie, and the address then stops working (restart
for a new one). The list with search, each session by turn (the log, or what the model sees), compactions, forks,
usage, and live updates of sessions being written. Read-only: nothing is written to the store. Ctrl-C stops.`,
  'import': `Usage: logbook import [--from logbook|claude-code|codex|pi] <file|folder> [--as <id>] [--dry-run] [--force] [--json]

--from logbook (the default): check an exported jsonl file event by event and store it as a new session (under
<id> when given).
--from claude-code|codex|pi: convert a transcript of that tool, or every .jsonl file below a folder, into sessions
(branches as forks, subagents as child sessions) and print what was imported and what was skipped. A session
imported before (same source id and leaf) is skipped; --force replaces it. --dry-run writes nothing.`,
  'transfer': `Usage: logbook transfer --to <cordis.yml> (<id>… | --all)

Copy stored sessions from the current backend (--config, else the embedded JSONL store) to the backend the other
cordis.yml configures (JSONL, SQLite or PostgreSQL, any direction): same id, header and events, and the projection
checkpoint. Each copy is read back and compared. A session already there with the same content is skipped; one with
other content is refused and left as it is. Prints "<id>  copied|skipped (<n> events)" per session; exit 1 when any
session was not transferred.`,
  '__demo-child': 'Usage: logbook __demo-child <id> (internal: the process the demo kills)',
  'search': `Usage: logbook search <query> [--session <id>] [--limit <n>] [--fts] [--json]
       logbook search --reindex [<query> …]

Ranked hits over every stored session's text — what the model sees and what compaction or pruning took off the
surface — each with session, title, turn, seq, event type, on surface or log only, and the match marked. Words must
all occur ("quoted phrases" too); Chinese and Japanese text is matched as written. --fts passes the query to SQLite
FTS5 (compact* NOT error, NEAR(a b)). The index is brought up to date first (progress on stderr); --reindex rebuilds
it from the store. The output ends with how to open or fork the session at the first hit.`,
  'delete': `Usage: logbook delete <id> [--yes]

Delete a stored session: its log, projection checkpoint and lock. On a terminal it asks first; elsewhere --yes is
required. Fork children keep their own copies. A deleted session never shows in list, show or search.`,
}

/** The help of one command, followed by the global options. */
export function commandHelp(command: CommandName): string {
  return `${COMMAND_HELP[command]}\n\n${GLOBAL}`
}
