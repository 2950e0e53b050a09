import { Schema } from "effect"
import type { Message } from "./Messages.ts"
import type { Usage } from "./Usage.ts"

/** One item of an agent's todo list (`TodoWrite`): what, its state, and the "doing" form shown while in progress. */
export interface TodoItem {
  readonly content: string
  readonly status: "pending" | "in_progress" | "completed"
  readonly activeForm?: string | undefined
}

/** How a run ended. Always decided by the runtime, never by model text. */
export const RunStatus = Schema.Literals(["completed", "failed", "timeout", "cancelled", "lost"])
export type RunStatus = typeof RunStatus.Type

/**
 * Everything an agent does, as one stream of events. All but `text-delta` are persisted
 * to the session's `wire.jsonl`; the full stream is what `--output-format stream-json`,
 * ACP and the SDK forward to their clients.
 */
export type AgentEvent =
  | { readonly type: "session-start"; readonly sessionId: string; readonly agent: string; readonly cwd: string; readonly model: string }
  | {
    readonly type: "turn-start"
    readonly turn: number
    readonly prompt: string
    /** The reasoning effort the turn's model calls ask for, when one was set. */
    readonly thinking?: "off" | "low" | "medium" | "high" | undefined
  }
  | { readonly type: "step-start"; readonly turn: number; readonly step: number }
  | { readonly type: "text-delta"; readonly text: string }
  | { readonly type: "message"; readonly message: Message }
  | { readonly type: "tool-call"; readonly id: string; readonly name: string; readonly input: string }
  | {
    readonly type: "tool-result"
    readonly id: string
    readonly name: string
    readonly output: string
    readonly isError: boolean
    readonly durationMs: number
  }
  | {
    readonly type: "usage"
    readonly model: string
    readonly usage: Usage
    /** What the call cost in US dollars, when the provider itself said (a vendor agent's running cost). */
    readonly cost?: number | undefined
  }
  | {
    readonly type: "turn-end"
    readonly turn: number
    readonly status: RunStatus
    readonly result: string
    readonly usage: Usage
    readonly durationMs: number
    readonly error?: string | undefined
  }
  | {
    readonly type: "subagent-start"
    readonly handle: string
    readonly agent: string
    readonly provider: string
    readonly runId: string
    readonly background: boolean
    readonly description: string
  }
  | {
    readonly type: "subagent-end"
    readonly handle: string
    readonly runId: string
    readonly status: RunStatus
    readonly usage: Usage
    readonly durationMs: number
    readonly result: string
  }
  | {
    readonly type: "permission"
    /** The tool call the decision is about. */
    readonly id: string
    /** The call as rules see it: `Bash(git push)`, `Edit(src/a.ts)`, `Read`. */
    readonly subject: string
    readonly decision: "allowed" | "denied"
    /** How it was decided: a matching rule, the mode's default, or an answer to a question. */
    readonly via: "rule" | "mode" | "asked"
    /** The rule that matched (`deny: Bash(rm -rf *)`) or the mode (`mode: plan`). */
    readonly rule?: string | undefined
    /** Who answered when asked: `user`, `acp-client`, `sdk-client`, or `none` (no one could be asked). */
    readonly by?: string | undefined
    /** An allowed answer that holds for the rest of the session. */
    readonly remember?: "once" | "session" | undefined
  }
  | { readonly type: "notice"; readonly level: "info" | "warning" | "error"; readonly message: string }
  /** The agent's whole todo list after a `TodoWrite` call (the latest one is current). */
  | { readonly type: "todo"; readonly todos: ReadonlyArray<TodoItem> }
  | {
    readonly type: "hook"
    /** The lifecycle event that ran it: `PreToolUse`, `Stop`, … (Claude Code's names). */
    readonly event: string
    /** The command, or the callback's name. */
    readonly hook: string
    /** What it decided: nothing (`continue`), `block`, `allow`/`deny`/`ask` (a permission decision), or `warning` (it failed, timed out or exited with another code). */
    readonly outcome: "continue" | "block" | "allow" | "deny" | "ask" | "warning"
    /** The tool call it is about, for tool events. */
    readonly id?: string | undefined
    readonly exitCode?: number | undefined
    /** The reason it gave (stderr on exit 2, `reason`), or what went wrong. */
    readonly message?: string | undefined
    readonly durationMs: number
  }

export type AgentEventType = AgentEvent["type"]

/** Events that exist only on the live stream and are not written to `wire.jsonl`. */
export const isEphemeral = (event: AgentEvent): boolean => event.type === "text-delta"

/** One persisted line of `wire.jsonl`. */
export type WireRecord = AgentEvent & { readonly seq: number; readonly ts: string }
