/**
 * Retry throttling as gRPC does it, made to wait instead of fail: a token bucket of `capacity` tokens; every retry
 * takes one, every successful call returns `perSuccess`, and time returns `perSecond`. A retry that finds the bucket
 * empty reserves its token anyway and waits until time would have refilled it, so retries slow down to
 * `perSecond + perSuccess × successes per second` under a storm, and never end a run.
 */
export class RetryThrottle {
  private tokens: number
  private refilledAt: number

  constructor(
    private readonly capacity: number,
    private readonly perSuccess: number,
    private readonly perSecond: number,
    now: number
  ) {
    this.tokens = capacity
    this.refilledAt = now
  }

  private refill(now: number) {
    if (now > this.refilledAt) {
      this.tokens = Math.min(this.capacity, this.tokens + ((now - this.refilledAt) / 1000) * this.perSecond)
      this.refilledAt = now
    }
  }

  /** Takes a token for one retry; returns how long (ms) the retry must wait for it (0 when the bucket had one). */
  reserve(now: number): number {
    this.refill(now)
    this.tokens -= 1
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.perSecond) * 1000)
  }

  success(now: number): void {
    this.refill(now)
    this.tokens = Math.min(this.capacity, this.tokens + this.perSuccess)
  }

  /** Tokens left now (negative: retries are waiting for that many). */
  level(now: number): number {
    this.refill(now)
    return this.tokens
  }
}
