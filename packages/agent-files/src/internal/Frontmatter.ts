import { createRequire } from "node:module"
import type * as Yaml from "yaml"

// The YAML parser (72 modules, about a tenth of a cold import) is loaded at the first file that
// needs it: a harness that never reads agent files never pays for it. Synchronous on purpose, so
// every function here stays total and synchronous.
let yaml: typeof Yaml | undefined
const parseDocument = (...args: Parameters<typeof Yaml.parseDocument>): ReturnType<typeof Yaml.parseDocument> =>
  (yaml ??= createRequire(import.meta.url)("yaml") as typeof Yaml).parseDocument(...args)

/**
 * Splitting an agent file into frontmatter and body, and reading the frontmatter: strict YAML
 * first, then a line-based `key: value` reader for the frontmatter that the tools these files
 * were written for accept but YAML rejects. All functions are total: they return values.
 */

export type SplitResult =
  | { readonly _tag: "Split"; readonly frontmatter: string; readonly body: string; readonly warnings: ReadonlyArray<string> }
  | { readonly _tag: "NoFrontmatter"; readonly reason: string }

export type FrontmatterResult =
  | { readonly _tag: "Parsed"; readonly data: Readonly<Record<string, unknown>>; readonly warnings: ReadonlyArray<string> }
  | { readonly _tag: "Malformed"; readonly reason: string }

/** Strict UTF-8 decoding; `undefined` for bytes that are not UTF-8 (binary files). */
export const decodeUtf8 = (bytes: Uint8Array): string | undefined => {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
}

/** Drops a byte-order mark and turns CRLF and lone CR line ends into LF. */
export const normalizeText = (text: string): string =>
  (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(/\r\n?/g, "\n")

const OPEN = /^---[ \t]*$/
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/
const LONG_CLOSE = /^-{4,}[ \t]*$/

/** `text` must be normalized. Leading blank lines before the opening `---` are tolerated. */
export const splitFrontmatter = (text: string): SplitResult => {
  const lines = text.split("\n")
  let open = 0
  while (open < lines.length && lines[open]!.trim() === "") open++
  const first = lines[open]
  if (first === undefined || !OPEN.test(first)) {
    const trimmed = first?.trim() ?? ""
    const reason = trimmed === "---"
      ? "no frontmatter: the opening '---' line is indented (frontmatter must start at column 0)"
      : trimmed.startsWith("{")
      ? "no frontmatter: the file is a JSON object, not Markdown with YAML frontmatter"
      : "no frontmatter (an agent file starts with a '---' line, YAML fields, and a closing '---' line)"
    return { _tag: "NoFrontmatter", reason }
  }
  const warnings: Array<string> = []
  for (let i = open + 1; i < lines.length; i++) {
    const line = lines[i]!
    const long = LONG_CLOSE.test(line)
    if (CLOSE.test(line) || long) {
      if (long) warnings.push(`frontmatter is closed by '${line.trim()}' instead of '---'`)
      const body = lines.slice(i + 1).join("\n").replace(/^(?:[ \t]*\n)+/, "").trimEnd()
      return { _tag: "Split", frontmatter: lines.slice(open + 1, i).join("\n"), body, warnings }
    }
  }
  return { _tag: "NoFrontmatter", reason: "frontmatter is not closed (no second '---' line)" }
}

type Strict = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string }

const firstLine = (message: string): string => message.split("\n")[0]!.trim()

/** Frontmatter past this is not an agent's settings: the YAML parser never sees it. */
export const MAX_FRONTMATTER_BYTES = 64 * 1024
/** Deeper nesting than this (brackets or indentation levels) is refused before parsing. */
export const MAX_FRONTMATTER_DEPTH = 32

/**
 * How deep `source` nests, by flow brackets and by block indentation: a cheap look that keeps
 * pathological YAML (a 200 KB nest costs the parser seconds and hundreds of MB) away from it.
 */
