import {
  causeCode,
  errorCode,
  errorMessage,
  hasEndedHere,
  innermostCause,
  isSqliteCorruptionCode
} from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { once } from "node:events"
import * as Fs from "node:fs"
import { hostname } from "node:os"

/** A real system error: reading a file that does not exist. */
const systemError = (): unknown => {
  try {
    Fs.readFileSync("/nonexistent/deepnote-error-cause")
  } catch (error) {
    return error
  }
  throw new Error("the read succeeded")
}

describe("error causes", () => {
  it.effect("reads a system error's code, and the first code along a chain of wrappers", () =>
    Effect.sync(() => {
      const enoent = systemError()
      assert.strictEqual(errorCode(enoent), "ENOENT")
      assert.isUndefined(errorCode("ENOENT"))
      assert.isUndefined(errorCode({ code: 404 }))
      // as Effect's and undici's wrappers hold it: the wrapper has no code of its own
      const wrapped = { _tag: "SystemError", cause: { _tag: "RequestError", cause: enoent } }
      assert.strictEqual(causeCode(wrapped), "ENOENT")
      // an outer code the caller does not want is passed over
      const http = { code: "UND_ERR_SOCKET", cause: { code: "ECONNRESET" } }
      assert.strictEqual(causeCode(http), "UND_ERR_SOCKET")
      assert.strictEqual(causeCode(http, (code) => code.startsWith("E")), "ECONNRESET")
      assert.isUndefined(causeCode({ cause: { cause: undefined } }))
    }))

  it.effect("follows a bounded number of links: a chain that points at itself ends", () =>
    Effect.sync(() => {
      const cyclic: { cause?: unknown } = {}
      cyclic.cause = cyclic
      assert.isUndefined(causeCode(cyclic))
      assert.strictEqual(innermostCause(cyclic), cyclic)
      const deep = { cause: { cause: { message: "SQLITE_CORRUPT: database disk image is malformed" } } }
      assert.strictEqual(errorMessage(innermostCause(deep)), "SQLITE_CORRUPT: database disk image is malformed")
    }))

  it.effect("a message when there is one, else the error's text", () =>
    Effect.sync(() => {
      assert.strictEqual(errorMessage(new Error("disk full")), "disk full")
      assert.strictEqual(errorMessage(new Error("")), "Error")
      assert.strictEqual(errorMessage("plain"), "plain")
      assert.strictEqual(errorMessage({ message: 42 }), "[object Object]")
    }))

  it.effect("SQLite's corruption codes, extended ones included, and nothing else", () =>
    Effect.sync(() => {
      for (const code of ["SQLITE_CORRUPT", "SQLITE_CORRUPT_VTAB", "SQLITE_NOTADB"]) {
        assert.isTrue(isSqliteCorruptionCode(code), code)
      }
      for (const code of ["SQLITE_BUSY", "SQLITE_IOERR", "ENOENT", undefined]) {
        assert.isFalse(isSqliteCorruptionCode(code), String(code))
      }
    }))
})

describe("hasEndedHere", () => {
  it.effect("a process of this machine that exited has ended; this process, a live one or another host's has not", () =>
    Effect.promise(async () => {
      const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" })
      await once(child, "spawn")
      const pid = child.pid!
      try {
        assert.isFalse(hasEndedHere(hostname(), pid), "alive")
        assert.isFalse(hasEndedHere("another-host.example", pid), "another host")
      } finally {
        child.kill("SIGKILL")
      }
      await once(child, "exit")
      assert.isTrue(hasEndedHere(hostname(), pid), "exited and reaped")
      assert.isFalse(hasEndedHere("another-host.example", pid), "another host is never known")
      assert.isFalse(hasEndedHere(hostname(), process.pid), "this process")
      assert.isFalse(hasEndedHere(hostname(), Number.NaN), "no pid")
      assert.isFalse(hasEndedHere(hostname(), 0), "0 would signal the process group")
    }))
})
