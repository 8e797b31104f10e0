/** S2: one search query over B9's 1,000 stored sessions (see S2-common.ts). */
import { B9_SESSIONS } from './B9-common.ts'
import { runSearch } from './S2-common.ts'

await runSearch('S2', B9_SESSIONS)
