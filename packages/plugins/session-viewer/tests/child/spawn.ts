/** Runs `child/append.ts` in a separate Node process and waits for it to exit. */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { SessionEvent } from '@logbook/session'

const childPath = fileURLToPath(new URL('./append.ts', import.meta.url))
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

/** Appends `events` to session `id` of the JSONL store at `root` from another process. */
export function appendFromAnotherProcess(root: string, id: string, events: readonly SessionEvent[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'logbook-append-'))
  const file = join(dir, 'events.json')
  writeFileSync(file, JSON.stringify(events))
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--conditions=source', '--import', tsx, childPath, root, id, file], (error, _stdout, stderr) => {
      rmSync(dir, { recursive: true, force: true })
      if (error !== null) reject(new Error(`append child failed: ${stderr || error.message}`))
      else resolve()
    })
  })
}
