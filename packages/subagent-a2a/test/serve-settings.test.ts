import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { serveToken } from "../src/serve.ts"

describe("serveToken", () => {
  it("reads the token from the variable [a2a.serve] token_env names; no setting, no token", () => {
    const raw = { a2a: { serve: { token_env: "A2A_TOKEN" } } }
    expect(Result.getOrThrow(serveToken(raw, { A2A_TOKEN: "s3cret" }))).toBe("s3cret")
    expect(Result.getOrThrow(serveToken({}, { A2A_TOKEN: "s3cret" }))).toBeUndefined()
  })

  it("fails when the named variable is unset or empty, rather than serving without a token", () => {
    const raw = { a2a: { serve: { token_env: "A2A_TOKEN" } } }
    for (const env of [{}, { A2A_TOKEN: "" }]) {
      const token = serveToken(raw, env)
      expect(Result.isFailure(token) && token.failure).toBe("[a2a.serve] token_env = \"A2A_TOKEN\", but A2A_TOKEN is not set")
    }
  })
})
