import { FileSystem, HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { createRequire } from "node:module"
import * as Path from "node:path"

/** The inspector package's directory (its `public/` files and its compiled `dist/src/`). */
const inspectorDir = Path.dirname(createRequire(import.meta.url).resolve("@deepnote-rag/inspector/package.json"))

const contentTypes: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".map": "application/json; charset=utf-8"
}

/**
 * The pages load scripts, styles and data from this origin only: no request can leave it (the pages must work with the
 * network off), and an injected script from elsewhere would not run.
 */
const securityHeaders = {
  "content-security-policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; " +
    "frame-ancestors 'none'; form-action 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  // the file names are not content-hashed: revalidate every time (the ETag makes that a 304)
  "cache-control": "no-cache"
}

/** A URL path under `/ui` → the file it names, or none (unknown, or a path that would leave its directory). */
export const inspectorFile = (urlPath: string): Option.Option<string> => {
  let rest: string
  try {
    rest = decodeURIComponent(urlPath.replace(/^\/ui\/?/u, ""))
  } catch {
    return Option.none()
  }
  if (rest === "" || rest === "index.html") return Option.some(Path.join(inspectorDir, "public", "index.html"))
  if (rest === "app.css") return Option.some(Path.join(inspectorDir, "public", "app.css"))
  if (!rest.startsWith("js/")) return Option.none()
  const relative = rest.slice(3)
  if (relative.includes("\0") || relative.includes("\\") || !/\.(js|js\.map)$/u.test(relative)) return Option.none()
  const root = Path.join(inspectorDir, "dist", "src")
  const file = Path.resolve(root, relative)
  return file.startsWith(root + Path.sep) ? Option.some(file) : Option.none()
}

const notFound = HttpServerResponse.text("not found", { status: 404, headers: securityHeaders })

/**
 * The run inspector's pages under `/ui` (`/ui` is its index.html, `/ui/app.css`, `/ui/js/*.js`), read from the
 * `@deepnote-rag/inspector` package. Public like `/docs`: the pages hold no data, they call the API with the user's key.
 */
export const InspectorRoute = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const serve = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const file = inspectorFile(request.url.split("?", 1)[0] ?? "")
      if (Option.isNone(file)) return notFound
      const info = yield* fs.stat(file.value).pipe(Effect.option)
      if (Option.isNone(info) || info.value.type !== "File") return notFound
      const mtime = Option.getOrUndefined(info.value.mtime)?.getTime() ?? 0
      const etag = `W/"${info.value.size.toString(16)}-${mtime.toString(16)}"`
      const headers = {
        ...securityHeaders,
        etag,
        "content-type": contentTypes[Path.extname(file.value)] ?? "application/octet-stream"
      }
      if (request.headers["if-none-match"] === etag) return HttpServerResponse.empty({ status: 304, headers })
      const bytes = yield* fs.readFile(file.value).pipe(Effect.orDie)
      return HttpServerResponse.uint8Array(bytes, { headers })
    })
    yield* router.get("/ui", serve)
    yield* router.get("/ui/*", serve)
  })
)
