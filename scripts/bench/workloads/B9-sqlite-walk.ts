/** B9 (walk) for the SQLITE backend (see B9-common.ts). */
import { runB9 } from './B9-common.ts'

runB9('sqlite', 'walk')
