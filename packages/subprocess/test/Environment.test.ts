import { assert, describe, it } from "@effect/vitest"
import { Environment } from "../src/index.ts"

describe("scrubEnvironment", () => {
  const parent = {
    PATH: "/usr/bin",
    HOME: "/home/u",
    LC_ALL: "C.UTF-8",
    LC_CTYPE: "C",
    TZ: "UTC",
    NODE_OPTIONS: "--inspect",
    SOME_API_KEY: "sk-1",
    GITHUB_TOKEN: "ghp",
    db_password: "x",
    UNSET: undefined
  }

  it("keeps only the allow-list by default, LC_* included", () => {
    assert.deepStrictEqual(Environment.scrubEnvironment(parent), {
      PATH: "/usr/bin",
      HOME: "/home/u",
      LC_ALL: "C.UTF-8",
      LC_CTYPE: "C",
      TZ: "UTC"
    })
    assert.include(Environment.DEFAULT_INHERITED_ENV, "LC_*")
  })

  it("never inherits a credential-looking name, even when listed in inherit", () => {
    const env = Environment.scrubEnvironment(parent, { inherit: ["PATH", "SOME_API_KEY", "GITHUB_TOKEN", "db_password", "NODE_OPTIONS"] })
    assert.deepStrictEqual(env, { PATH: "/usr/bin", NODE_OPTIONS: "--inspect" })
  })

  it("passes a credential only through add", () => {
    const env = Environment.scrubEnvironment(parent, { add: { SOME_API_KEY: "sk-explicit" } })
    assert.strictEqual(env.SOME_API_KEY, "sk-explicit")
    assert.isUndefined(env.GITHUB_TOKEN)
  })

  it("recognises credential names case-insensitively", () => {
    for (const name of ["OPENAI_API_KEY", "auth_header", "Session_Id", "MY_SECRET", "npm_config__authToken", "PASSWD", "COOKIE_JAR", "AWS_CREDENTIALS"]) {
      assert.isTrue(Environment.isCredentialName(name), name)
    }
    for (const name of ["PATH", "HOME", "LANG", "EDITOR"]) assert.isFalse(Environment.isCredentialName(name), name)
  })
})
