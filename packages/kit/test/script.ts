import { type Script, ScriptedModel } from "@dsh/llm-scripted"

const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })

/** One script plays every agent of the tests; each child is known by its system prompt. */
export const script: Script.Script = {
  rules: [
    // researcher: answers, and follows up when continued
    { when: { system: "^You research", lastUser: "^and the sources" }, reply: { text: "sources: the docs (asked first: {{1}})" } },
    { when: { system: "^You research" }, reply: { text: "researched: {{lastUser}}" } },
    // reviewer: from an agent file
    { when: { system: "^You review" }, reply: { text: "reviewed: {{lastUser}}" } },
    // deployer: calls the app's deploy tool, then says what it heard
    { when: { system: "^You deploy", lastUser: "^which tools", hasTool: "report" }, reply: { text: "report is offered" } },
    { when: { system: "^You deploy", step: 0 }, reply: call("deploy", { env: "{{lastUser}}" }) },
    { when: { system: "^You deploy" }, reply: { text: "deploy said: {{lastTool|firstLine}}" } },
    // manager: hands its task to a waiter of its own (a grandchild of the kit)
    { when: { system: "^You manage", step: 0 }, reply: call("subagent", { agent: "waiter", description: "wait", prompt: "wait" }) },
    // waiter: never answers until stopped
    { when: { system: "^You wait" }, reply: { hang: true } },
    // extractor: reports structured results, or never does
    { when: { system: "^You extract", lastUser: "^valid", step: 0 }, reply: call("report", { result: "found Ada", json: { name: "Ada", age: 36 } }) },
    { when: { system: "^You extract", lastUser: "^invalid-once", step: 0 }, reply: call("report", { result: "found Ada", json: { name: "Ada", age: "old" } }) },
    { when: { system: "^You extract", lastUser: "^invalid-once", step: 1 }, reply: call("report", { result: "fixed", json: { name: "Ada", age: 36 } }) },
    { when: { system: "^You extract", lastUser: "^refined", step: 0 }, reply: call("report", { result: "found a child", json: { name: "Ada", age: 3 } }) },
    { when: { system: "^You extract", lastUser: "^Your result was not accepted", step: 0 }, reply: call("report", { result: "older now", json: { name: "Ada", age: 36 } }) },
    // stubborn: never reports, however often it is asked
    { when: { system: "^You refuse" }, reply: { text: "no structure here" } },
    { when: { system: "^You extract" }, reply: { text: "done" } },
    // the lead
    { when: { system: "^You are Bob" }, reply: { text: "Bob here, with {{lastUser}}" } },
    { when: { lastUser: "^hello", step: 0 }, reply: call("subagent", { agent: "researcher", description: "one question", prompt: "What is the answer?" }) },
    { when: { lastUser: "^start a waiter", step: 0 }, reply: call("subagent", { agent: "waiter", description: "wait", prompt: "wait", background: true }) },
    { reply: { text: "lead: {{lastTool|firstLine}}" } }
  ]
}

export const model = ScriptedModel.make(script)

export const agents = {
  researcher: { description: "answers one question", instructions: "You research one question." },
  waiter: { description: "never finishes", instructions: "You wait forever." },
  extractor: { description: "extracts a person", instructions: "You extract a person." },
  stubborn: { description: "never reports", instructions: "You refuse to report." },
  deployer: { description: "deploys", instructions: "You deploy.", tools: ["deploy"] },
  manager: { description: "delegates to a waiter", instructions: "You manage a waiter.", subagents: ["waiter"] }
}
