/** B10 for the JSONL backend (see B10-common.ts). */
import { runB10 } from './B10-common.ts'

runB10('jsonl')
