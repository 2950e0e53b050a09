import { type Messages, Usage } from "@dsh/core"
import { LanguageModel, LlmError } from "@dsh/llm"
import { Effect, Stream } from "effect"
import { conversationFacts, renderDeep, renderTemplate, type TemplateScope } from "./internal/template.ts"
import type { Script, ScriptReply, ScriptWhen } from "./Script.ts"

const PROVIDER = "scripted"

const test = (pattern: string | undefined, text: string): RegExpExecArray | null | true =>
  pattern === undefined ? true : new RegExp(pattern, "s").exec(text)

interface Match {
  readonly reply: ScriptReply
  readonly groups: ReadonlyArray<string>
}

const matchRule = (script: Script, request: LanguageModel.ModelRequest): Match | undefined => {
  const facts = conversationFacts(request.messages)
  const offered = new Set(request.tools.map((t) => t.name))
  const holds = (when: ScriptWhen | undefined): ReadonlyArray<string> | undefined => {
    if (when === undefined) return []
    if (when.step !== undefined && when.step !== facts.step) return undefined
    if (when.hasTool !== undefined && !offered.has(when.hasTool)) return undefined
    if (test(when.system, facts.system) === null || test(when.lastTool, facts.lastTool) === null) return undefined
    const user = test(when.lastUser, facts.lastUser)
    if (user === null) return undefined
    return user === true ? [] : [...user].map((g) => g ?? "")
  }
  for (const rule of script.rules) {
    const groups = holds(rule.when)
    if (groups !== undefined) return { reply: rule.reply, groups }
  }
  return script.fallback === undefined ? undefined : { reply: script.fallback, groups: [] }
}

/** Splits text the way a real stream would: a few words per delta. */
const chunks = (text: string): Array<string> => text.match(/\S+\s*|\s+/g)?.reduce<Array<string>>((acc, word, i) => {
  if (i % 3 === 0) acc.push(word)
  else acc[acc.length - 1] += word
  return acc
}, []) ?? []

const estimateTokens = (chars: number): number => Math.max(1, Math.ceil(chars / 4))

/**
 * A deterministic model driven by a {@link Script}. Each call finds the first rule whose
 * conditions hold for the conversation and streams its reply, with `{{…}}` placeholders
 * filled from the conversation (tool results, the user's message, regex groups).
 */
export const make = (script: Script, model = script.name ?? "script"): LanguageModel.LanguageModelShape =>
  LanguageModel.make({
    provider: PROVIDER,
    model,
    stream: (request) =>
      Stream.unwrap(Effect.gen(function*() {
        const match = matchRule(script, request)
        const facts = conversationFacts(request.messages)
        if (match === undefined) {
          return Stream.fail(new LlmError.LlmError({
            reason: "BadResponse",
            provider: PROVIDER,
            detail: `script "${model}" has no rule for step ${facts.step} of the message "${facts.lastUser.slice(0, 120)}"`,
            retryable: false
          }))
        }
        const { reply } = match
        if (reply.delayMs !== undefined && reply.delayMs > 0) yield* Effect.sleep(reply.delayMs)
        if (reply.hang === true) return yield* Effect.never
        if (reply.error !== undefined) {
          return Stream.fail(new LlmError.LlmError({
            reason: reply.error.reason,
            provider: PROVIDER,
            detail: reply.error.detail,
            retryable: false
          }))
        }
        const scope: TemplateScope = { ...facts, groups: match.groups }
        const text = renderTemplate(reply.text ?? "", scope)
        const turnIndex = request.messages.filter((m) => m.role === "assistant").length
        const calls = (reply.toolCalls ?? []).map((c, i): Messages.ToolCall => ({
          id: `call_${turnIndex}_${i}`,
          name: c.name,
          arguments: JSON.stringify(renderDeep(c.arguments ?? {}, scope))
        }))
        const inputChars = request.messages.reduce((n, m) => n + m.content.length, 0)
        const outputChars = text.length + calls.reduce((n, c) => n + c.arguments.length + c.name.length, 0)
        const usage = reply.usage === undefined
          ? Usage.make(estimateTokens(inputChars), estimateTokens(outputChars))
          : Usage.make(reply.usage.input, reply.usage.output)
        const thought = reply.reasoning === undefined ? "" : renderTemplate(reply.reasoning, scope)
        const parts: Array<LanguageModel.StreamPart> = [
          ...(thought === ""
            ? []
            : [
              ...chunks(thought).map((t): LanguageModel.StreamPart => ({ type: "reasoning-delta", text: t })),
              { type: "reasoning", part: { type: "reasoning", text: thought, provider: PROVIDER, signature: PROVIDER } } satisfies LanguageModel.StreamPart
            ]),
          ...chunks(text).map((t): LanguageModel.StreamPart => ({ type: "text-delta", text: t })),
          ...calls.map((call): LanguageModel.StreamPart => ({ type: "tool-call", call })),
          { type: "finish", reason: calls.length > 0 ? "tool-calls" : "stop", usage }
        ]
        return Stream.fromIterable(parts)
      }))
  })
