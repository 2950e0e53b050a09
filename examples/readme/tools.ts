import { Approval, approvalFromRules, defineTool, makeToolbox } from "@dsh/tools"
import { Effect } from "effect"
import { z } from "zod"

const add = defineTool({
  name: "add",
  description: "Adds two numbers.",
  parameters: z.object({ a: z.number().describe("first addend"), b: z.number().describe("second addend") }),
  execute: ({ a, b }) => Effect.succeed(String(a + b))
})
const deploy = defineTool({
  name: "deploy",
  description: "Deploys the app.",
  parameters: z.object({ env: z.enum(["staging", "production"]).describe("where to deploy") }),
  needsApproval: true,
  execute: ({ env }) => Effect.succeed(`deployed to ${env}`)
})

// What the model is offered: names, descriptions and the parameters as JSON Schema.
const toolbox = makeToolbox({ tools: [add, deploy] })
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

// Tools that need approval ask the `Approval` policy in context (default: allow everything).
const approval = approvalFromRules({
  ask: (request) => Effect.succeed((request.input as { env: string }).env === "staging" ? { allowed: true } : { allowed: false, reason: "production needs a human" })
})
Effect.runPromise(program.pipe(Effect.provideService(Approval, approval)))
