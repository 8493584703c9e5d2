import { packageProject } from "../../vitest.shared.ts"

// The HTTP app's tests run whole runs, uploads and restarts in-process: a minute was too short for the slowest of them
// beside a busy suite (a cancel-and-resume test took 27 s quiet and over 60 s at load 6).
export default packageProject({ testTimeout: 150_000 })
