/** B12 (search): S2's query over 10,000 stored sessions instead of 1,000 (see S2-common.ts). */
import { B12_SESSIONS } from './B9-common.ts'
import { runSearch } from './S2-common.ts'

await runSearch('B12-search', B12_SESSIONS)
