/**
 * Which of a queue worker's takers hold a job, and when one last finished one: the idle watch reads both (a worker is
 * idle when no taker is busy for `idleExit`), the stop reads `busy` (an idle taker is interrupted at once, a busy one
 * drains).
 */
export class TakerActivity {
  readonly busy = new Set<number>()
  constructor(public lastActivity: number) {}
}
