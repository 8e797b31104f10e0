/** M for the JSONL backend (see M-common.ts). */
import { runM } from './M-common.ts'

runM('jsonl')
