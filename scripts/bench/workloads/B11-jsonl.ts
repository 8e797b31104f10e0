/** B11 for the JSONL backend (see B11-common.ts). */
import { runB11 } from './B11-common.ts'

runB11('jsonl')
