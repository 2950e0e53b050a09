import picomatch from "picomatch"

/**
 * Which tools an agent may see and run: `tools` (undefined or `*` = all) then
 * `disallowedTools`. Built-in names match exactly and case-sensitively; `mcp__server__tool`
 * patterns may use globs (`mcp__github__*`).
 */
export interface ToolPolicy {
  readonly tools?: ReadonlyArray<string> | undefined
  readonly disallowedTools?: ReadonlyArray<string> | undefined
}

export const allowAll: ToolPolicy = {}

const matcher = (pattern: string): (name: string) => boolean => {
  if (pattern === "*") return () => true
  if (pattern.startsWith("mcp__") && /[*?[\]{}]/.test(pattern)) {
    const isMatch = picomatch(pattern, { dot: true })
    return (name) => isMatch(name)
  }
  return (name) => name === pattern
}

/** Compiles a policy into a predicate over tool names. */
export const compilePolicy = (policy: ToolPolicy): (name: string) => boolean => {
  const allow = policy.tools === undefined ? undefined : policy.tools.map(matcher)
  const deny = (policy.disallowedTools ?? []).map(matcher)
  return (name) => (allow === undefined || allow.some((m) => m(name))) && !deny.some((m) => m(name))
}

/** Patterns that can never match anything, with the reason; reported as warnings. */
export const policyWarnings = (policy: ToolPolicy, knownTools: ReadonlyArray<string>): Array<string> => {
  const warnings: Array<string> = []
  const check = (field: string, pattern: string) => {
    if (pattern === "*") return
    if (!pattern.startsWith("mcp__")) {
      if (/[*?[\]{}]/.test(pattern)) {
        warnings.push(`${field}: "${pattern}" is a wildcard outside an mcp__ pattern and matches nothing`)
      } else if (!knownTools.includes(pattern)) {
        warnings.push(`${field}: no tool is named "${pattern}"`)
      }
      return
    }
    const parts = pattern.slice(5).split("__")
    if (parts.length < 2 || parts.some((p) => p === "")) {
      warnings.push(`${field}: "${pattern}" is not a full mcp__<server>__<tool> name and matches nothing`)
    }
  }
  for (const p of policy.tools ?? []) check("tools", p)
  for (const p of policy.disallowedTools ?? []) check("disallowedTools", p)
  return warnings
}

/** The intersection of two policies: a name must pass both. */
export const intersectPolicies = (a: ToolPolicy, b: ToolPolicy): (name: string) => boolean => {
  const pa = compilePolicy(a)
  const pb = compilePolicy(b)
  return (name) => pa(name) && pb(name)
}