const nestingDepth = (source: string): number => {
  let brackets = 0
  let deepest = 0
  const indents: Array<number> = []
  for (const line of source.split("\n")) {
    const indent = line.length - line.trimStart().length
    if (line.trim() !== "" && !line.trimStart().startsWith("#")) {
      while (indents.length > 0 && indents.at(-1)! >= indent) indents.pop()
      indents.push(indent)
      deepest = Math.max(deepest, indents.length)
    }
    for (const ch of line) {
      if (ch === "[" || ch === "{") deepest = Math.max(deepest, ++brackets)
      else if ((ch === "]" || ch === "}") && brackets > 0) brackets--
    }
  }
  return deepest
}

/** Why `source` is not read at all, if it is too large or nests too deeply. */
const outOfBounds = (source: string): string | undefined => {
  const bytes = Buffer.byteLength(source, "utf8")
  if (bytes > MAX_FRONTMATTER_BYTES) return `frontmatter is ${bytes} bytes, over the ${MAX_FRONTMATTER_BYTES}-byte limit`
  if (nestingDepth(source) > MAX_FRONTMATTER_DEPTH) return `frontmatter nests deeper than ${MAX_FRONTMATTER_DEPTH} levels`
  return undefined
}

/** The parser's first error, or the document's value (keys unique, at most 100 aliases). */
const parseChecked = (source: string): Strict => {
  try {
    const doc = parseDocument(source, { uniqueKeys: true, prettyErrors: false })
    const error = doc.errors[0]
    if (error !== undefined) return { ok: false, error: firstLine(error.message) }
    return { ok: true, value: doc.toJS({ maxAliasCount: 100 }) }
  } catch (cause) {
    return { ok: false, error: firstLine(cause instanceof Error ? cause.message : String(cause)) }
  }
}

const parseStrict = (source: string): Strict => {
  const bounds = outOfBounds(source)
  if (bounds !== undefined) return { ok: false, error: bounds }
  return parseChecked(source)
}

/**
 * A whole YAML document (a Kimi agent spec), with the frontmatter's depth and alias limits
 * and a size limit of its own; the parser's first error, or the value.
 */
export const parseYamlDocument = (source: string, maxBytes: number): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string } => {
  const bytes = Buffer.byteLength(source, "utf8")
  if (bytes > maxBytes) return { ok: false, error: `${bytes} bytes, over the ${maxBytes}-byte limit` }
  if (nestingDepth(source) > MAX_FRONTMATTER_DEPTH) return { ok: false, error: `nests deeper than ${MAX_FRONTMATTER_DEPTH} levels` }
  return parseChecked(source)
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const SIMPLE_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?$/
// A value YAML reads as exactly this string: no indicator first, no `: ` or ` #` inside, and
// nothing YAML would turn into a boolean, null or number.
const PLAIN_SCALAR = /^[^\s\-?:,[\]{}#&*!|>'"%@`](?:(?!: | #).)*$/
const TYPED_SCALAR = /^(?:true|false|yes|no|on|off|null|~|[-+]?(?:\.?\d.*|\.inf|\.nan))$/i

/**
 * Most frontmatter (the built-in agents', most files written for other tools) is flat
 * `key: plain text` lines. Those are read directly, with the result strict YAML would give;
 * anything else goes to the YAML parser. This keeps the YAML parser off the start-up path.
 */
export const parseSimple = (source: string): Record<string, unknown> | undefined => {
  const data: Record<string, unknown> = {}
  for (const raw of source.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw
    if (line === "") continue
    const m = SIMPLE_LINE.exec(line)
    if (m === null || Object.hasOwn(data, m[1]!)) return undefined
    const value = (m[2] ?? "").trimEnd()
    if (value === "") return undefined
    if (value === "[]") data[m[1]!] = []
    else if (PLAIN_SCALAR.test(value) && !TYPED_SCALAR.test(value)) data[m[1]!] = value
    else return undefined
  }
  return data
}

/** Strict YAML, then the lenient reader (with a warning); `Malformed` only when both fail. */
export const parseFrontmatter = (source: string): FrontmatterResult => {
  const simple = parseSimple(source)
  if (simple !== undefined) return { _tag: "Parsed", data: simple, warnings: [] }
  const bounds = outOfBounds(source)
  if (bounds !== undefined) return { _tag: "Malformed", reason: bounds }
  const strict = parseStrict(source)
  if (strict.ok && (strict.value === null || strict.value === undefined)) return { _tag: "Parsed", data: {}, warnings: [] }
  if (strict.ok && isMapping(strict.value)) return { _tag: "Parsed", data: strict.value, warnings: [] }
  const problem = strict.ok ? "it is not a key: value mapping" : strict.error
  const lenient = parseLenient(source)
  if (lenient === undefined) return { _tag: "Malformed", reason: `malformed YAML frontmatter: ${problem}` }
  return {
    _tag: "Parsed",
    data: lenient.data,
    warnings: [`frontmatter is not valid YAML (${problem}); read it as plain key: value lines`, ...lenient.warnings]
  }
}

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*))?[ \t]*$/

