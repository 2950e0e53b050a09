// Preloaded with `--import`: records the URL of every module this process loads (ESM and CommonJS)
// and writes them, one a line, to the file named by DSH_TRACE_MODULES when the process exits.
import { writeFileSync } from "node:fs"
import { registerHooks } from "node:module"

const seen = []
registerHooks({
  load(url, context, nextLoad) {
    seen.push(url)
    return nextLoad(url, context)
  }
})
process.on("exit", () => writeFileSync(process.env.DSH_TRACE_MODULES, `${seen.join("\n")}\n`))
