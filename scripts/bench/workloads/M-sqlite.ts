/** M for the SQLITE backend (see m.ts). */
import { runM } from './m.ts'

runM('sqlite')
