import { type Artifact, type Message, type Part, type StreamResponse, type Task, TaskState } from "@a2a-js/sdk"
import type { Events, Usage } from "@dsh/core"

/** What a part says, as text: text as is, data as JSON, files listed. */
export const partText = (part: Part): string => {
  const c = part.content
  if (c === undefined) return ""
  switch (c.$case) {
    case "text":
      return c.value
    case "data":
      return JSON.stringify(c.value)
    case "url":
      return `[file ${part.filename === "" ? c.value : `${part.filename}: ${c.value}`}]`
    case "raw":
      return `[file ${part.filename === "" ? "(inline)" : part.filename}, ${c.value.byteLength} bytes]`
  }
}

/**
 * An artifact's parts as one text: adjacent text parts run together (streamed chunks of one
 * text), a data or file part stands on a line of its own.
 */
const joinParts = (parts: ReadonlyArray<Part>): string => {
  let out = ""
  let lastWasText = true
  for (const part of parts) {
    const text = partText(part)
    if (text === "") continue
    const isText = part.content?.$case === "text"
    out += out === "" || (isText && lastWasText) ? text : `\n${text}`
    lastWasText = isText
  }
  return out
}

export const messageText = (message: Message | undefined): string => (message?.parts ?? []).map(partText).filter((t) => t !== "").join("\n")

/**
 * A task as it is being told: its ids, state, the last status message, and its artifacts with
 * streamed chunks joined per `artifactId` (in the order they first came).
 */
export class TaskView {
  taskId: string | undefined
  contextId: string | undefined
  state: TaskState = TaskState.TASK_STATE_UNSPECIFIED
  statusText = ""
  /** A direct message answer (no task). */
  reply: string | undefined
  metadata: Record<string, unknown> | undefined
  readonly artifacts: Map<string, Array<Part>> = new Map()

  /** Applies one streamed event; returns the text it adds to the transcript (if any). */
  apply(event: StreamResponse): string | undefined {
    const p = event.payload
    if (p === undefined) return undefined
    switch (p.$case) {
      case "task":
        return this.task(p.value)
      case "message":
        this.contextId = p.value.contextId || this.contextId
        this.reply = messageText(p.value)
        return this.reply
      case "statusUpdate": {
        this.ids(p.value.taskId, p.value.contextId)
        if (p.value.metadata !== undefined) this.metadata = { ...this.metadata, ...p.value.metadata }
        if (p.value.status !== undefined) return this.status(p.value.status.state, p.value.status.message)
        return undefined
      }
      case "artifactUpdate": {
        this.ids(p.value.taskId, p.value.contextId)
        if (p.value.artifact !== undefined) this.artifact(p.value.artifact, p.value.append)
        return undefined
      }
    }
  }

  /** Takes a whole task (a snapshot from send, get or the stream's first event). */
  task(task: Task): string | undefined {
    this.ids(task.id, task.contextId)
    if (task.metadata !== undefined) this.metadata = { ...this.metadata, ...task.metadata }
    if (task.artifacts.length > 0) {
      this.artifacts.clear()
      for (const a of task.artifacts) this.artifact(a, false)
    }
    return task.status === undefined ? undefined : this.status(task.status.state, task.status.message)
  }

  private ids(taskId: string, contextId: string) {
    if (taskId !== "") this.taskId = taskId
    if (contextId !== "") this.contextId = contextId
  }

  private status(state: TaskState, message: Message | undefined): string | undefined {
    this.state = state
    const text = messageText(message)
    if (text === "") return undefined
    this.statusText = text
    return text
  }

  private artifact(artifact: Artifact, append: boolean) {
    const known = this.artifacts.get(artifact.artifactId)
    if (append && known !== undefined) known.push(...artifact.parts)
    else this.artifacts.set(artifact.artifactId, [...artifact.parts])
  }

  /** The run's result: its artifacts' parts joined, else the agent's last message. */
  result(): string {
    const fromArtifacts = [...this.artifacts.values()].map(joinParts).filter((t) => t !== "").join("\n\n")
    if (fromArtifacts !== "") return fromArtifacts
    return this.reply ?? this.statusText
  }

  /** Whether the task is over (or waits for the caller). */
  settled(): boolean {
    return this.reply !== undefined || [
      TaskState.TASK_STATE_COMPLETED,
      TaskState.TASK_STATE_FAILED,
      TaskState.TASK_STATE_CANCELED,
      TaskState.TASK_STATE_REJECTED,
      TaskState.TASK_STATE_INPUT_REQUIRED,
      TaskState.TASK_STATE_AUTH_REQUIRED
    ].includes(this.state)
  }

  /** Waits for the caller: the child ends idle with the agent's question, continuable. */
  waiting(): boolean {
    return this.state === TaskState.TASK_STATE_INPUT_REQUIRED || this.state === TaskState.TASK_STATE_AUTH_REQUIRED
  }

  /** The status the runtime reports, and a note when the agent's state says more. */
  outcome(): { readonly status: Events.RunStatus; readonly notes?: string } {
    if (this.reply !== undefined) return { status: "completed" }
    switch (this.state) {
      case TaskState.TASK_STATE_COMPLETED:
        return { status: "completed" }
      case TaskState.TASK_STATE_INPUT_REQUIRED:
        return { status: "completed", notes: "the agent asks for input: answer it with send_message" }
      case TaskState.TASK_STATE_AUTH_REQUIRED:
        return { status: "completed", notes: "the agent asks for authentication: answer it with send_message" }
      case TaskState.TASK_STATE_CANCELED:
        return { status: "cancelled", notes: "the agent cancelled the task" }
      case TaskState.TASK_STATE_REJECTED:
        return { status: "failed", notes: `the agent rejected the task${this.statusText === "" ? "" : `: ${firstLine(this.statusText)}`}` }
      case TaskState.TASK_STATE_FAILED:
        return { status: "failed", notes: `the agent's task failed${this.statusText === "" ? "" : `: ${firstLine(this.statusText)}`}` }
      default:
        return { status: "failed", notes: "the agent's stream ended before its task did" }
    }
  }

  /** Usage from the task's metadata (`usage` with input/output tokens, or the same at its top), when reported. */
  usage(): Usage.Usage | undefined {
    const m = this.metadata
    if (m === undefined) return undefined
    const u = (typeof m.usage === "object" && m.usage !== null ? m.usage : m) as Record<string, unknown>
    const num = (...keys: Array<string>) => {
      for (const k of keys) if (typeof u[k] === "number") return u[k] as number
      return undefined
    }
    const input = num("inputTokens", "input_tokens", "promptTokens", "prompt_tokens")
    const output = num("outputTokens", "output_tokens", "completionTokens", "completion_tokens")
    if (input === undefined && output === undefined) return undefined
    const total = num("totalTokens", "total_tokens") ?? (input ?? 0) + (output ?? 0)
    return { inputTokens: input ?? 0, outputTokens: output ?? 0, totalTokens: total }
  }
}

export const firstLine = (text: string): string => (text.split("\n")[0] ?? text).slice(0, 300)
