/** B6 for the JSONL backend (see B6-common.ts). */
import { runB6 } from './B6-common.ts'

runB6('jsonl')
