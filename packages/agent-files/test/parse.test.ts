import { describe, expect, it } from "vitest"
import { AgentName } from "@dsh/agent"
import { AgentFile, AgentFileParts } from "../src/index.ts"

const loaded = (result: AgentFile.AgentFileResult) => {
  if (result._tag !== "Loaded") throw new Error(`expected Loaded, got: ${result.reason}`)
  return result
}
const invalid = (result: AgentFile.AgentFileResult) => {
  if (result._tag !== "Invalid") throw new Error(`expected Invalid, got ${result.definition.name}`)
  return result.reason
}
const parse = (frontmatter: string, body = "Prompt body.", path = "/agents/sample.md") =>
  AgentFile.parseAgentFile(`---\n${frontmatter}\n---\n${body}\n`, path)

describe("parseAgentFile: fields", () => {
  it("reads the documented fields and uses the body as the system prompt", () => {
    const { definition, warnings } = loaded(parse(
      [
        "name: reviewer",
        "description: Strict code reviewer",
        "whenToUse: Code review and PR checks",
        "override: false",
        "tools:",
        "  - Read",
        "  - Grep",
        "  - mcp__github__*",
        "disallowedTools:",
        "  - Bash",
        "subagents: explore, plan",
        "model: openai:gpt-4.1"
      ].join("\n"),
      "\nYou are a strict reviewer.\n\nReport by severity."
    ))
    expect(definition).toMatchObject({
      name: "reviewer",
      description: "Strict code reviewer",
      whenToUse: "Code review and PR checks",
      override: false,
      tools: ["Read", "Grep", "mcp__github__*"],
      disallowedTools: ["Bash"],
      subagents: ["explore", "plan"],
      model: "openai:gpt-4.1",
      scope: "explicit",
      source: "/agents/sample.md",
      systemPrompt: "You are a strict reviewer.\n\nReport by severity."
    })
    expect(warnings).toEqual([])
  })

  it("defaults the name to the file name (and drops a Copilot `.agent.md` suffix)", () => {
    expect(loaded(parse("description: d", "b", "/x/review.md")).definition.name).toBe("review")
    expect(loaded(parse("description: d", "b", "/x/security-audit.agent.md")).definition.name).toBe("security-audit")
    expect(loaded(parse("name: \"\"\ndescription: d", "b", "/x/empty-name.md")).definition.name).toBe("empty-name")
  })

  it("ignores unknown fields (Claude Code color, Gemini kind, OpenCode temperature)", () => {
    const { definition, warnings } = loaded(parse("description: d\ncolor: blue\nkind: local\ntemperature: 0.1\nfuture_field: [1, 2]"))
    expect(definition.name).toBe("sample")
    expect(warnings).toEqual([])
  })

  it("accepts when_to_use and a string override", () => {
    const { definition } = loaded(parse("description: d\nwhen_to_use: |\n  Use it for X.\noverride: \"true\""))
    expect(definition.whenToUse).toBe("Use it for X.")
    expect(definition.override).toBe(true)
  })

  it("reads isolation: worktree (Claude Code's field); another value is ignored with a warning", () => {
    expect(loaded(parse("description: d\nisolation: worktree")).definition.isolation).toBe("worktree")
    expect(loaded(parse("description: d")).definition.isolation).toBeUndefined()
    const other = loaded(parse("description: d\nisolation: container"))
    expect(other.definition.isolation).toBeUndefined()
    expect(other.warnings.join()).toMatch(/isolation: "container" is not "worktree"/)
  })

  it("treats a non-boolean override as false, with a warning", () => {
    const { definition, warnings } = loaded(parse("description: d\noverride: maybe"))
    expect(definition.override).toBe(false)
    expect(warnings.join()).toMatch(/override/)
  })

  it("keeps the model as written (specs, aliases, vendor ids, provider/model, inherit); the registry resolves it later", () => {
    for (const model of ["anthropic:claude-sonnet-4-5", "sonnet", "claude-haiku-4-5", "anthropic/claude-haiku-4-5", "inherit"]) {
      const { definition, warnings } = loaded(parse(`description: d\nmodel: ${model}`))
      expect(definition.model).toBe(model)
      expect(warnings).toEqual([])
    }
    const list = loaded(parse("description: d\nmodel: [a, b]"))
    expect(list.definition.model).toBeUndefined()
    expect(list.warnings.join()).toMatch(/model: \["a","b"\] is not one model name/)
  })
})

