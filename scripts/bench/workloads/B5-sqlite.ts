/** B5 for the SQLITE backend (see B4-common.ts). */
import { runB5 } from './B4-common.ts'

await runB5('sqlite')
