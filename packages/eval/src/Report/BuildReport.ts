import type { Report } from "./Report.js"
import { makeReportAccumulator } from "./ReportAccumulator.js"
import type { ReportItem, ReportOptions } from "./ReportItem.js"

/**
 * Builds a report from question outcomes; works on partial runs (only finished items are scored). A run's report reads
 * its items as a stream into `makeReportAccumulator` instead, which gives the same report without holding them.
 */
export const buildReport = (items: ReadonlyArray<ReportItem>, options: ReportOptions = {}): Report => {
  const accumulator = makeReportAccumulator(options)
  for (const item of items) accumulator.add(item)
  return accumulator.finish()
}
