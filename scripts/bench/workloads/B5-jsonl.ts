/** B5 for the JSONL backend (see b4.ts). */
import { runB5 } from './b4.ts'

await runB5('jsonl')
