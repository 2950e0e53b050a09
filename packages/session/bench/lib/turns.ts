// The scripted turn both persistence benchmarks write (the file store's and @dsh/session-pg's),
// so their figures compare the same events.
import type { Events } from "@dsh/core"

const usage = { inputTokens: 1843, outputTokens: 212, totalTokens: 2055 }
const fileText = "export const answer = (question: string): number => question.length % 42\n".repeat(6)

/** One scripted turn: a user prompt, a tool round trip and a final answer. */
export const turnEvents = (turn: number): ReadonlyArray<Events.AgentEvent> => {
  const callId = `call_${turn.toString(36).padStart(6, "0")}`
  const args = JSON.stringify({ path: `src/module-${turn % 17}.ts` })
  const prompt = `Turn ${turn}: look at src/module-${turn % 17}.ts and tell me what answer() returns.`
  return [
    { type: "turn-start", turn, prompt },
    { type: "step-start", turn, step: 1 },
    { type: "message", message: { role: "user", content: prompt } },
    {
      type: "message",
      message: { role: "assistant", content: "Let me read the file.", toolCalls: [{ id: callId, name: "Read", arguments: args }] }
    },
    { type: "tool-call", id: callId, name: "Read", input: args },
    { type: "tool-result", id: callId, name: "Read", output: fileText, isError: false, durationMs: 2 },
    { type: "message", message: { role: "tool", toolCallId: callId, name: "Read", content: fileText } },
    {
      type: "message",
      message: { role: "assistant", content: "answer() returns the question's length modulo 42, so at most 41." }
    },
    { type: "usage", model: "scripted", usage },
    { type: "turn-end", turn, status: "completed", result: "at most 41", usage, durationMs: 1200 }
  ]
}
