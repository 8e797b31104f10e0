/** M for the SQLITE backend (see M-common.ts). */
import { runM } from './M-common.ts'

runM('sqlite')
