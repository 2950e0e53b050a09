import { AgentHost, TranscriptView } from "@dsh/agent"
import { DshChildren, DshFlags } from "@dsh/kit/dsh"
import { SessionRequests } from "@dsh/subagent"
import { Effect } from "effect"
import { parseFlags } from "../Args.ts"
import { RunFailed, UsageError } from "../CliError.ts"
import { loadConfig } from "../Config.ts"
import type { CliContext } from "../Context.ts"
import { RunOutput, SessionChoice } from "@dsh/harness"
import { SessionWatch } from "@dsh/view"

const FLAGS = {
  session: { type: "string" },
  json: { type: "boolean" },
  limit: { type: "string" },
  tools: { type: "boolean" }
} as const


/** `dsh subagents list|info … --session ID [--json]`. */
export const subagentsCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { values, positionals } = yield* parseFlags(args, FLAGS, "subagents")
    const [sub, handle, ...extra] = positionals
    if (sub !== "list" && sub !== "info" && sub !== "log" && sub !== "send" && sub !== "stop" && sub !== "watch") {
      return yield* new UsageError({ message: `subagents: unknown subcommand "${sub ?? ""}" (list, info, log, send, stop, watch)` })
    }
    const session = yield* SessionChoice.requireSession(values.session, { cwd: ctx.cwd, notice: (line) => RunOutput.writeLine(ctx.stderr, line) })
    if (sub === "watch") {
      if (handle !== undefined) return yield* new UsageError({ message: `subagents watch takes no argument (got "${handle}")` })
      // The live tree of a session another process runs (on a terminal), else status lines and the final tree.
      return yield* SessionWatch.watchSession(session, ctx.stdout, ctx.env, (line) => RunOutput.writeLine(ctx.stdout, line))
    }
    const host = yield* AgentHost.AgentHost
    const children = yield* DshChildren.records(session)
    const find = (h: string | undefined) =>
      h === undefined ? Effect.fail(new UsageError({ message: `usage: dsh subagents ${sub} HANDLE|#N --session ID` })) : DshChildren.find(session, children, h).pipe(Effect.mapError((e) => new UsageError({ message: e.message })))
    if (sub === "send") {
      const child = yield* find(handle)
      const message = extra.join(" ").trim()
      if (message === "") return yield* new UsageError({ message: "usage: dsh subagents send HANDLE \"message\" --session ID" })
      const reply = yield* host.sendToChild({ sessionId: session.id, handle: child.handle, message })
      yield* RunOutput.writeLine(ctx.stdout, values.json === true ? JSON.stringify({ ...reply, output: reply.result }) : reply.status === "queued" ? reply.notes ?? "" : reply.result)
      if (reply.status !== "completed" && reply.status !== "queued") return yield* new RunFailed({ message: `${child.handle} ${reply.status}: ${reply.notes ?? "no result"}` })
      return
    }
    if (sub === "log") {
      const child = yield* find(handle)
      const limit = yield* DshFlags.positiveInteger(values.limit, "--limit")
      // Permission decisions show with --tools, and always in --json.
      const tail = yield* DshChildren.log(session, child, { tools: values.tools, permissions: values.json, limit }).pipe(
        Effect.catchTag("ChildLookupError", (e) => Effect.fail(new RunFailed({ message: e.message })))
      )
      if (values.json === true) return yield* RunOutput.writeLine(ctx.stdout, JSON.stringify({ handle: child.handle, records: tail }))
      for (const r of tail) yield* RunOutput.writeLine(ctx.stdout, TranscriptView.eventLine(r) ?? JSON.stringify(r))
      return
    }
    if (sub === "stop") {
      const target = handle === "all" || handle === undefined ? "all" : (yield* find(handle)).handle
      const stopped = yield* SessionRequests.requestStop(session, target)
      if (values.json === true) return yield* RunOutput.writeLine(ctx.stdout, JSON.stringify({ stopped }))
      for (const line of DshChildren.stopLines(stopped, target)) yield* RunOutput.writeLine(ctx.stdout, line)
      return
    }
    if (sub === "list") {
      if (handle !== undefined) return yield* new UsageError({ message: `subagents list takes no argument (got "${handle}")` })
      const subagents = yield* host.listChildren(session.id)
      if (values.json === true) return yield* RunOutput.writeLine(ctx.stdout, JSON.stringify({ subagents }))
      // `#N` is how operators may name a child instead of its handle.
      for (const line of DshChildren.listLines(subagents)) yield* RunOutput.writeLine(ctx.stdout, line)
      return
    }
    if (extra.length > 0) return yield* new UsageError({ message: "usage: dsh subagents info HANDLE --session ID" })
    const child = yield* find(handle)
    const found = yield* DshChildren.info(session, child, (yield* loadConfig(ctx.home)).archiving.afterMinutes)
    if (values.json === true) return yield* RunOutput.writeLine(ctx.stdout, JSON.stringify(found))
    for (const line of DshChildren.infoLines(found)) yield* RunOutput.writeLine(ctx.stdout, line)
  })
