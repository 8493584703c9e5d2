/**
 * Items per page when a report or an export reads a whole run: a page is decoded at once (results with their traces,
 * ~20 KB of JSON each and several times that decoded), so it sets the peak memory; at 50 the pages cost ~4 queries per
 * 200 questions and peak RSS stays flat with run size (benchmarks/memory; 500 per page, the store's default, peaked
 * at ~780 MiB for an export).
 */
export const reportPageSize = 50
