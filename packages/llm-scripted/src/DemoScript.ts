import type { Script } from "./Script.ts"

/** The prompt `dsh demo` (and `npm start`) gives the main agent. */
export const DEMO_PROMPT = "Give me a tour of this repository: which packages does it have, and what are the core ones for?"

/** Packages the demo's main agent delegates to explore children, one child each. */
export const DEMO_PACKAGES = ["core", "llm", "agent"] as const

/**
 * The built-in script behind the `scripted` model spec. It drives the main agent of
 * `dsh demo` over the files of the repository it runs in, and, when the `subagent` tool
 * is offered, fans the work out to one `explore` child per core package.
 */
export const demoScript: Script = {
  name: "demo",
  rules: [
    // A child asked to describe one package reads its README and answers with its summary.
    {
      when: { lastUser: "^Describe the package \"([a-z0-9-]+)\"", step: 0 },
      reply: {
        text: "Reading the README of {{1}}.",
        toolCalls: [{ name: "Read", arguments: { path: "packages/{{1}}/README.md", limit: 12 } }]
      }
    },
    {
      when: { lastUser: "^Describe the package \"([a-z0-9-]+)\"", step: 1 },
      reply: { text: "@dsh/{{1}}: {{lastTool|summary}}" }
    },
    // The main agent with subagents: list packages, fan out, then summarize.
    {
      when: { lastUser: "tour of this repository", hasTool: "subagent", step: 0 },
      reply: {
        text: "Let me list the packages first.",
        toolCalls: [{ name: "Glob", arguments: { pattern: "packages/*/package.json" } }]
      }
    },
    {
      when: { lastUser: "tour of this repository", hasTool: "subagent", step: 1 },
      reply: {
        text: "I will ask one explore agent per core package, in parallel.",
        toolCalls: DEMO_PACKAGES.map((name) => ({
          name: "subagent",
          arguments: {
            description: `Describe ${name}`,
            agent: "explore",
            prompt: `Describe the package "${name}" of this repository in one sentence, from its README.`
          }
        }))
      }
    },
    {
      when: { lastUser: "tour of this repository", hasTool: "subagent", step: 2 },
      reply: {
        text: "This repository has {{tool:Glob|lineCount}} packages under packages/. " +
          "Three explore agents, working in parallel, reported on the core ones:\n\n{{results:subagent}}"
      }
    },
    // The main agent on its own: list packages and read the README.
    {
      when: { lastUser: "tour of this repository", step: 0 },
      reply: {
        text: "Let me look at the repository.",
        toolCalls: [
          { name: "Glob", arguments: { pattern: "packages/*/package.json" } },
          { name: "Read", arguments: { path: "README.md", limit: 12 } }
        ]
      }
    },
    {
      when: { lastUser: "tour of this repository", step: 1 },
      reply: {
        text: "{{tool:Read|summary}}\n\nIt has {{tool:Glob|lineCount}} packages:\n{{tool:Glob}}"
      }
    }
  ],
  fallback: { text: "I am the scripted demo model: I only know the demo. Try `dsh demo`." }
}
