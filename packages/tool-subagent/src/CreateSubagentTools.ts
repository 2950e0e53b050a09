import { AgentName } from "@dsh/agent"
import { Subagents, type Vocabulary } from "@dsh/subagent"
import { Tool } from "@dsh/tools"
import { Clock, Effect } from "effect"
import * as z from "zod"

const MAX_DESCRIPTION_CHARS = 1_000

/** The names of the tools `makeCreateSubagentTools` makes. */
export const CREATE_TOOL_NAMES: ReadonlyArray<string> = ["create_subagent", "update_subagent", "delete_subagent"]

export interface CreateSubagentOptions {
  /** The tools the creator itself has: a created type never gets more. */
  readonly creatorTools: ReadonlyArray<string>
}

// The seed's parameter is `system_prompt`; `systemPrompt` stays accepted as an alias (earlier
// releases and camelCase-minded models) wherever a prompt is taken.
const promptFields = (description: string) => ({
  system_prompt: z.string().optional().describe(description),
  systemPrompt: z.string().optional().describe("Alias of system_prompt")
})
/** The prompt given under either name, `system_prompt` first. */
const promptOf = (p: { readonly system_prompt?: string | undefined; readonly systemPrompt?: string | undefined }) =>
  p.system_prompt ?? p.systemPrompt

// Parameter schemas are built once: tools are made for every agent context.
const CreateParams = z.object({
  name: z.string().describe("kebab-case, unique, at most 64 characters, e.g. sql-reviewer"),
  ...promptFields("The agent's system prompt: its role, limits and output format"),
  description: z.string().optional().describe("What the agent is for (default: the system prompt's first sentence)"),
  tools: z.array(z.string()).optional().describe("Tools it may use, a subset of yours (default: all of yours)")
})
const UpdateParams = z.object({
  name: z.string().describe("The created agent type"),
  description: z.string().optional().describe("New description"),
  ...promptFields("New system prompt"),
  tools: z.array(z.string()).optional().describe("New tool subset (of your tools)")
})
const DeleteParams = z.object({ name: z.string().describe("The created agent type") })

const fail = (message: string) => Effect.fail(new Tool.ToolError({ message }))

/** The first sentence of a prompt (or its first line), bounded: the description when none is given. */
export const firstSentence = (text: string): string => {
  const line = text.trim().split("\n")[0]?.trim() ?? ""
  const end = line.search(/[.!?。！？](\s|$)/)
  const sentence = end === -1 ? line : line.slice(0, end + 1)
  return sentence.length > MAX_DESCRIPTION_CHARS ? `${sentence.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : sentence
}

const checkPrompt = (systemPrompt: string, description: string) =>
  systemPrompt.trim() === ""
    ? fail("system_prompt is empty")
    : systemPrompt.length > AgentName.MAX_SYSTEM_PROMPT_CHARS
    ? fail(`systemPrompt is ${systemPrompt.length} characters; the limit is ${AgentName.MAX_SYSTEM_PROMPT_CHARS}`)
    : description.trim() === ""
    ? fail("description is empty: say what this agent is for")
    : description.length > MAX_DESCRIPTION_CHARS
    ? fail(`description is longer than ${MAX_DESCRIPTION_CHARS} characters`)
    : Effect.void

/** The creator's tools, narrowed to the requested ones; asking for more is an error. */
const narrowTools = (requested: ReadonlyArray<string> | undefined, creator: ReadonlyArray<string>) => {
  if (requested === undefined) return Effect.succeed([...creator])
  const extra = requested.filter((t) => !creator.includes(t))
  return extra.length > 0
    ? fail(`a created agent cannot have tools you do not have: ${extra.join(", ")} (yours: ${creator.join(", ")})`)
    : Effect.succeed([...requested])
}

const persisted = <A, E extends { readonly message: string }>(effect: Effect.Effect<A, E>) =>
  effect.pipe(Effect.mapError((e) => new Tool.ToolError({ message: `could not save the session's agent types: ${e.message}` })))

/**
 * `create_subagent {name, system_prompt, description?, tools?}` (and `update_subagent`,
 * `delete_subagent`) over the `Subagents` of the creator's context: registers a new agent type
 * at once (the next `subagent` call can use it), persisted with the session and restored when
 * it is loaded. Names are validated and never clash with an existing type.
 */
export const make = (parent: Vocabulary.ParentInfo, options: CreateSubagentOptions) =>
  Effect.gen(function*() {
    return createTools(yield* Subagents.Subagents, parent, options)
  })

const createTools = (subagents: Subagents.Subagents["Service"], parent: Vocabulary.ParentInfo, options: CreateSubagentOptions) => {
  const dynamic = subagents.tree.dynamicTypes
  const mineOnly = (name: string) =>
    Effect.suspend(() => {
      const spec = dynamic.get(name)
      return spec === undefined
        ? fail(`"${name}" is not an agent created in this session; created: ${dynamic.all().map((d) => d.name).join(", ") || "(none)"}`)
        : Effect.succeed(spec)
    })
  const create = Tool.defineTool({
    name: "create_subagent",
    description: "Create a new agent type for delegation: a name and its system prompt (optionally what it is for, " +
      "and the subset of your tools it may use). It can be used by the subagent tool right away and stays for the session.",
    parameters: CreateParams,
    summarize: (p) => `create ${p.name}`,
    execute: (p) =>
      Effect.gen(function*() {
        const invalid = AgentName.validateAgentName(p.name)
        if (invalid !== undefined) return yield* fail(invalid)
        const systemPrompt = promptOf(p)
        if (systemPrompt === undefined) return yield* fail("system_prompt is required: the new agent's role, limits and output format")
        const description = p.description ?? firstSentence(systemPrompt)
        yield* checkPrompt(systemPrompt, description)
        const existing = yield* subagents.typeNames
        if (existing.includes(p.name)) return yield* fail(`Subagent with name '${p.name}' already exists; choose another name.`)
        const tools = yield* narrowTools(p.tools, options.creatorTools)
        yield* persisted(dynamic.put({
          name: p.name,
          description,
          systemPrompt,
          tools,
          createdBy: parent.handle,
          createdAt: new Date(yield* Clock.currentTimeMillis).toISOString()
        }))
        // The seed's success result: the message, then every type now available (fixed and dynamic).
        const available = yield* subagents.typeNames
        return `Subagent '${p.name}' created successfully.\nAvailable subagents: ${available.join(", ")}`
      })
  })
  const update = Tool.defineTool({
    name: "update_subagent",
    description: "Change an agent type you created in this session: its description, system prompt or tools.",
    parameters: UpdateParams,
    execute: (p) =>
      Effect.gen(function*() {
        const spec = yield* mineOnly(p.name)
        const prompt = promptOf(p)
        const next = { ...spec, ...(p.description === undefined ? {} : { description: p.description }), ...(prompt === undefined ? {} : { systemPrompt: prompt }) }
        yield* checkPrompt(next.systemPrompt, next.description)
        const tools = p.tools === undefined ? spec.tools : yield* narrowTools(p.tools, options.creatorTools)
        yield* persisted(dynamic.put({ ...next, tools }))
        return `Updated agent type "${p.name}".`
      })
  })
  const remove = Tool.defineTool({
    name: "delete_subagent",
    description: "Delete an agent type you created in this session. Existing children of that type stay as they are.",
    parameters: DeleteParams,
    execute: (p) => mineOnly(p.name).pipe(Effect.andThen(persisted(dynamic.remove(p.name))), Effect.as(`Deleted agent type "${p.name}".`))
  })
  return [create, update, remove]
}
