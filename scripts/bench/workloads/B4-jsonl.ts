/** B4 for the JSONL backend (see b4.ts). */
import { runB4 } from './b4.ts'

await runB4('jsonl')
