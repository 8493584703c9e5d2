import { effect, flakyTest, it, layer, live, prop, scoped, scopedLive } from "@effect/vitest"

/**
 * Runs before each test file (every package's `setupFiles`): gives `it` from `@effect/vitest` its own testers back.
 *
 * `layer(L)("name", (it) => …)` of `@effect/vitest` 0.30 hands its callback the module's one `it` object with
 * `effect`, `scoped`, `layer`, `prop` and `flakyTest` assigned over — testers that run in `L`'s runtime — and never
 * puts them back. The packages' suites share one worker (`isolate: false`), so every test file run after a file that
 * used `layer` got that file's runtime for its `it.effect` and `it.scoped`: its scope already closed, and, after a
 * `layer(…, { excludeTestServices: true })`, no `TestClock` (`TestClock.adjust` failed with "testClock.adjust is not a
 * function" in `packages/runs`, where `StoreOutage.test.ts` ran first, while the same test passed alone).
 */
Object.assign(it, { effect, scoped, live, scopedLive, layer, prop, flakyTest })
