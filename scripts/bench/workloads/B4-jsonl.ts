/** B4 for the JSONL backend (see B4-common.ts). */
import { runB4 } from './B4-common.ts'

await runB4('jsonl')
