import { LocalProcessLauncher, ProcessLauncher } from "@dsh/subprocess"
import { Effect } from "effect"

const program = Effect.gen(function*() {
  const launcher = yield* ProcessLauncher

  // Run to completion: output collected; on timeout the whole process tree is stopped.
  const result = yield* launcher.run({ command: "bash", args: ["-c", "echo hello; sleep 60 & wait"], timeout: "1 second" })
  console.log(JSON.stringify(result.stdout), result.timedOut, result.signal) // "hello\n" true SIGTERM

  // The environment is scrubbed: credentials never pass unless given explicitly in `env`.
  const env = yield* launcher.run({ command: "bash", args: ["-c", "echo ${MY_API_KEY:-unset} $GREETING"], env: { GREETING: "hi" } })
  console.log(env.stdout.trim(), env.exitCode) // unset hi 0

  // A long-lived child (a protocol peer): stopped with the SIGTERM → SIGKILL ladder when its scope closes.
  yield* Effect.scoped(Effect.gen(function*() {
    const child = yield* launcher.spawn({ command: "cat" })
    child.stdin?.write("ping\n")
    const [line] = yield* Effect.tryPromise(() => child.stdout.take(1).toArray())
    console.log(String(line).trim()) // ping
  }))
})

process.env.MY_API_KEY = "sk-secret" // set in the parent: the children never see it
Effect.runPromise(program.pipe(Effect.provide(LocalProcessLauncher.layer())))