describe("parseAgentFile: tool lists", () => {
  const tools = (value: string) => loaded(parse(`description: d\ntools: ${value}`)).definition.tools

  it("accepts a comma-separated string, a block list and a flow list", () => {
    expect(tools("Read, Grep,Glob")).toEqual(["Read", "Grep", "Glob"])
    expect(loaded(parse("description: d\ntools:\n  - Read\n  - Bash")).definition.tools).toEqual(["Read", "Bash"])
    expect(tools("[\"Read\", \"Grep\"]")).toEqual(["Read", "Grep"])
  })

  it("a lone * means all (undefined); [] means none; absent and null mean all", () => {
    expect(tools("'*'")).toBeUndefined()
    expect(tools("[\"*\"]")).toBeUndefined()
    expect(tools("[]")).toEqual([])
    expect(loaded(parse("description: d")).definition.tools).toBeUndefined()
    expect(loaded(parse("description: d\ntools:")).definition.tools).toBeUndefined()
  })

  it("a lone * in disallowedTools disallows nothing, with a warning", () => {
    const { definition, warnings } = loaded(parse("description: d\ndisallowedTools: \"*\""))
    expect(definition.disallowedTools).toBeUndefined()
    expect(warnings.join()).toMatch(/disallowedTools: a lone "\*" matches nothing/)
  })

  it("maps other harnesses' tool names: Task/Agent → subagent, MultiEdit → Edit, lowercase ids", () => {
    expect(tools("Read, Task, MultiEdit, Edit, LS, Agent, WebFetch")).toEqual(["Read", "subagent", "Edit", "Glob", "WebFetch"])
    expect(tools("read, grep, find, ls, bash")).toEqual(["Read", "Grep", "Glob", "Bash"])
    expect(tools("[read_file, write_file, replace, run_shell_command, grep_search, list_directory]"))
      .toEqual(["Read", "Write", "Edit", "Bash", "Grep", "Glob"])
    expect(loaded(parse("description: d\ndisallowedTools: Task, shell")).definition.disallowedTools).toEqual(["subagent", "Bash"])
  })

  it("does not map subagent names", () => {
    expect(loaded(parse("description: d\nsubagents: [task, explore]")).definition.subagents).toEqual(["task", "explore"])
    expect(loaded(parse("description: d\nsubagents: \"*\"")).definition.subagents).toBeUndefined()
    expect(loaded(parse("description: d\nsubagents: []")).definition.subagents).toEqual([])
  })

  it("reads an OpenCode boolean map: true keys allow, false keys are disallowed", () => {
    const { definition } = loaded(parse("description: d\nmode: subagent\ntools:\n  read: true\n  grep: true\n  glob: true\n  bash: false\n  write: false"))
    expect(definition.tools).toEqual(["Read", "Grep", "Glob"])
    expect(definition.disallowedTools).toEqual(["Bash", "Write"])
    expect(definition.mode).toBe("subagent")
  })

  it("an OpenCode map with only false keys keeps every other tool", () => {
    const { definition } = loaded(parse("description: d\ntools:\n  write: false\n  edit: false\n  bash: false"))
    expect(definition.tools).toBeUndefined()
    expect(definition.disallowedTools).toEqual(["Write", "Edit", "Bash"])
  })

  it("maps OpenCode permission denials onto disallowedTools and ignores ask/allow", () => {
    const { definition } = loaded(parse("description: d\npermission:\n  edit: deny\n  bash:\n    \"git *\": allow\n  webfetch: ask"))
    expect(definition.disallowedTools).toEqual(["Edit", "Write"])
  })

  it("reads Kiro allowedTools when there is no tools field", () => {
    expect(loaded(parse("description: d\nallowedTools:\n  - read\n  - shell")).definition.tools).toEqual(["Read", "Bash"])
  })
})

