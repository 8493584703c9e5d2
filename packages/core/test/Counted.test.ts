import { describe, expect, it } from "@effect/vitest"
import { counted } from "../src/Counted.js"

describe("counted", () => {
  it("one takes the singular, any other count the plural", () => {
    expect(counted(1, "question")).toBe("1 question")
    expect(counted(0, "question")).toBe("0 questions")
    expect(counted(2, "failed question")).toBe("2 failed questions")
  })
})
