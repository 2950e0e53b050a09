import { makeUsage } from "@dsh/core"
import { type LanguageModelShape, makeLanguageModel, type ModelRequest, type StreamPart } from "@dsh/llm"
import { Stream } from "effect"

/** A dsh model that records every request and answers with the parts `reply` gives for it. */
export const recordingModel = (
  reply: (request: ModelRequest, index: number) => ReadonlyArray<StreamPart>,
  provider = "fake"
): { readonly model: LanguageModelShape; readonly requests: Array<ModelRequest> } => {
  const requests: Array<ModelRequest> = []
  const model = makeLanguageModel({
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
export const recording = (inner: LanguageModelShape): { readonly model: LanguageModelShape; readonly requests: Array<ModelRequest> } => {
  const requests: Array<ModelRequest> = []
  const model = makeLanguageModel({
    provider: inner.provider,
    model: inner.model,
    stream: (request) => Stream.suspend(() => {
      requests.push(request)
      return inner.stream(request)
    })
  })
  return { model, requests }
}

export const usage = makeUsage(10, 5, { read: 4 })
