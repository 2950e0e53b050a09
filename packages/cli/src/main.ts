#!/usr/bin/env node
// A tiny entry: turn on V8's on-disk compile cache before the bundle loads, so repeated
// starts skip most of the parse/compile work (the largest part of start-up).
import { enableCompileCache } from "node:module"

enableCompileCache?.()
await import("./Cli.ts")
