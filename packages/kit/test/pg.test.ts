import { Postgres } from "@dsh/testing-pg"
import { afterAll, describe, expect, it } from "vitest"
import { createSubagents } from "../src/index.ts"
import { agents, model } from "./script.ts"

const pg = await Postgres.postgresForTests()
afterAll(() => pg?.stop())

describe.skipIf(pg === undefined)("@dsh/kit on PostgreSQL", () => {
  it("store { postgres } keeps the session for another kit (loaded on demand)", async () => {
    const url = await pg!.createSchema()
    const first = await createSubagents({ model, agents, store: { postgres: url } })
    const { sessionId } = await first.prompt("hello")
    await first.close()
    const second = await createSubagents({ model, agents, store: { postgres: url } })
    try {
      const again = await second.prompt("hello", { sessionId })
      expect(again.children.map((c) => `${c.handle} ${c.status}`)).toEqual(["researcher-1 completed", "researcher-2 completed"])
    } finally {
      await second.close()
    }
  })
})
