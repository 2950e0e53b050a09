import type { Events } from "@dsh/core"
import { Cause, Clock, Context, Effect } from "effect"

/** Claude Code's lifecycle events, the names hooks are registered under. */
export const HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "SubagentStart",
  "SubagentStop",
  "Stop",
  "SessionEnd"
] as const

export type HookEventName = typeof HOOK_EVENTS[number]

export const isHookEventName = (name: string): name is HookEventName => (HOOK_EVENTS as ReadonlyArray<string>).includes(name)

/**
 * What a hook is given: Claude Code's stdin JSON, field for field (snake_case), so a team's
 * scripts read it unchanged. `session_id`, `transcript_path` and `hook_event_name` are filled in
 * by `Hooks.run`.
 */
export interface HookInput {
  readonly session_id: string
  readonly transcript_path: string
  readonly cwd: string
  readonly hook_event_name: HookEventName
  readonly tool_name?: string | undefined
  readonly tool_input?: unknown
  readonly tool_response?: unknown
  readonly prompt?: string | undefined
  /** The handle of the agent the event is about (the child for subagent events, the caller otherwise). */
  readonly agent_id?: string | undefined
  readonly agent_type?: string | undefined
  /** True when the agent already continues because of a Stop hook (bounded, so it cannot loop). */
  readonly stop_hook_active?: boolean | undefined
}

/** What a hook answers: Claude Code's output JSON, plus a warning for a hook that failed. */
export interface HookResult {
  /** `block` refuses (the tool call, the prompt) or, for `Stop`, makes the agent continue. */
  readonly decision?: "block" | undefined
  readonly reason?: string | undefined
  /** `PreToolUse` only: `allow` skips the question (deny rules still win), `deny` blocks, `ask` asks. */
  readonly permissionDecision?: "allow" | "deny" | "ask" | undefined
  readonly permissionDecisionReason?: string | undefined
  /** The hook failed (crashed, timed out, exited with a code other than 0 and 2): the run goes on. */
  readonly warning?: string | undefined
  readonly exitCode?: number | undefined
}

/** A hook as a plain Effect callback: library users register these; command hooks are built on them. */
export type HookCallback = (input: HookInput) => Effect.Effect<HookResult>

export interface HookRegistration {
  readonly event: HookEventName
  /**
   * Tool events: the tool name or a regular expression over it (`Bash`, `Edit|Write`, `mcp__.*`),
   * matched whole; subagent events: the agent type. Empty, absent or `*`: everything.
   */
  readonly matcher?: string | undefined
  /** How transcripts name it: the command line, or a name of the caller's choosing. */
  readonly name: string
  readonly run: HookCallback
}

/** What the hooks of one event decided together (any block wins; deny over ask over allow). */
export interface HookVerdict {
  readonly blocked: boolean
  /** What the model (or the user, for a prompt) reads when blocked; for `Stop`, why to continue. */
  readonly reason: string
  readonly permission?: { readonly decision: "allow" | "ask"; readonly hook: string; readonly reason?: string | undefined } | undefined
}

export const noVerdict: HookVerdict = { blocked: false, reason: "" }

export interface HookRunRequest {
  readonly input: Omit<HookInput, "session_id" | "transcript_path" | "hook_event_name">
  /** The event sink of the agent concerned: every hook run is recorded there. */
  readonly emit?: ((event: Events.AgentEvent) => Effect.Effect<void>) | undefined
  /** The tool call a tool event is about. */
  readonly id?: string | undefined
}

/**
 * The hooks of a session tree. Like `Permissions` it is a fiber reference: children run in
 * fibers forked from their parent's and so share its hooks, whatever backend runs them in this
 * process. `configured` is false for the default (no hooks), which costs nothing per call.
 */
export interface HooksShape {
  readonly configured: boolean
  readonly has: (event: HookEventName) => boolean
  readonly run: (event: HookEventName, request: HookRunRequest) => Effect.Effect<HookVerdict>
  /**
   * These hooks plus an agent's own (Claude Code's per-agent `hooks` frontmatter), for that
   * agent's run alone: always built on the tree's, so its children do not inherit them.
   */
  readonly forAgent: (agent: string, hooks: Readonly<Record<string, unknown>> | undefined) => HooksShape
}

export const noHooks: HooksShape = { configured: false, has: () => false, run: () => Effect.succeed(noVerdict), forAgent: () => noHooks }

export const Hooks = Context.Reference<HooksShape>("@dsh/tools/Hooks", { defaultValue: () => noHooks })

/** Whether `matcher` selects `subject` (Claude Code's matching: a name or a whole-string regex). */
export const compileMatcher = (matcher: string | undefined): ((subject: string | undefined) => boolean) => {
  if (matcher === undefined || matcher === "" || matcher === "*") return () => true
  let re: RegExp
  try {
    re = new RegExp(`^(?:${matcher})$`)
  } catch {
    return (subject) => subject === matcher
  }
  return (subject) => subject !== undefined && re.test(subject)
}

