/** M for the JSONL backend (see m.ts). */
import { runM } from './m.ts'

runM('jsonl')
