import { SdkServer } from "@dsh/sdk"
import { Effect } from "effect"
import type { CliContext } from "../Context.ts"
import { prepareProtocolServe } from "../ProtocolServe.ts"
import { Version } from "@dsh/core"

/**
 * `dsh sdk`: serves the dsh SDK protocol (JSON-RPC over stdio, see `@dsh/sdk`'s PROTOCOL.md)
 * until stdin closes, then exits by itself; every prompt still running is cancelled first.
 * stdout carries only frames. The flags are defaults for `session.create`; a bad `--cwd` or
 * `--model` is reported before anything is served (exit 2), so a parent sees the reason on stderr.
 */
export const sdkCommand = (args: ReadonlyArray<string>, ctx: CliContext) =>
  Effect.gen(function*() {
    const { agent, cwd, serve, model } = yield* prepareProtocolServe("sdk", args, ctx)
    yield* serve(SdkServer.serveSdk({
      input: ctx.stdin,
      output: ctx.stdout,
      serverInfo: { name: "dsh", version: Version.VERSION },
      defaults: { cwd, agent, model },
      // process.stdout stays open; the process exits once serving is over.
      endOutput: false
    }))
  })
