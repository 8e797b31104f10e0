/** B9 (page) for the JSONL backend (see b9.ts). */
import { runB9 } from './b9.ts'

runB9('jsonl', 'page')
