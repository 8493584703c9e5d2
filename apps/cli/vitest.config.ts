import { packageProject } from "../../vitest.shared.ts"

// Three files at once: these tests mostly wait on child processes and on the simulator's decode steps, not on a core
// (Vitest's default on a 2-core machine is one file at a time). A table of ten child processes took over 60 s beside
// three other suites at load 9. Each file in a fresh process (`isolate`, Vitest's default): without it, two of the 20
// files never ran in one try (the pool ended with "Terminating worker thread"); they pass on their own, cause not found.
export default packageProject({
  testTimeout: 150_000,
  pool: "forks",
  poolOptions: { forks: { minForks: 1, maxForks: 3 } },
  isolate: true
})
