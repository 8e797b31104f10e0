/** B9 (walk) for the JSONL backend (see b9.ts). */
import { runB9 } from './b9.ts'

runB9('jsonl', 'walk')
