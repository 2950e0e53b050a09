import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { Asker } from "@dsh/tools"
import { Effect } from "effect"

const CHOICES = ["allow once", "allow for this session", "deny"] as const

/**
 * Who answers permission questions on an MCP connection: the client, as a form elicitation,
 * when it declared the `elicitation` capability; otherwise no one (an `ask` is a denial
 * naming the rule, and `hint` says how to allow it). A client that declines, cancels or
 * fails to answer denies.
 */
export const mcpAsker = (server: Server, hint: Asker.AllowHint | undefined): Asker.AskerShape => {
  const nobody = Asker.nobodyAsker({ hint, why: "this MCP client cannot be asked (it has no elicitation capability)" })
  return {
    ask: (question) => {
      if (server.getClientCapabilities()?.elicitation === undefined) return nobody.ask(question)
      return Effect.tryPromise(() =>
        server.elicitInput({
          mode: "form",
          message: `${Asker.questionText(question)} (${question.reason})`,
          requestedSchema: {
            type: "object",
            properties: { decision: { type: "string", title: "Decision", enum: [...CHOICES] } },
            required: ["decision"]
          }
        })
      ).pipe(
        Effect.map((result) => {
          const decision = result.action === "accept" ? result.content?.["decision"] : undefined
          if (decision === "allow once") return { allow: true, remember: "once" as const, by: "mcp-client" }
          if (decision === "allow for this session") return { allow: true, remember: "session" as const, by: "mcp-client" }
          return { allow: false, by: "mcp-client", reason: `${question.subject} was denied by the MCP client's user` }
        }),
        Effect.catch((error) =>
          Effect.succeed({ allow: false, by: "mcp-client", reason: `${question.subject} needs approval and asking the MCP client failed: ${String(error)}` })
        )
      )
    }
  }
}
