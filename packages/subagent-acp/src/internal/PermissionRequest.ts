import type * as acp from "@agentclientprotocol/sdk/unstable"
import type { Events } from "@dsh/core"
import { Hooks, Permissions, PermissionSubject, ToolPolicy } from "@dsh/tools"
import { Effect } from "effect"
import { type AskedCall, DENY_REASON_META } from "./Connection.ts"

/**
 * How an ACP tool call's `kind` reads as a dsh subject, and what permission modes make of it.
 * The title is never used: it is free text and differs per vendor.
 */
const KINDS: Readonly<Record<string, { readonly tool: string; readonly kind: PermissionSubject.ToolKind }>> = {
  execute: { tool: "Bash", kind: "execute" },
  edit: { tool: "Edit", kind: "edit" },
  delete: { tool: "Edit", kind: "edit" },
  move: { tool: "Edit", kind: "edit" },
  read: { tool: "Read", kind: "read" },
  search: { tool: "Grep", kind: "read" },
  think: { tool: "Think", kind: "read" },
  fetch: { tool: "WebFetch", kind: "other" },
  switch_mode: { tool: "SwitchMode", kind: "other" },
  other: { tool: "Other", kind: "other" }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const firstString = (input: Record<string, unknown>, keys: ReadonlyArray<string>): string | undefined =>
  keys.map((k) => input[k]).find((v): v is string => typeof v === "string" && v !== "")

/** A command as vendors send it: a string, or argv (`["bash", "-lc", "git status"]` is its script). */
const commandOf = (input: Record<string, unknown>): string | undefined => {
  const value = input.command ?? input.cmd
  if (typeof value === "string" && value.trim() !== "") return value
  if (Array.isArray(value) && value.every((v) => typeof v === "string") && value.length > 0) {
    const argv = value as ReadonlyArray<string>
    const shell = /(^|\/)(ba|z|da)?sh$/.test(argv[0]!) && argv.length === 3 && /^-[a-z]*c$/.test(argv[1]!)
    return shell ? argv[2] : argv.join(" ")
  }
  return undefined
}

const PATH_KEYS = ["path", "file_path", "filePath", "abs_path", "absolute_path", "target_file", "file", "destination", "source"]

/**
 * A child's tool call as permission rules see it, from its `kind` and `rawInput`:
 * `execute` + `command` → `Bash(<command>)`; `edit`/`delete`/`move` + a path → `Edit(<path>)`
 * (which `Write(…)` rules match as well);
 * `read` + a path → `Read(<path>)`; `search` → `Grep`; `fetch` + `url` → `WebFetch(<url>)`;
 * `think` → `Think`; `switch_mode` → `SwitchMode`; `other` or none → `Other`. Paths are
 * relative to the child's working directory (absolute outside it); a path may also come from
 * the call's `locations`.
 */
export const subjectOfToolCall = (toolCall: acp.ToolCallUpdate, cwd: string): Effect.Effect<PermissionSubject.PermissionSubject> => {
  const mapped = KINDS[toolCall.kind ?? "other"] ?? KINDS.other!
  const input = isRecord(toolCall.rawInput) ? toolCall.rawInput : {}
  if (mapped.tool === "Bash") {
    const command = commandOf(input)
    return Effect.succeed(command === undefined ? PermissionSubject.toolSubject("Bash", "execute") : PermissionSubject.commandSubject("Bash", command))
  }
  if (mapped.tool === "WebFetch") {
    const url = firstString(input, ["url", "uri"])
    return Effect.succeed(url === undefined ? PermissionSubject.toolSubject("WebFetch", "other") : { tool: "WebFetch", kind: "other", specifier: url, match: "text" })
  }
  // An edit is a write to rules too: `Write(.env)` and `Edit(.env)` both apply to it.
  const aliases = mapped.tool === "Edit" ? { aliases: ["Write"] } : {}
  if (mapped.tool === "Edit" || mapped.tool === "Read") {
    const path = firstString(input, PATH_KEYS) ?? toolCall.locations?.[0]?.path
    if (path !== undefined) return Effect.map(PermissionSubject.pathSubject(mapped.tool, path, cwd, mapped.kind), (s) => ({ ...s, ...aliases }))
  }
  return Effect.succeed({ ...PermissionSubject.toolSubject(mapped.tool, mapped.kind), ...aliases })
}

/**
 * Answers a child's `session/request_permission` by the parent's rules: the call is mapped to
 * a subject, narrowed by the child's agent type (`tools`/`disallowedTools`), decided by the
 * tree's `Permissions` (asking its `Asker` with the child's handle), and recorded as a
 * `permission` event in the child's transcript. Without rules of the tree, the `default` mode
 * applies: a child that asks is never approved by default.
 */
export const decidePermissionRequest = (options: {
  readonly permissions: Permissions.PermissionsShape
  readonly agent: string
  readonly cwd: string
  readonly policy?: ToolPolicy.ToolPolicy | undefined
  readonly emit: (event: Events.AgentEvent) => Effect.Effect<void>
  /**
   * The call as the turn merged it from every update before the request (a request may repeat
   * only the call's id); without it, the request's own fields are used.
   */
  readonly callOf?: ((request: acp.RequestPermissionRequest) => Effect.Effect<AskedCall>) | undefined
}): Effect.Effect<(request: acp.RequestPermissionRequest) => Effect.Effect<acp.RequestPermissionResponse>> =>
  Effect.gen(function*() {
    const permissions = options.permissions.configured ? options.permissions : yield* Permissions.make({ mode: "default" }).pipe(Effect.orDie)
    const policy = ToolPolicy.compilePolicy(options.policy ?? {})
    // A disallowed name binds its aliases' calls too: `disallowedTools: [Write]` covers an ACP edit.
    const notDisallowed = ToolPolicy.compilePolicy({ disallowedTools: options.policy?.disallowedTools })
    const visible = (subject: PermissionSubject.PermissionSubject) => policy(subject.tool) && (subject.aliases ?? []).every(notDisallowed)
    // The tree's hooks, read where the child starts: the request handler runs on the connection's fiber.
    const hooks = yield* Hooks.Hooks
    return (request) =>
      Effect.gen(function*() {
        const merged = options.callOf === undefined ? undefined : yield* options.callOf(request)
        const toolCall: acp.ToolCallUpdate = merged === undefined ? request.toolCall : {
          ...request.toolCall,
          kind: request.toolCall.kind ?? (merged.kind as acp.ToolKind | undefined) ?? null,
          rawInput: request.toolCall.rawInput ?? merged.input,
          title: request.toolCall.title ?? merged.title ?? null,
          locations: request.toolCall.locations ?? (merged.locations.length === 0 ? null : merged.locations.map((path) => ({ path })))
        }
        const subject = yield* subjectOfToolCall(toolCall, options.cwd)
        // A vendor child's call is seen by PreToolUse hooks as dsh would name it (`Bash`, `Edit`, …).
        const pre = hooks.has("PreToolUse") && visible(subject)
          ? yield* hooks.run("PreToolUse", {
            input: { cwd: options.cwd, agent_id: options.agent, tool_name: subject.tool, tool_input: toolCall.rawInput ?? {} },
            emit: options.emit,
            id: request.toolCall.toolCallId
          })
          : undefined
        const decision = pre?.blocked === true
          ? { allowed: false, subject: PermissionSubject.subjectText(subject), via: "rule" as const, rule: "hook: PreToolUse", reason: pre.reason }
          : visible(subject)
          ? yield* permissions.decide({
            agent: options.agent,
            cwd: options.cwd,
            subject,
            summary: toolCall.title ?? PermissionSubject.subjectText(subject),
            input: toolCall.rawInput,
            hook: pre?.permission
          })
          : {
            allowed: false,
            subject: PermissionSubject.subjectText(subject),
            via: "rule" as const,
            rule: `disallowedTools: ${subject.tool}`,
            reason: `${PermissionSubject.subjectText(subject)} is not among the tools this agent may use`
          }
        yield* options.emit(Permissions.permissionEvent(request.toolCall.toolCallId, decision))
        const pick = (...kinds: ReadonlyArray<acp.PermissionOptionKind>) =>
          kinds.map((k) => request.options.find((o) => o.kind === k)).find((o) => o !== undefined)
        const option = decision.allowed ? pick("allow_once", "allow_always") : pick("reject_once", "reject_always")
        return {
          outcome: option === undefined ? { outcome: "cancelled" } : { outcome: "selected", optionId: option.optionId },
          ...(decision.allowed ? {} : { _meta: { [DENY_REASON_META]: decision.reason ?? `${decision.subject} was denied` } })
        } satisfies acp.RequestPermissionResponse
      })
  })
