/** B2 for the JSONL backend (see B2-common.ts). */
import { runB2 } from './B2-common.ts'

runB2('jsonl')
