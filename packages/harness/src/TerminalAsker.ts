import { Asker } from "@dsh/tools"
import { Effect } from "effect"
import type { Readable, Writable } from "node:stream"

/** How an answer typed at the prompt reads (case-insensitive); anything else asks again. */
const ANSWERS: ReadonlyArray<readonly [RegExp, Asker.PermissionAnswer]> = [
  [/^(y|yes|1|once)$/i, { allow: true, remember: "once", by: "user" }],
  [/^(a|always|2)$/i, { allow: true, remember: "session", by: "user" }],
  [/^(n|no|3|d|deny)$/i, { allow: false, by: "user" }]
]

/** The question as printed: who wants what, why it is asked, and the three answers. */
export const terminalQuestion = (question: Asker.PermissionQuestion): string =>
  `\n? ${Asker.questionText(question)}  (${question.reason})\n  [y] allow once   [a] always, for this session   [n] deny\n> `

/**
 * An `Asker` on a terminal: the question goes to `output` (stderr, so stdout stays the
 * run's), the answer is a line read from `input`. `Permissions` asks one question at a time,
 * so questions from concurrent children come one after another. An input that ends denies;
 * an interrupted question stops reading.
 */
export const terminalAsker = (options: { readonly input: Readable; readonly output: Writable }): Asker.AskerShape => ({
  ask: (question) =>
    Effect.callback<Asker.PermissionAnswer>((resume) => {
      const { input, output } = options
      let buffer = ""
      const cleanup = () => {
        input.off("data", onData)
        input.off("end", onEnd)
        input.pause()
      }
      const onData = (chunk: Buffer | string) => {
        buffer = (buffer + chunk.toString()).replace(/\r\n?/g, "\n")
        for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
          const line = buffer.slice(0, nl).trim()
          buffer = buffer.slice(nl + 1)
          const answer = ANSWERS.find(([re]) => re.test(line))?.[1]
          if (answer === undefined) {
            output.write(`  answer y (allow once), a (always, for this session) or n (deny)\n> `)
            continue
          }
          cleanup()
          output.write(answer.allow ? `  allowed${answer.remember === "session" ? " for this session" : " once"}\n` : "  denied\n")
          return resume(Effect.succeed(answer.allow ? answer : { ...answer, reason: `the user denied ${question.subject}` }))
        }
      }
      const onEnd = () => {
        cleanup()
        resume(Effect.succeed({ allow: false, by: "user", reason: `${question.subject} was not answered (the terminal's input ended)` }))
      }
      // Listening before the question is out: an answer typed (or piped) at once is not lost.
      input.on("data", onData)
      input.once("end", onEnd)
      output.write(terminalQuestion(question))
      input.resume()
      return Effect.sync(cleanup)
    })
})
