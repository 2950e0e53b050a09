import type { AgentDefinition } from "@dsh/agent"
import { Usage } from "@dsh/core"
import { ScriptedModel } from "@dsh/llm-scripted"
import { Subagents, SubagentTree, type Vocabulary } from "@dsh/subagent"
import { type OutOfProcessBackend, OutOfProcessDriver } from "@dsh/subagent-outofprocess"
import { LocalProcessLauncher, WebStdio } from "@dsh/subprocess"
import { Effect, Schema } from "effect"
import { createInterface } from "node:readline"

class ShoutError extends Schema.TaggedError<ShoutError>()("ShoutError", { message: Schema.String }) {}

// The child: a real process with a line protocol (`hello` → `ready`, then one answer per line).
const CHILD = `require("node:readline").createInterface({ input: process.stdin }).on("line", (line) =>
  line === "exit" ? process.exit(3) : console.log(line === "hello" ? "ready" : line.toUpperCase()))`

/** The live connection: sends a line, reads the answer. */
type Ask = (line: string) => Effect.Effect<string, ShoutError>

// Only the protocol: the driver spawns, records the transcript, cleans up and stops the process.
const shout: OutOfProcessBackend.OutOfProcessBackend<Ask, ShoutError> = {
  specificationVersion: "v1",
  name: "shout",
  description: "a child process that answers in capitals",
  turnEvents: "driver", // this protocol has no turn events: the driver frames each turn
  cancelGrace: "1 second",
  describe: (error) => error.message,
  launch: ({ context }) => Effect.succeed({ command: process.execPath, args: ["-e", CHILD], cwd: context.parent.cwd, exitGrace: "1 second" }),
  connect: ({ child }) =>
    Effect.gen(function*() {
      // The handle's stdio is a Stream and a Sink; a Node readline reads the Node-stream view of it.
      const io = yield* WebStdio.childNodeStdio(child)
      const answers = createInterface({ input: io.stdout })[Symbol.asyncIterator]()
      const ask: Ask = (line) =>
        Effect.tryPromise({
          try: async () => {
            io.stdin.write(`${line}\n`)
            const next = await answers.next()
            return next.done === true ? Promise.reject(new Error("EOF")) : next.value
          },
          catch: () => new ShoutError({ message: "the child exited" })
        })
      if ((yield* ask("hello")) !== "ready") return yield* new ShoutError({ message: "no handshake" })
      return { connection: ask }
    }),
  newSession: () => Effect.succeed("only"),
  prompt: (ask, turn) =>
    Effect.gen(function*() {
      const output = yield* ask(turn.text)
      yield* turn.emit({ type: "message", message: { role: "assistant", content: output } })
      return { status: "completed", output, usage: Usage.emptyUsage }
    }),
  cancel: () => Effect.void // nothing to say: the driver's ladder stops the process
}

const shouter: AgentDefinition.AgentDefinition = { name: "shouter", description: "shouts", systemPrompt: "", override: false, scope: "runtime", source: "example" }
const model = ScriptedModel.make({ rules: [] })
const parent: Vocabulary.ParentInfo = { handle: "main", depth: 0, cwd: process.cwd(), model, definition: { ...shouter, name: "lead" } }
const events: Array<string> = []

const program = Effect.gen(function*() {
  const provider = yield* OutOfProcessDriver.makeOutOfProcessProvider(shout)
  const tree = yield* SubagentTree.make({
    childContext: () => Effect.succeed({ tools: [], systemPrompt: "" }),
    onChildEvent: (handle, event) => Effect.sync(() => events.push(`${handle} ${event.type}`))
  })
  const subagents = yield* Subagents.make({ tree, providers: [provider], types: [{ name: "shouter", description: "shouts", provider: "shout", definition: shouter }] })
  const result = yield* subagents.spawn({ prompt: "ship it on friday", description: "shout", agent: "shouter" }, parent)
  console.log(result.handle, result.status, result.output) // shouter-1 completed SHIP IT ON FRIDAY
  console.log(events.join(", ")) // shouter-1 turn-start, shouter-1 message, shouter-1 message, shouter-1 turn-end
  // A fault is an outcome, not an error: the child dies mid-turn, the parent carries on.
  const crashed = yield* subagents.spawn({ prompt: "exit", description: "crash", agent: "shouter" }, parent)
  console.log(crashed.handle, crashed.status, crashed.notes) // shouter-2 failed the child exited
})

Effect.runPromise(program.pipe(Effect.scoped, Effect.provide(LocalProcessLauncher.layer())))
