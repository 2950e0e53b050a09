/**
 * The simple commands of a shell command line, as permission rules see them: split at `;`,
 * `&`, `&&`, `||`, `|` and newlines outside quotes, with the contents of `$(…)`, `` `…` ``,
 * `<(…)` and `>(…)` added as commands of their own; whitespace outside quotes is collapsed.
 * It is a reading for rules, not a shell parser: a deny rule is not a sandbox.
 */
export const commandParts = (command: string): Array<string> => {
  const parts: Array<string> = []
  let current = ""
  let quote: "'" | "\"" | undefined
  const flush = () => {
    const part = current.replace(/\s+/g, " ").trim()
    if (part !== "") parts.push(part)
    current = ""
  }
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!
    if (c === "\\" && quote !== "'" && i + 1 < command.length) {
      current += c + command[++i]
      continue
    }
    if (quote !== undefined) {
      if (c === quote) quote = undefined
      else if (quote === "\"" && (c === "`" || (c === "$" && command[i + 1] === "("))) {
        const end = substitutionEnd(command, i)
        parts.push(...commandParts(command.slice(i + (c === "`" ? 1 : 2), end)))
        current += command.slice(i, end + 1)
        i = end
        continue
      }
      current += c
      continue
    }
    if (c === "'" || c === "\"") {
      quote = c
      current += c
      continue
    }
    if (c === "`" || ((c === "$" || c === "<" || c === ">") && command[i + 1] === "(")) {
      const end = substitutionEnd(command, i)
      parts.push(...commandParts(command.slice(i + (c === "`" ? 1 : 2), end)))
      current += command.slice(i, end + 1)
      i = end
      continue
    }
    if (c === ";" || c === "&" || c === "|" || c === "\n") {
      flush()
      continue
    }
    current += c
  }
  flush()
  return parts
}

/** The index of the character closing the substitution that starts at `start`. */
const substitutionEnd = (text: string, start: number): number => {
  if (text[start] === "`") {
    const end = text.indexOf("`", start + 1)
    return end < 0 ? text.length : end
  }
  let depth = 0
  let quote: string | undefined
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!
    if (c === "\\" && quote !== "'") {
      i++
      continue
    }
    if (quote !== undefined) {
      if (c === quote) quote = undefined
      continue
    }
    if (c === "'" || c === "\"") quote = c
    else if (c === "(") depth++
    else if (c === ")" && --depth === 0) return i
  }
  return text.length
}
