import { Asker, Permissions, Tool, Toolbox } from "@dsh/tools"
import { Effect } from "effect"
import { z } from "zod"

const add = Tool.defineTool({
  name: "add",
  description: "Adds two numbers.",
  parameters: z.object({ a: z.number().describe("first addend"), b: z.number().describe("second addend") }),
  execute: ({ a, b }) => Effect.succeed(String(a + b))
})
const deploy = Tool.defineTool({
  name: "deploy",
  description: "Deploys the app.",
  parameters: z.object({ env: z.enum(["staging", "production"]).describe("where to deploy") }),
  // How permission rules see a call: `deploy(staging)`; `other` = it changes something.
  permission: { kind: "other", specifier: ({ env }) => env },
  execute: ({ env }) => Effect.succeed(`deployed to ${env}`)
})

// What the model is offered: names, descriptions and the parameters as JSON Schema.
const toolbox = Toolbox.make({ tools: [add, deploy] })
console.log(toolbox.specs.map((spec) => `${spec.name}(${Object.keys(spec.parameters.properties ?? {}).join(", ")})`).join(" ")) // add(a, b) deploy(env)

// `execute` never fails: bad arguments, unknown tools and denials come back as results the model reads.
const run = (name: string, args: string) => toolbox.execute({ id: name, name, arguments: args }, { cwd: process.cwd(), agent: "main" })
const program = Effect.gen(function*() {
  console.log((yield* run("add", "{\"a\":1,\"b\":2}")).content) // 3
  console.log((yield* run("add", "{\"a\":1}")).content) // Error: invalid arguments for add: b: Invalid input: expected number, received undefined
  console.log((yield* run("rm", "{}")).content) // Error: unknown tool "rm". Available tools: add, deploy.
  console.log((yield* run("deploy", "{\"env\":\"staging\"}")).content) // deployed to staging
  console.log((yield* run("deploy", "{\"env\":\"production\"}")).content) // Error: permission denied: production needs a human
})

// Every call is decided by the `Permissions` in context: deny > ask > allow > the mode (here
// `default`: what changes nothing runs, the rest is asked). What the rules leave open goes to
// the `Asker` in context: a terminal, an ACP or SDK client; here, code.
const asker: Asker.AskerShape = {
  ask: (question) => Effect.succeed({ allow: false, by: "ops", reason: `${question.specifier ?? question.subject} needs a human` })
}
Effect.runPromise(Effect.gen(function*() {
  const permissions = yield* Permissions.make({ mode: "default", allow: ["deploy(staging)"] })
  yield* program.pipe(Effect.provideService(Permissions.Permissions, permissions), Effect.provideService(Asker.Asker, asker))
}))
