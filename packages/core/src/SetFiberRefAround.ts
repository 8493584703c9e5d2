import { Effect, Exit, FiberRef } from "effect"

/**
 * The region of `Effect.locally(self, ref, value)` in a few run-loop steps (≈ 10 against `locally`'s 23, which builds
 * an `acquireUseRelease`): sets `ref` to `value`, runs `self`, puts `previous` back however `self` ends, and only then
 * continues with `self`'s exit through `then`. Forks of `self` inherit `value`, as with `locally`.
 *
 * Call it inside `Effect.uninterruptibleMask` with `self` restored (and `previous` read from the fiber there), so that
 * nothing but `self` can be interrupted between the set and the put-back. Used on a run's per-call path, where the
 * steps count: `withHotSpan` (the fiber's context with the span as parent) and `collectCallUsage` (the collector).
 */
export const setFiberRefAround = <V, A, E, R, B, E2>(
  ref: FiberRef.FiberRef<V>,
  value: V,
  previous: V,
  self: Effect.Effect<A, E, R>,
  then: (exit: Exit.Exit<A, E>) => Effect.Effect<B, E2>
): Effect.Effect<B, E2, R> => {
  const putBack = FiberRef.set(ref, previous)
  return Effect.zipRight(
    FiberRef.set(ref, value),
    Effect.matchCauseEffect(self, {
      onFailure: (cause) => Effect.flatMap(putBack, () => then(Exit.failCause(cause))),
      onSuccess: (a) => Effect.flatMap(putBack, () => then(Exit.succeed(a)))
    })
  )
}
