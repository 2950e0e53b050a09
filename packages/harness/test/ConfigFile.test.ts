import { Effect } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { ConfigFile } from "../src/index.ts"

const file = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), "dsh-config-")), "config.toml")
  writeFileSync(path, text)
  return path
}

describe("loadHarnessConfigFile", () => {
  it("reads a missing file as an empty config and a file's settings as the harness's", async () => {
    const missing = await Effect.runPromise(ConfigFile.loadHarnessConfigFile(join(tmpdir(), "no-such-dir-dsh", "config.toml")))
    expect(missing.hooks).toEqual([])
    const config = await Effect.runPromise(ConfigFile.loadHarnessConfigFile(file("model = \"scripted\"\n")))
    expect(config.model).toBe("scripted")
  })

  it("refuses malformed TOML and a provider named after a built-in adapter, naming the file", async () => {
    const bad = file("model = \n")
    const broken = await Effect.runPromise(Effect.flip(ConfigFile.loadHarnessConfigFile(bad)))
    expect(broken.message.startsWith(`${bad}: `)).toBe(true)
    const taken = file("[providers.openai]\npackage = \"@ai-sdk/openai\"\n")
    const refused = await Effect.runPromise(Effect.flip(ConfigFile.loadHarnessConfigFile(taken)))
    expect(refused.message).toBe(`${taken}: [providers.openai] is not allowed: "openai" is a built-in model adapter; pick another name`)
  })
})
