// Makes the run inspector's screenshots (docs/screenshots/*.png) against a fresh demo home:
// `npm run build && node docs/screenshots/make.mjs`. Needs Debian's chromium (`apt-get install -y chromium`).
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { createRequire } from "node:module"

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, "..", "..")
const { chromium } = createRequire(join(root, "apps/server/package.json"))("playwright-core")
const cli = join(root, "apps/cli/bin/deepnote.mjs")
const home = mkdtempSync(join(tmpdir(), "deepnote-shots-"))
const deepnote = (...args) => execFileSync("node", [cli, ...args, "--home", home], { stdio: "pipe" }).toString()
const questions = join(root, "examples/sample/questions/hotpotqa.jsonl")

deepnote("demo")
deepnote("run", "--dataset", questions, "--collection", "sample", "--label", "deepnote", "--trace")
// the baseline the loop is measured against: one retrieval with the question (its answers differ, so compare has rows)
deepnote("run", "--dataset", questions, "--collection", "sample", "--label", "vanilla", "--profile", "vanilla")
const grid = join(home, "grid.yaml")
writeFileSync(grid, "grid:\n  maxStep: [2, 3]\n  topK: [3, 5]\n")
deepnote("run", "--dataset", questions, "--collection", "sample", "--limit", "12", "--sweep", grid, "--label", "steps x topK")
const ui = spawn("node", [cli, "ui", "--home", home], { stdio: ["ignore", "pipe", "inherit"] })
const address = await new Promise((resolve) => {
  let out = ""
  ui.stdout.on("data", (chunk) => {
    out += chunk
    const match = /run inspector: (http:\/\/127\.0\.0\.1:\d+)\//.exec(out)
    if (match) resolve(match[1])
  })
})
const executablePath = ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].find((p) => existsSync(p))
const browser = await chromium.launch({ executablePath, headless: true })
try {
  const shot = async (name, hash, pageName, width = 1280, height = 900, ready = []) => {
    const page = await browser.newPage({ viewport: { width, height } })
    await page.goto(`${address}/ui/${hash}`)
    await page.waitForSelector(`main[data-page="${pageName}"][aria-busy="false"]`)
    for (const selector of ready) await page.waitForSelector(selector)
    await page.waitForLoadState("networkidle")
    await page.screenshot({ path: join(here, `${name}.png`), fullPage: name !== "question" })
    await page.close()
  }
  const runs = JSON.parse(execFileSync("curl", ["-s", `${address}/v1/runs`]).toString()).runs
  const base = runs.find((r) => r.label === "vanilla")
  const candidate = runs.find((r) => r.label === "deepnote")
  const items = JSON.parse(execFileSync("curl", ["-s", `${address}/v1/runs/${base.id}/results?limit=1`]).toString()).items
  await shot("runs", "#/runs", "runs")
  await shot("run", `#/runs/${base.id}`, "run")
  await shot("question", `#/runs/${base.id}/items/${items[0].itemId}`, "question", 1280, 1400)
  await shot("compare", `#/compare?base=${base.id}&candidate=${candidate.id}`, "compare")
  await shot("run-phone", `#/runs/${base.id}`, "run", 390, 844)
  const sweep = JSON.parse(execFileSync("curl", ["-s", `${address}/v1/sweeps`]).toString()).sweeps[0]
  await shot("sweep", `#/sweeps/${sweep.id}`, "sweep", 1280, 900, [".cell-metrics .cell-metric", "table.sweep-diff tbody tr"])
} finally {
  await browser.close()
  ui.kill("SIGINT")
  rmSync(home, { recursive: true, force: true })
}
