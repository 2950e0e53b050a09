import { Messages } from "@dsh/core"
import { ModelRegistry } from "@dsh/llm"
import { type Script, ScriptedAdapter } from "@dsh/llm-scripted"
import { Effect } from "effect"

// Each model call takes the first rule whose conditions hold; strings are templates.
const review: Script.Script = {
  rules: [
    { when: { lastUser: "^review (\\S+)", step: 0 }, reply: { text: "Reading {{1}}.", toolCalls: [{ name: "Read", arguments: { path: "{{1}}" } }] } },
    { when: { step: 1 }, reply: { text: "`{{lastTool|firstLine}}` looks fine.", usage: { input: 120, output: 8 } } }
  ],
  fallback: { text: "I only review files." }
}

const program = Effect.gen(function*() {
  const model = yield* (yield* ModelRegistry.ModelRegistry).resolve("scripted:review")
  const ask = (messages: ReadonlyArray<Messages.Message>) => model.generate({ messages, tools: [] })

  const conversation: Array<Messages.Message> = [Messages.userMessage("review src/answer.ts")]
  const first = yield* ask(conversation)
  const call = first.message.toolCalls?.[0]
  console.log(first.message.content, call?.name, call?.arguments) // Reading src/answer.ts. Read {"path":"src/answer.ts"}

  // The harness runs the tool and hands its result back: the next rule matches step 1.
  conversation.push(first.message, { role: "tool", toolCallId: call?.id ?? "", name: "Read", content: "export const answer = 42\n" })
  const second = yield* ask(conversation)
  console.log(second.message.content, second.usage.totalTokens) // `export const answer = 42` looks fine. 128

  console.log((yield* ask([Messages.userMessage("hello")])).message.content) // I only review files.
})

// `scripted:review` resolves the script by name; `scripted:<file>.json` would load a file.
Effect.runPromise(program.pipe(Effect.provide(ModelRegistry.layerWith([ScriptedAdapter.make({ scripts: { review } })]))))
