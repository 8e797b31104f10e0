/** B10 for the SQLite backend (see B10-common.ts). */
import { runB10 } from './B10-common.ts'

runB10('sqlite')
