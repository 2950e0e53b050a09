import { AgentHost, conversationRecords, eventLine } from "@dsh/agent"
import { decodeDescriptors, defaultArchiving, logWarnings, requestStop, resolveChildRef, subagentInfo } from "@dsh/subagent"
import { Effect, Result } from "effect"
import { parseFlags } from "../Args.ts"
import { RunFailed, UsageError } from "../CliError.ts"
import { loadConfig } from "../Config.ts"
import type { CliContext } from "../Context.ts"
import { requireSession, writeLine } from "@dsh/harness"
import { formatCost } from "@dsh/view"
import { subagentsWatchCommand } from "./subagents-watch.ts"

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
    const session = yield* requireSession(values.session, { cwd: ctx.cwd, notice: (line) => writeLine(ctx.stderr, line) })
    if (sub === "watch") {
      if (handle !== undefined) return yield* new UsageError({ message: `subagents watch takes no argument (got "${handle}")` })
      return yield* subagentsWatchCommand(session, ctx)
    }
    const host = yield* AgentHost
    const decoded = decodeDescriptors(yield* session.readState)
    yield* logWarnings(decoded.warnings)
    const children = decoded.records
    // A child by its handle or as `#N`, its place in `subagents list`.
    const find = (h: string | undefined) =>
      Effect.gen(function*() {
        if (h === undefined) return yield* new UsageError({ message: `usage: dsh subagents ${sub} HANDLE|#N --session ID` })
        const found = resolveChildRef(children, h)
        if (Result.isFailure(found)) return yield* new UsageError({ message: `${found.failure} in session ${session.id}` })
        return found.success
      })
    if (sub === "send") {
      const child = yield* find(handle)
      const message = extra.join(" ").trim()
      if (message === "") return yield* new UsageError({ message: "usage: dsh subagents send HANDLE \"message\" --session ID" })
      const reply = yield* host.sendToChild({ sessionId: session.id, handle: child.handle, message })
      yield* writeLine(ctx.stdout, values.json === true ? JSON.stringify({ ...reply, output: reply.result }) : reply.status === "queued" ? reply.notes ?? "" : reply.result)
      if (reply.status !== "completed" && reply.status !== "queued") return yield* new RunFailed({ message: `${child.handle} ${reply.status}: ${reply.notes ?? "no result"}` })
      return
    }
    if (sub === "log") {
      const child = yield* find(handle)
      const limit = values.limit === undefined ? undefined : Number(values.limit)
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
        return yield* new UsageError({ message: `--limit must be a positive integer (got "${values.limit}")` })
      }
      const { records } = yield* (yield* session.child(child.handle)).transcript.read
      if (records.length === 0 && child.status !== "queued") return yield* new RunFailed({ message: `${child.handle}'s transcript is missing (${child.transcript ?? "no location"})` })
      // Permission decisions show with --tools, and always in --json.
      const tail = conversationRecords(records, { tools: values.tools, permissions: values.json, limit })
      if (values.json === true) return yield* writeLine(ctx.stdout, JSON.stringify({ handle: child.handle, records: tail }))
      for (const r of tail) yield* writeLine(ctx.stdout, eventLine(r) ?? JSON.stringify(r))
      return
    }
    if (sub === "stop") {
      const target = handle === "all" || handle === undefined ? "all" : (yield* find(handle)).handle
      const stopped = yield* requestStop(session, target)
      if (values.json === true) return yield* writeLine(ctx.stdout, JSON.stringify({ stopped }))
      if (stopped.length === 0) return yield* writeLine(ctx.stdout, `nothing to stop: ${target === "all" ? "no subagent" : target} is running`)
      for (const s of stopped) yield* writeLine(ctx.stdout, `${s.name} ${s.status}`)
      return
    }
    if (sub === "list") {
      if (handle !== undefined) return yield* new UsageError({ message: `subagents list takes no argument (got "${handle}")` })
      const subagents = yield* host.listChildren(session.id)
      if (values.json === true) return yield* writeLine(ctx.stdout, JSON.stringify({ subagents }))
      if (subagents.length === 0) return yield* writeLine(ctx.stdout, "no subagents")
      // `#N` is how operators may name a child instead of its handle.
      for (const [i, s] of subagents.entries()) {
        const cost = s.cost === undefined ? "" : `  ${formatCost(s.cost)}`
        yield* writeLine(ctx.stdout, `${`#${i + 1}`.padEnd(4)} ${s.name.padEnd(16)} ${s.status.padEnd(9)} ${s.agent.padEnd(10)} ${s.provider.padEnd(8)} parent ${s.parent}  ${s.usage.totalTokens} tokens${cost}`)
      }
      return
    }
    if (extra.length > 0) return yield* new UsageError({ message: "usage: dsh subagents info HANDLE --session ID" })
    const child = yield* find(handle)
    // Profile warnings (patterns that can never match) are in the child's transcript; a
    // transcript that cannot be read has none to show, and `log` reports it missing.
    const records = yield* Effect.orElseSucceed(Effect.map(Effect.flatMap(session.child(child.handle), (c) => c.transcript.read), (t) => t.records), () => [])
    const warnings = records.flatMap((r) => (r.type === "notice" && r.level === "warning" ? [r.message] : []))
    const minutes = (yield* loadConfig(ctx.home)).archiving.afterMinutes ?? defaultArchiving.afterMinutes
    const found = { ...subagentInfo(child, session.id, minutes), ...(warnings.length === 0 ? {} : { warnings }) }
    if (values.json === true) return yield* writeLine(ctx.stdout, JSON.stringify(found))
    for (const [k, v] of Object.entries(found)) {
      yield* writeLine(ctx.stdout, `${k}: ${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
    }
  })
