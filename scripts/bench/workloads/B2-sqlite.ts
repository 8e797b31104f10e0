/** B2 for the SQLITE backend (see b2.ts). */
import { runB2 } from './b2.ts'

runB2('sqlite')
