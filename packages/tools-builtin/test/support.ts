import { mkdtempSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Messages } from "@dsh/core"
import { LocalProcessLauncher } from "@dsh/subprocess"
import { Toolbox } from "@dsh/tools"
import { Effect } from "effect"
import { BuiltinTools } from "../src/index.ts"

/** A fresh real directory (realpath, so messages compare equal on systems with a symlinked tmp). */
export const tempDir = (): string => realpathSync(mkdtempSync(join(tmpdir(), "dsh-tools-")))

export const toolbox: Effect.Effect<Toolbox.Toolbox> = BuiltinTools.make.pipe(
  Effect.map((tools) => Toolbox.make({ tools })),
  Effect.provide(LocalProcessLauncher.layer({ killGrace: "1 second" }))
)

let nextId = 0

/** Calls a tool the way the turn loop does: raw JSON arguments, validation included. */
export const call = (cwd: string, name: string, args: unknown): Effect.Effect<Messages.ToolMessage> =>
  Effect.flatMap(toolbox, (box) =>
    box.execute({ id: `call-${++nextId}`, name, arguments: typeof args === "string" ? args : JSON.stringify(args) }, { cwd, agent: "main" }))
