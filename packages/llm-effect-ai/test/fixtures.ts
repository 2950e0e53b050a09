import { Usage } from "@dsh/core"
import { LanguageModel } from "@dsh/llm"
import { Stream } from "effect"

/** A dsh model that records every request and answers with the parts `reply` gives for it. */
export const recordingModel = (
  reply: (request: LanguageModel.ModelRequest, index: number) => ReadonlyArray<LanguageModel.StreamPart>,
  provider = "fake"
): { readonly model: LanguageModel.LanguageModelShape; readonly requests: Array<LanguageModel.ModelRequest> } => {
  const requests: Array<LanguageModel.ModelRequest> = []
  const model = LanguageModel.make({
    provider,
    model: "fake-1",
    stream: (request) =>
      Stream.suspend(() => {
        requests.push(request)
        return Stream.fromIterable(reply(request, requests.length - 1))
      })
  })
  return { model, requests }
}

/** Wraps a model so its requests are recorded. */
export const recording = (inner: LanguageModel.LanguageModelShape): { readonly model: LanguageModel.LanguageModelShape; readonly requests: Array<LanguageModel.ModelRequest> } => {
  const requests: Array<LanguageModel.ModelRequest> = []
  const model = LanguageModel.make({
    provider: inner.provider,
    model: inner.model,
    stream: (request) => Stream.suspend(() => {
      requests.push(request)
      return inner.stream(request)
    })
  })
  return { model, requests }
}

export const usage = Usage.make(10, 5, { read: 4 })
