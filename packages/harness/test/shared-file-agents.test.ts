import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FileAgents } from "../src/index.ts"

// The A2A backend needs a project's remote agent files before the first session exists; the
// directory scan that found them is the first catalog's too (real files in a temp project).

const project = () => {
  const root = mkdtempSync(join(tmpdir(), "dsh-shared-files-"))
  mkdirSync(join(root, ".git"))
  const dir = join(root, ".agents", "agents")
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "billing.md"), "---\nkind: remote\nname: billing_agent\nagent_card_url: https://agents.example/billing/card.json\n---\n")
  writeFileSync(join(dir, "reviewer.md"), "---\nname: reviewer\ndescription: reviews code\n---\nReview.\n")
  const home = mkdtempSync(join(tmpdir(), "dsh-shared-home-"))
  return { root, dir, options: { dshHome: home, userHome: home, env: {} } }
}

describe("sharedFileAgents", () => {
  it.effect("gives the remote agent files, and hands that one resolution to the first catalog of the same search", () =>
    Effect.gen(function*() {
      const { root, dir, options } = project()
      const files = FileAgents.sharedFileAgents(options, root)
      const remotes = yield* files.remoteAgents
      assert.deepStrictEqual(remotes.map((r) => ({ name: r.name, url: r.url, source: r.source })), [
        { name: "billing-agent", url: "https://agents.example/billing/card.json", source: join(dir, "billing.md") }
      ])
      // Removed after the scan: the first catalog is the scan's, a later one reads the directory again.
      rmSync(join(dir, "reviewer.md"))
      const first = yield* files.agents({ cwd: root, extra: {} })
      assert.isTrue(first.delegates.some((d) => d.name === "reviewer"))
      assert.isFalse(first.delegates.some((d) => d.name === "billing-agent"))
      const second = yield* files.agents({ cwd: root, extra: {} })
      assert.isFalse(second.delegates.some((d) => d.name === "reviewer"))
    }))

  it.effect("a catalog of another search reads its own files", () =>
    Effect.gen(function*() {
      const { root, dir, options } = project()
      const files = FileAgents.sharedFileAgents(options, root)
      yield* files.remoteAgents
      rmSync(join(dir, "reviewer.md"))
      const trusted = yield* files.agents({ cwd: root, extra: { trustProject: true } })
      assert.isFalse(trusted.delegates.some((d) => d.name === "reviewer"))
    }))
})
