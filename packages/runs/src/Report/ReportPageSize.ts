/**
 * Items per page when a report or an export reads a whole run. A page is decoded at once (results with their traces,
 * ~20 KB of JSON each and several times that decoded), so it bounds what the command holds: at the store's default of
 * 500, `export` peaked at ~780 MiB and could not finish in a 128 MiB heap; at 50 it holds a few MB of items and
 * finishes there, one more query per 50 questions (benchmarks/memory).
 */
export const reportPageSize = 50