/** A matcher that is not a valid regular expression (config decoding names it). */
export const matcherError = (matcher: string): string | undefined => {
  try {
    new RegExp(`^(?:${matcher})$`)
    return undefined
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
}

const subjectOf = (event: HookEventName, input: HookRunRequest["input"]): string | undefined =>
  event === "SubagentStart" || event === "SubagentStop" ? input.agent_type : input.tool_name

const outcomeOf = (r: HookResult): Extract<Events.AgentEvent, { type: "hook" }>["outcome"] =>
  r.warning !== undefined
    ? "warning"
    : r.permissionDecision ?? (r.decision === "block" ? "block" : "continue")

export interface HooksSession {
  readonly sessionId: string
  readonly transcriptPath?: string | undefined
  /** Turns an agent's `hooks` frontmatter into registrations (e.g. command hooks); without it they are ignored. */
  readonly agentHooks?: ((agent: string, hooks: Readonly<Record<string, unknown>>) => ReadonlyArray<HookRegistration>) | undefined
}

/**
 * Hooks from registrations. Those of one event run concurrently (as in Claude Code); a callback
 * that dies is a warning, never the end of the run.
 */
export const make = (registrations: ReadonlyArray<HookRegistration>, session: HooksSession): HooksShape => {
  const agents = new Map<string, HooksShape>()
  const forAgent = (agent: string, hooks: Readonly<Record<string, unknown>> | undefined): HooksShape => {
    if (hooks === undefined || session.agentHooks === undefined) return tree
    const known = agents.get(agent)
    if (known !== undefined) return known
    const own = session.agentHooks(agent, hooks)
    const made = own.length === 0 ? tree : build([...registrations, ...own])
    agents.set(agent, made)
    return made
  }
  const build = (registrations: ReadonlyArray<HookRegistration>): HooksShape =>
    registrations.length === 0 ? { ...noHooks, forAgent } : { ...makeRunner(registrations, session), forAgent }
  const tree = build(registrations)
  return tree
}

const makeRunner = (registrations: ReadonlyArray<HookRegistration>, session: HooksSession): Omit<HooksShape, "forAgent"> => {
  const byEvent = new Map<HookEventName, Array<{ readonly hook: HookRegistration; readonly matches: (s: string | undefined) => boolean }>>()
  for (const hook of registrations) {
    const list = byEvent.get(hook.event) ?? []
    list.push({ hook, matches: compileMatcher(hook.matcher) })
    byEvent.set(hook.event, list)
  }
  const run = (event: HookEventName, request: HookRunRequest): Effect.Effect<HookVerdict> => {
    const subject = subjectOf(event, request.input)
    const selected = (byEvent.get(event) ?? []).filter((h) => h.matches(subject))
    if (selected.length === 0) return Effect.succeed(noVerdict)
    const input: HookInput = {
      session_id: session.sessionId,
      transcript_path: session.transcriptPath ?? "",
      hook_event_name: event,
      ...request.input
    }
    return Effect.forEach(selected, ({ hook }) =>
      Effect.gen(function*() {
        const started = yield* Clock.currentTimeMillis
        const result = yield* hook.run(input).pipe(
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.failCause(cause)
              : Effect.succeed<HookResult>({ warning: `the hook crashed: ${Cause.pretty(cause).split("\n")[0]}` })
          )
        )
        const message = result.warning ?? result.permissionDecisionReason ?? result.reason
        yield* (request.emit ?? (() => Effect.void))({
          type: "hook",
          event,
          hook: hook.name,
          outcome: outcomeOf(result),
          ...(request.id === undefined ? {} : { id: request.id }),
          ...(result.exitCode === undefined ? {} : { exitCode: result.exitCode }),
          ...(message === undefined || message === "" ? {} : { message }),
          durationMs: (yield* Clock.currentTimeMillis) - started
        })
        return { hook, result }
      }), { concurrency: "unbounded" }).pipe(
      Effect.map((runs): HookVerdict => {
        const ok = runs.filter((r) => r.result.warning === undefined)
        const blocking = ok.filter((r) => r.result.decision === "block" || r.result.permissionDecision === "deny")
        if (blocking.length > 0) {
          const reason = blocking.map((r) => r.result.permissionDecisionReason ?? r.result.reason ?? "").filter((s) => s !== "").join("\n")
          return { blocked: true, reason: reason === "" ? `blocked by the ${event} hook ${JSON.stringify(blocking[0]!.hook.name)}` : reason }
        }
        const asking = ok.find((r) => r.result.permissionDecision === "ask") ?? ok.find((r) => r.result.permissionDecision === "allow")
        return asking === undefined
          ? noVerdict
          : {
            blocked: false,
            reason: "",
            permission: { decision: asking.result.permissionDecision as "allow" | "ask", hook: asking.hook.name, reason: asking.result.permissionDecisionReason }
          }
      }),
      Effect.withSpan("Hooks.run", { attributes: { event, hooks: selected.length } })
    )
  }
  return { configured: true, has: (event) => byEvent.has(event), run }
}