/**
 * Column-0 words that start lines of prose inside the one-line "generator" descriptions
 * (`<example>Context: … user: "…" assistant: "…"`); they continue the value, not new keys.
 */
const PROSE_KEYS = new Set(["Context", "user", "User", "assistant", "Assistant", "Human", "Commentary", "commentary", "Example", "Note", "Q", "A"])

interface Segment {
  readonly key: string
  readonly first: string
  readonly lines: Array<string>
}

/**
 * A forgiving reader: a column-0 `key:` line starts a field and every following line until the
 * next one belongs to it (continuation lines need not be indented). Each field is tried as YAML
 * on its own, so lists and block scalars still work; a field YAML rejects keeps its raw text.
 */
export const parseLenient = (
  source: string
): { readonly data: Record<string, unknown>; readonly warnings: ReadonlyArray<string> } | undefined => {
  const segments: Array<Segment> = []
  for (const line of source.split("\n")) {
    if (line.startsWith("#")) continue
    const match = KEY_LINE.exec(line)
    if (match !== null && !PROSE_KEYS.has(match[1]!)) {
      segments.push({ key: match[1]!, first: match[2] ?? "", lines: [line] })
      continue
    }
    const current = segments[segments.length - 1]
    if (current === undefined) {
      if (line.trim() === "") continue
      return undefined
    }
    current.lines.push(line)
  }
  if (segments.length === 0) return undefined
  const data: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  const warnings: Array<string> = []
  for (const segment of segments) {
    if (Object.hasOwn(data, segment.key)) {
      warnings.push(`duplicate frontmatter key "${segment.key}"; the first one is used`)
      continue
    }
    data[segment.key] = segmentValue(segment)
  }
  return { data, warnings }
}

const segmentValue = (segment: Segment): unknown => {
  const strict = parseStrict(segment.lines.join("\n"))
  if (strict.ok && isMapping(strict.value) && Object.hasOwn(strict.value, segment.key)) return strict.value[segment.key]
  const rest = segment.lines.slice(1)
  const items = rest.filter((l) => l.trim() !== "")
  if (segment.first.trim() === "" && items.length > 0 && items.every((l) => /^\s*-\s+/.test(l))) {
    return items.map((l) => unquote(l.replace(/^\s*-\s+/, "").trim()))
  }
  const first = segment.first.trim().replace(/^[|>][+-]?\s*$/, "")
  const text = [first, ...rest.map((l) => l.trim())].join("\n").replace(/\n{3,}/g, "\n\n").trim()
  return unquote(text).replace(/\\n/g, "\n")
}

const unquote = (text: string): string => {
  if (text.length >= 2) {
    const q = text[0]
    if ((q === "\"" || q === "'") && text.endsWith(q)) return text.slice(1, -1)
  }
  return text
}
