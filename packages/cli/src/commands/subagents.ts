import type { SubagentDescriptor } from "@dsh/subagent"
import { Effect } from "effect"
import { parseFlags } from "../Args.ts"
import { UsageError } from "../CliError.ts"
import type { CliContext } from "../Context.ts"
import { writeLine } from "../Output.ts"
import { requireSession } from "../Session.ts"

const FLAGS = { session: { type: "string" }, json: { type: "boolean" } } as const

const descriptorsOf = (state: Readonly<Record<string, unknown>>): Array<SubagentDescriptor> =>
  Object.values((state.subagents ?? {}) as Record<string, SubagentDescriptor>)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.handle.localeCompare(b.handle))

/** `dsh subagents list|info … --session ID [--json]`. */
export const subagentsCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, FLAGS, "subagents")
    const [sub, handle, ...extra] = positionals
    if (sub !== "list" && sub !== "info") {
      return yield* new UsageError({ message: `subagents: unknown subcommand "${sub ?? ""}" (list, info)` })
    }
    const session = yield* requireSession(values.session)
    const children = descriptorsOf(yield* session.readState)
    if (sub === "list") {
      if (handle !== undefined) return yield* new UsageError({ message: `subagents list takes no argument (got "${handle}")` })
      const subagents = children.map((d) => ({
        name: d.handle,
        agent: d.agent,
        provider: d.provider,
        status: d.status,
        parent: d.parent,
        depth: d.depth,
        usage: d.usage
      }))
      if (values.json === true) return yield* writeLine(ctx.stdout, JSON.stringify({ subagents }))
      if (subagents.length === 0) return yield* writeLine(ctx.stdout, "no subagents")
      for (const s of subagents) {
        yield* writeLine(ctx.stdout, `${s.name.padEnd(16)} ${s.status.padEnd(9)} ${s.agent.padEnd(10)} ${s.provider.padEnd(8)} parent ${s.parent}  ${s.usage.totalTokens} tokens`)
      }
      return
    }
    if (handle === undefined || extra.length > 0) return yield* new UsageError({ message: "usage: dsh subagents info HANDLE --session ID" })
    const found = children.find((d) => d.handle === handle)
    if (found === undefined) {
      return yield* new UsageError({
        message: `unknown subagent "${handle}" in session ${session.id}; known: ${children.map((d) => d.handle).join(", ") || "(none)"}`
      })
    }
    if (values.json === true) return yield* writeLine(ctx.stdout, JSON.stringify(found))
    for (const [k, v] of Object.entries(found)) {
      yield* writeLine(ctx.stdout, `${k}: ${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
    }
  })