describe("parseAgentFile: repairs", () => {
  it("repairs an unquoted ': ' inside a value, with a warning", () => {
    const { definition, warnings } = loaded(parse("name: growth\ndescription: Use it. Triggers on: 'loop', 'flywheel'.\ntools: Read, Write"))
    expect(definition.description).toBe("Use it. Triggers on: 'loop', 'flywheel'.")
    expect(definition.tools).toEqual(["Read", "Write"])
    expect(warnings[0]).toMatch(/frontmatter is not valid YAML/)
  })

  it("repairs the one-line generator style with literal \\n and <example> blocks", () => {
    const fm = [
      "name: brand-guardian",
      "description: Use this agent for brand work. Examples:\\n\\n<example>\\nContext: New app",
      "user: \"We need a visual identity\"",
      "assistant: \"I'll use the brand-guardian agent.\"",
      "</example>",
      "color: indigo",
      "tools: Write, Read, MultiEdit"
    ].join("\n")
    const { definition, warnings } = loaded(parse(fm))
    expect(definition.description).toContain("Examples:\n\n<example>\nContext: New app")
    expect(definition.description).toContain("user: \"We need a visual identity\"")
    expect(definition.tools).toEqual(["Write", "Read", "Edit"])
    expect(warnings.length).toBeGreaterThan(0)
  })

  it("repairs an unindented continuation line", () => {
    const { definition } = loaded(parse("name: go-reviewer\ndescription: Expert Go reviewer. Use for all Go\n\ncode changes.\ntools: [\"Read\"]"))
    expect(definition.description).toBe("Expert Go reviewer. Use for all Go\n\ncode changes.")
    expect(definition.tools).toEqual(["Read"])
  })

  it("repairs a value starting with a YAML alias marker", () => {
    const { definition } = loaded(parse("name: architect\ndescription: **DESIGN SPECIALIST**: turns requirements into designs\ntools: Task, Read"))
    expect(definition.description).toBe("**DESIGN SPECIALIST**: turns requirements into designs")
    expect(definition.tools).toEqual(["subagent", "Read"])
  })

  it("accepts CRLF line ends, a BOM and a long dash closing line", () => {
    const text = "\uFEFF---\r\ndescription: windows file\r\n-----------\r\nBody\r\nline\r\n"
    const { definition, warnings } = loaded(AgentFile.parseAgentFile(text, "/x/crlf.md"))
    expect(definition.description).toBe("windows file")
    expect(definition.systemPrompt).toBe("Body\nline")
    expect(warnings.join()).toMatch(/closed by/)
  })
})

