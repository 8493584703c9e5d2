import { describe, expect, it } from "@effect/vitest"
import { withoutCredentials } from "../src/ShownUrl.js"

describe("withoutCredentials", () => {
  it("drops the user name and password, keeps the rest", () => {
    expect(withoutCredentials("http://user:s3cret@gpu1:8000/v1")).toBe("http://gpu1:8000/v1")
    expect(withoutCredentials("https://admin@meili.internal:7700/")).toBe("https://meili.internal:7700")
    expect(withoutCredentials("http://otel:pw@collector:4318/v1/traces?tenant=a")).toBe(
      "http://collector:4318/v1/traces?tenant=a"
    )
  })

  it("leaves a URL without credentials as it is, less trailing slashes", () => {
    expect(withoutCredentials("http://127.0.0.1:7700")).toBe("http://127.0.0.1:7700")
    expect(withoutCredentials("http://127.0.0.1:7700//")).toBe("http://127.0.0.1:7700")
  })

  it("returns text that is not a URL unchanged", () => {
    expect(withoutCredentials("gpu1:8000")).toBe("gpu1:8000")
    expect(withoutCredentials("not a url/")).toBe("not a url")
  })
})
