import { HttpApi, type HttpApiGroup } from "@effect/platform"

/**
 * Which methods the server answers on a path, for a request whose method it does not: `PUT /v1/runs` is a wrong method
 * on a route that exists (405 with `Allow`, RFC 9110 §15.5.6), not a route that does not (404). Read from the API's
 * definition when a server is built (not when the module loads: every CLI command loads it) — every endpoint's method
 * and path, a `:param` segment matching any one segment — plus the pages the server serves beside it; `HEAD` is
 * answered wherever `GET` is.
 */
interface Route {
  readonly method: string
  readonly pattern: RegExp
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const route = (method: string, path: string): Route => ({
  method,
  pattern: new RegExp(`^${path.split("/").map((part) => (part.startsWith(":") ? "[^/]+" : literal(part))).join("/")}$`)
})

const apiRoutes = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>
): Array<Route> => {
  const routes: Array<Route> = []
  HttpApi.reflect(api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint }) => {
      routes.push(route(endpoint.method, endpoint.path))
    }
  })
  return routes
}

/** The OpenAPI document, Swagger UI (`/docs`) and the run inspector (`/ui`): pages, all GET. */
const pageRoutes: ReadonlyArray<Route> = [
  route("GET", "/openapi.json"),
  route("GET", "/docs"),
  { method: "GET", pattern: /^\/ui(?:\/.*)?$/ }
]

/** The methods a server of `api` answers on a path (without its query). */
export type AllowedMethods = (path: string) => ReadonlyArray<string>

/** `api`'s routes and the pages as `AllowedMethods`: sorted methods, empty when no route has that path. */
export const allowedMethodsOf = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>
): AllowedMethods => {
  const routes: ReadonlyArray<Route> = [...apiRoutes(api), ...pageRoutes]
  return (path) => {
    const methods = new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))
    if (methods.has("GET")) methods.add("HEAD")
    return [...methods].sort()
  }
}
