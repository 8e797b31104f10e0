/** B4 for the SQLITE backend (see B4-common.ts). */
import { runB4 } from './B4-common.ts'

await runB4('sqlite')