describe("parseAgentFile: names of any case, as OpenCode, Copilot and Gemini CLI take them", () => {
  it("a name that is not kebab-case loads under its kebab-case form, with a note", () => {
    const snake = loaded(parse("name: Code_Reviewer\ndescription: d"))
    expect(snake.definition.name).toBe("code-reviewer")
    expect(snake.warnings).toContain("name \"Code_Reviewer\" is not kebab-case; dsh names this agent \"code-reviewer\" (delegate to it by that name)")
    expect(loaded(parse("name: My Agent\ndescription: d")).definition.name).toBe("my-agent")
  })

  it("without name, the file name in any case (OpenCode's rule)", () => {
    const file = loaded(parse("description: d", "b", "/x/.opencode/agent/GeneralCoder.md"))
    expect(file.definition.name).toBe("general-coder")
    expect(file.warnings.join("\n")).toMatch(/the file name's "GeneralCoder" \(no name field\) is not kebab-case; dsh names this agent "general-coder"/)
    expect(loaded(parse("description: d", "b", "/x/Bad Name.md")).definition.name).toBe("bad-name")
  })
})

describe("parseAgentFile: Gemini CLI remote agents", () => {
  it("kind: remote is an A2A agent, skipped here with how to declare it", () => {
    const r = parse("kind: remote\nname: billing_agent\nagent_card_url: https://agents.example/billing/card.json", "")
    const reason = invalid(r)
    expect(reason).toMatch(/a remote A2A agent \(kind: remote\)/)
    expect(reason).toContain("add [a2a.agents.billing-agent] url = \"https://agents.example/billing/card.json\" to config.toml")
    expect(invalid(parse("kind: remote\nname: lost", ""))).toMatch(/without agent_card_url or agent_card_json/)
  })
})

describe("parseAgentFile: skipped files have a reason", () => {
  it("malformed YAML beyond repair", () => {
    expect(invalid(parse("- just\n- a list"))).toMatch(/malformed YAML frontmatter/)
    expect(invalid(parse("{description: [unclosed"))).toMatch(/malformed YAML frontmatter/)
  })

  it("missing description", () => {
    expect(invalid(parse("name: nodesc\ntools: Read"))).toMatch(/missing required field "description"/)
    expect(invalid(parse("description: \"   \""))).toMatch(/missing required field "description"/)
    expect(invalid(parse("description:\n  nested: map"))).toBe("description: must be text")
  })

  it("a name with no kebab-case form", () => {
    expect(invalid(parse("name: \"???\"\ndescription: d"))).toMatch(/^name: agent name "\?\?\?" is not kebab-case/)
    expect(invalid(parse("description: d", "b", "/x/___.md"))).toMatch(/file name gives no valid name/)
    expect(invalid(parse(`name: ${"Long".repeat(20)}\ndescription: d`))).toMatch(/longer than 64 characters/)
  })

  it("no frontmatter, an unclosed one, an indented one, a JSON file", () => {
    expect(invalid(AgentFile.parseAgentFile("# Just markdown\n", "/x/a.md"))).toMatch(/^no frontmatter/)
    expect(invalid(AgentFile.parseAgentFile("---\ndescription: d\nbody", "/x/a.md"))).toMatch(/not closed/)
    expect(invalid(AgentFile.parseAgentFile("\n    ---\n    description: d\n    ---\n", "/x/a.md"))).toMatch(/indented/)
    expect(invalid(AgentFile.parseAgentFile("{\"name\": \"x\"}", "/x/a.md"))).toMatch(/JSON/)
  })

  it("binary content with a .md name: NUL bytes or invalid UTF-8", () => {
    const nul = new Uint8Array([...new TextEncoder().encode("---\ndescription: d\n---\n"), 0, 1, 2])
    expect(invalid(AgentFile.parseAgentFileBytes(nul, "/x/bin.md"))).toMatch(/binary file \(contains NUL bytes\)/)
    const latin1 = new Uint8Array([...new TextEncoder().encode("---\ndescription: caf"), 0xe9, 0x0a, 0xff, 0xfe])
    expect(invalid(AgentFile.parseAgentFileBytes(latin1, "/x/latin1.md"))).toMatch(/not valid UTF-8/)
  })

  it("files over the size limit and prompts over the prompt bound", () => {
    expect(invalid(AgentFile.parseAgentFileBytes(new Uint8Array(AgentFileParts.MAX_AGENT_FILE_BYTES + 1), "/x/big.md"))).toMatch(/over the .*-byte limit/)
    expect(invalid(parse("description: d", "x".repeat(AgentName.MAX_SYSTEM_PROMPT_CHARS + 1)))).toMatch(/character limit/)
  })
})

describe("validateAgentName", () => {
  it("accepts kebab-case names up to 64 characters", () => {
    for (const name of ["coder", "code-reviewer", "react18-commander", "a", "x".repeat(64)]) {
      expect(AgentName.validateAgentName(name)).toBeUndefined()
    }
  })

  it("rejects empty, long, and non-kebab names with a reason", () => {
    expect(AgentName.validateAgentName("")).toMatch(/empty/)
    expect(AgentName.validateAgentName("x".repeat(65))).toMatch(/longer than 64/)
    for (const name of ["Coder", "code_reviewer", "-lead", "trail-", "double--dash", "with space", "AIResearcher"]) {
      expect(AgentName.validateAgentName(name)).toMatch(/not kebab-case/)
    }
    expect(AgentName.validateAgentName("AIResearcher")).toMatch(/try "ai-researcher"/)
  })
})
