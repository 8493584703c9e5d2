import { Config, Effect } from "effect"
import * as Fs from "node:fs"
import { type Browser, chromium, type Page } from "playwright-core"

/** Where Debian's `chromium` package (and other distributions' builds) put the browser binary. */
const candidates = [
  "/usr/lib/chromium/chromium",
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable"
]

/** The system Chromium, if installed (no browser is downloaded). */
export const chromiumPath: string | undefined = candidates.find((path) => Fs.existsSync(path))

const onCi = Effect.runSync(Config.boolean("CI").pipe(Config.withDefault(false), Effect.orElseSucceed(() => false)))

/**
 * Whether the browser suites run: with Chromium, yes; without it, CI fails (a missing browser must not pass as
 * skipped tests) and elsewhere the suites are skipped with one line saying how to install it.
 */
export const browserAvailable = (): boolean => {
  if (chromiumPath !== undefined) return true
  if (onCi) throw new Error("browser tests: Chromium is not installed (CI=true): `apt-get install -y chromium`")
  console.log("browser tests skipped: install Chromium with `apt-get install -y chromium`")
  return false
}

/** A headless Chromium, closed with the scope. */
export const launchBrowser = Effect.acquireRelease(
  Effect.promise(() => chromium.launch({ executablePath: chromiumPath!, headless: true })),
  (browser) => Effect.promise(() => browser.close())
)

export interface Watched {
  readonly page: Page
  /** Console errors, uncaught page errors and failed requests, as text. */
  readonly errors: Array<string>
  /** Requests to any other host than the server's. */
  readonly foreign: Array<string>
}

/**
 * A page that records what must not happen: console errors, page errors, and requests leaving 127.0.0.1 (they are
 * aborted, and recorded).
 */
export const watchedPage = (browser: Browser, viewport = { width: 1280, height: 900 }) =>
  Effect.promise(async (): Promise<Watched> => {
    const context = await browser.newContext({ viewport })
    const page = await context.newPage()
    page.setDefaultTimeout(60_000)
    const errors: Array<string> = []
    const foreign: Array<string> = []
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(`console: ${message.text()}`)
    })
    page.on("pageerror", (error) => errors.push(`page error: ${error.message}`))
    await page.route("**", (route) => {
      const url = new URL(route.request().url())
      if (url.protocol === "data:" || url.hostname === "127.0.0.1") return route.continue()
      foreign.push(url.href)
      return route.abort()
    })
    return { page, errors, foreign }
  })

/** Opens a route of the inspector and waits until the page says it has rendered it. */
export const openPage = (watched: Watched, url: string, pageName: string) =>
  Effect.promise(async () => {
    await watched.page.goto(url)
    await watched.page.waitForSelector(`main[data-page="${pageName}"][aria-busy="false"]`)
  })
