// The scripted model of src/kit.ts: data, not harness code. One script plays every agent; each
// rule answers the agent whose system prompt or latest message it matches.
const subagent = (args: Record<string, unknown>) => ({ toolCalls: [{ name: "subagent", arguments: args }] })

export const kitScript = {
  rules: [
    // researcher: answers a topic, follows up, or hangs (the grandchild the stop reaches)
    { when: { system: "^You research", lastUser: "^HANG" }, reply: { hang: true } },
    { when: { system: "^You research", lastUser: "^research (.*)" }, reply: { text: "{{1}} is done" } },
    { when: { system: "^You research" }, reply: { text: "sources for {{firstUser}}" } },
    // manager: delegates a deep dive to a researcher of its own
    { when: { system: "^You manage", step: 0 }, reply: subagent({ agent: "researcher", description: "deep dive", prompt: "HANG" }) },
    // a fork of the lead: it starts from the lead's conversation
    { when: { lastUser: "^FORK" }, reply: { text: "a fork that remembers the lead began with \"{{firstUser}}\"" } },
    // the lead, woken (or interrupted) by an announcement
    { when: { lastUser: "Handle: (\\S+).*?Status: (\\w+)" }, reply: { text: "heard from {{1}}: {{2}}" } },
    { when: { lastUser: "^background$", step: 0 }, reply: subagent({ agent: "researcher", description: "topic A", prompt: "research topic A", background: true }) },
    { when: { lastUser: "^wait$", step: 0 }, reply: subagent({ agent: "researcher", description: "topic B", prompt: "research topic B", background: true }) },
    { when: { lastUser: "^wait$", step: 1 }, reply: { toolCalls: [{ name: "wait", arguments: {} }] } },
    { when: { lastUser: "^follow-up$", step: 0 }, reply: { toolCalls: [{ name: "send_message", arguments: { to: "researcher-1", message: "and the sources?" } }] } },
    { when: { lastUser: "^fork$", step: 0 }, reply: subagent({ agent: "fork", description: "recap", prompt: "FORK recap" }) },
    { when: { lastUser: "^stop$", step: 0 }, reply: subagent({ agent: "manager", description: "deep dive", prompt: "manage the deep dive", background: true }) },
    { when: { lastUser: "^(background|stop)$" }, reply: { text: "it runs in the background" } },
    { reply: { text: "{{lastTool|firstLine}}" } }
  ]
}
