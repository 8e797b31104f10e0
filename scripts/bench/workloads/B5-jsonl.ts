/** B5 for the JSONL backend (see B4-common.ts). */
import { runB5 } from './B4-common.ts'

await runB5('jsonl')
