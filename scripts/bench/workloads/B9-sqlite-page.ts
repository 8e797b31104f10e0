/** B9 (page) for the SQLITE backend (see b9.ts). */
import { runB9 } from './b9.ts'

runB9('sqlite', 'page')
