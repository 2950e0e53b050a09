import { FromSpawn, LocalProcessLauncher, ProcessLauncher } from "@dsh/subprocess"
import { Effect, Stream } from "effect"

const program = Effect.gen(function*() {
  const launcher = yield* ProcessLauncher.ProcessLauncher

  // Run to completion: output collected; on timeout the whole process tree is stopped.
  const result = yield* launcher.run({ command: "bash", args: ["-c", "echo hello; sleep 60 & wait"], timeout: "1 second" })
  console.log(JSON.stringify(result.stdout), result.timedOut, result.signal) // "hello\n" true SIGTERM

  // The environment is scrubbed: credentials never pass unless given explicitly in `env`.
  const env = yield* launcher.run({ command: "bash", args: ["-c", "echo ${MY_API_KEY:-unset} $GREETING"], env: { GREETING: "hi" } })
  console.log(env.stdout.trim(), env.exitCode) // unset hi 0

  // A long-lived child (a protocol peer): stdin is a Sink (its stream's end is EOF), stdout a Stream;
  // stopped with the SIGTERM → SIGKILL ladder when its scope closes.
  yield* Effect.scoped(Effect.gen(function*() {
    const child = yield* launcher.spawn({ command: "tr", args: ["a-z", "A-Z"] })
    yield* Stream.run(Stream.make(new TextEncoder().encode("ping\n")), child.stdin)
    console.log((yield* Stream.mkString(Stream.decodeText(child.stdout))).trim()) // PING
  }))
})

// A launcher is one function: `spawn`; `fromSpawn` derives `run`. This one prefixes every
// command, as an ssh or container launcher would prefix `ssh host` or `docker exec box`.
const local = LocalProcessLauncher.make()
const prefixed = FromSpawn.fromSpawn((options) => local.spawn({ ...options, command: "env", args: ["VIA=prefix", options.command, ...(options.args ?? [])] }))

process.env.MY_API_KEY = "sk-secret" // set in the parent: the children never see it
Effect.runPromise(program.pipe(Effect.provide(LocalProcessLauncher.layer())))
  .then(() => Effect.runPromise(prefixed.run({ command: "bash", args: ["-c", "echo $VIA"] })))
  .then((r) => console.log(r.stdout.trim())) // prefix
