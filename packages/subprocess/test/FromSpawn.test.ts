import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { FromSpawn, LocalProcessLauncher, ProcessLauncher, SubprocessError, WebStdio } from "../src/index.ts"
import { ProcessLauncherSuite } from "../src/conformance.ts"

const local = LocalProcessLauncher.make({ killGrace: "1 second" })

/**
 * A launcher written as one function, the way an ssh or container launcher would prefix
 * `ssh host` or `docker exec ctr`: every command runs under `env DSH_VIA=prefix`. A remote
 * shell only reports a missing command as exit 127, so it asks first (as `ssh host command -v`
 * would), keeping `SpawnFailed` typed.
 */
const prefixedSpawn: ProcessLauncher.Spawn = (options) =>
  local.run({ command: "sh", args: ["-c", "command -v \"$1\" >/dev/null", "sh", options.command], cwd: options.cwd }).pipe(
    Effect.flatMap((found) =>
      found.exitCode === 0
        ? local.spawn({ ...options, command: "env", args: ["DSH_VIA=prefix", options.command, ...(options.args ?? [])] })
        : Effect.fail(new SubprocessError.SubprocessError({ reason: "SpawnFailed", command: options.command, detail: `command not found: ${options.command}` }))
    )
  )

const prefixed = FromSpawn.fromSpawn(prefixedSpawn)

ProcessLauncherSuite.processLauncherSuite("a launcher written as one spawn function (env prefix)", Layer.succeed(ProcessLauncher.ProcessLauncher, prefixed))

describe("fromSpawn", () => {
  it.live("the derived run goes through the one spawn function", () =>
    Effect.gen(function*() {
      const result = yield* prefixed.run({ command: "bash", args: ["-c", "echo $DSH_VIA"] })
      assert.strictEqual(result.stdout, "prefix\n", "the command ran under the prefix")
    }))

  it.live("the maxOutputBytes default of fromSpawn applies when a run sets none", () =>
    Effect.gen(function*() {
      const capped = FromSpawn.fromSpawn(local.spawn, { maxOutputBytes: 10 })
      const result = yield* capped.run({ command: "bash", args: ["-c", "echo 0123456789abcdef"] })
      assert.strictEqual(result.stdout, "0123456789", "ten bytes kept")
      assert.isTrue(result.truncated, "the rest was dropped and said so")
    }))
})

describe("childWebStdio / childNodeStdio", () => {
  it.live("web streams over a handle round-trip bytes; closing the writable is EOF", () =>
    Effect.scoped(Effect.gen(function*() {
      const child = yield* local.spawn({ command: "cat" })
      const io = yield* WebStdio.childWebStdio(child)
      const text = yield* Effect.promise(async () => {
        const writer = io.writable.getWriter()
        await writer.write(new TextEncoder().encode("hello "))
        await writer.write(new TextEncoder().encode("world\n"))
        await writer.close()
        let out = ""
        for await (const chunk of io.readable) out += new TextDecoder().decode(chunk)
        return out
      })
      assert.strictEqual(text, "hello world\n", "what went in came back")
      assert.strictEqual((yield* child.exit).exitCode, 0, "cat exited normally at EOF")
    })))

  it.live("cancelling the readable keeps draining stdout, so the child is never stuck on a full pipe", () =>
    Effect.scoped(Effect.gen(function*() {
      const child = yield* local.spawn({ command: "bash", args: ["-c", "head -c 2000000 /dev/zero; exit 0"], stdin: "ignore" })
      const io = yield* WebStdio.childWebStdio(child)
      yield* Effect.promise(async () => {
        const reader = io.readable.getReader()
        await reader.read()
        await reader.cancel()
      })
      assert.strictEqual((yield* child.exit).exitCode, 0, "the child wrote everything and exited")
    })))

  it.live("Node streams over a handle keep order and end with the child", () =>
    Effect.scoped(Effect.gen(function*() {
      const child = yield* local.spawn({ command: "bash", args: ["-c", "while read -r l; do echo \"got $l\"; done"] })
      const io = yield* WebStdio.childNodeStdio(child)
      const out = yield* Effect.promise(async () => {
        for (let i = 0; i < 100; i++) io.stdin.write(`${i}\n`)
        io.stdin.end()
        let text = ""
        for await (const chunk of io.stdout) text += (chunk as Buffer).toString()
        return text
      })
      assert.strictEqual(out, Array.from({ length: 100 }, (_, i) => `got ${i}\n`).join(""), "every line, in order")
      assert.strictEqual((yield* child.exit).exitCode, 0, "the loop ended at EOF")
      const unused = yield* Stream.runCollect(child.stderr)
      assert.deepStrictEqual(unused, [], "nothing on stderr")
    })))
})
