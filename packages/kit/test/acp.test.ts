import { FakeAcpAgent } from "@dsh/subagent-acp/testing"
import { describe, expect, it } from "vitest"
import { createSubagents } from "../src/index.ts"
import { agents, model } from "./script.ts"

describe("@dsh/kit acp agents", () => {
  it("an ACP agent given in `acp` is the agent type acp:<name>, run in its own process", async () => {
    const kit = await createSubagents({ model, agents, acp: [FakeAcpAgent.fakeAcpAgent({ name: "vendor" })] })
    try {
      const result = await kit.delegate({ agent: "acp:vendor", prompt: "CONFORMANCE echo hi" })
      expect(result).toMatchObject({ handle: "acp-vendor-1", status: "completed", text: "echo hi" })
      expect((await kit.children()).map((c) => `${c.handle} ${c.backend}`)).toEqual(["acp-vendor-1 acp"])
    } finally {
      await kit.close()
    }
  })
})
