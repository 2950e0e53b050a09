import type { Announcement, ChildEvent, ChildEventName, ChildInfo, ChildResult } from "./Results.ts"
import { withProgress } from "./internal/progress.ts"
import type { KitToolDefinition, SubagentCall } from "./ToolDefinition.ts"

export type { SubagentProgress } from "./internal/progress.ts"

interface ProgressSource {
  readonly on: (event: ChildEventName, listener: (event: ChildEvent) => void) => () => void
}

/**
 * The kit's tools as AI SDK `tool()`s. `subagent`'s `execute` is an async generator: the AI SDK
 * streams each `SubagentProgress` it yields as a preliminary tool result (`readUIMessageStream`,
 * `useChat`), and gives the model only the last value, the child's result.
 */
export const makeAiSdkTools = async <T,>(
  kit: ProgressSource,
  definitions: ReadonlyArray<KitToolDefinition>,
  subagent: SubagentCall,
  /** Children a running `subagent` call follows (one set per kit), so two calls never follow the same one. */
  claimed: Set<string>
): Promise<T> => {
  // Loaded only here: apps that never use the AI SDK need not install it.
  const ai = await import("ai").catch(() => undefined)
  if (ai === undefined) throw new Error("kit.tools.aiSdk() needs the AI SDK: npm install ai")
  const tools: Record<string, unknown> = {}
  for (const d of definitions) {
    const inputSchema = ai.jsonSchema(d.inputSchema as Parameters<typeof ai.jsonSchema>[0])
    tools[d.name] = d.name === "subagent"
      ? ai.tool({
        description: d.description,
        inputSchema,
        execute: (args: unknown, options: { readonly abortSignal?: AbortSignal | undefined }) => {
          const call = subagent(args, options.abortSignal)
          return withProgress(kit.on, claimed, call.prompt, call.result.then((r) => r.structured ?? r.text))
        }
      })
      : ai.tool({
        description: d.description,
        inputSchema,
        execute: (args: unknown, options: { readonly abortSignal?: AbortSignal | undefined }) => d.execute(args, { signal: options.abortSignal })
      })
  }
  return tools as T
}

/** The kit calls `announcementsStep` uses. */
export interface AnnouncementSource {
  readonly announcements: (parent?: string) => Promise<ReadonlyArray<Announcement>>
  readonly children: () => Promise<ReadonlyArray<ChildInfo>>
  readonly wait: (handles?: ReadonlyArray<string>, options?: { readonly timeoutMs?: number | undefined }) => Promise<ReadonlyArray<ChildResult | ChildInfo>>
}

export interface AnnouncementsStepOptions {
  /** Whose background children to announce: default `main`, the kit's own (those the tools start). */
  readonly parent?: string | undefined
  /**
   * When nothing is to be announced but background children are still running, hold the model
   * call up to this long for them (default 0: never wait). Outcomes that arrive later come at a
   * later step.
   */
  readonly waitMs?: number | undefined
}

/** The message a background outcome becomes, for the model. */
export const announcementText = (a: { readonly handle: string; readonly agent: string; readonly status: string; readonly result?: ChildResult | undefined }): string =>
  `[background subagent ${a.handle} (${a.agent}) ${a.status}]${a.result === undefined ? "" : `\n${a.result.text}`}` +
  (a.result?.notes === undefined ? "" : `\nNotes: ${a.result.notes}`)

/**
 * A `prepareStep` for the AI SDK (`generateText`, `streamText`, `ToolLoopAgent`): before each
 * model call it takes `kit.announcements(parent)` — background outcomes, each handed out once and
 * marked delivered — and appends them to the step's messages as one user message. The AI SDK
 * carries the override forward, so the model sees each outcome once, in order.
 */
export const announcementsStep = (kit: AnnouncementSource, options: AnnouncementsStepOptions = {}) => {
  const parent = options.parent ?? "main"
  const waitMs = options.waitMs ?? 0
  const outcomes = async (): Promise<ReadonlyArray<string>> => {
    const taken = await kit.announcements(parent)
    if (taken.length > 0 || waitMs <= 0) return taken.map(announcementText)
    const running = (await kit.children()).filter((c) => c.parent === parent && (c.status === "running" || c.status === "queued")).map((c) => c.handle)
    if (running.length === 0) return []
    // `wait` hands the outcomes out as `announcements` would: they are not announced again.
    const settled = await kit.wait(running, { timeoutMs: waitMs })
    return settled.flatMap((r) => ("text" in r ? [announcementText({ ...r, result: r })] : []))
  }
  return async <M,>(step: { readonly messages: Array<M> }): Promise<{ messages?: Array<M> }> => {
    const texts = await outcomes()
    if (texts.length === 0) return {}
    return { messages: [...step.messages, { role: "user", content: texts.join("\n\n") } as M] }
  }
}
