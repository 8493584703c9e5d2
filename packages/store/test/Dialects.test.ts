import { describe, it } from "@effect/vitest"
import { dialects } from "./layers.js"
import { eventLogSuite } from "./suites/EventLogSuite.js"
import { itemsSuite } from "./suites/ItemsSuite.js"
import { journalSuite } from "./suites/JournalSuite.js"
import { passagesSuite } from "./suites/PassagesSuite.js"
import { queueItemsSuite } from "./suites/QueueItemsSuite.js"
import { runLeasesSuite } from "./suites/RunLeasesSuite.js"
import { runStoreSuite } from "./suites/RunStoreSuite.js"
import { tenantQuotasSuite } from "./suites/TenantQuotasSuite.js"
import { tenantsSuite } from "./suites/TenantsSuite.js"

// One suite, run over each dialect: a fresh SQLite file, and a fresh database on a Postgres server started for this file.
describe("store", () => {
  for (const [dialect, layer] of dialects) {
    it.layer(layer, { timeout: "60 seconds" })(dialect, (it) => {
      runStoreSuite(it)
      itemsSuite(it)
      queueItemsSuite(it)
      journalSuite(it)
      eventLogSuite(it)
      passagesSuite(it)
      runLeasesSuite(it)
      tenantsSuite(it)
      tenantQuotasSuite(it)
    })
  }
})
