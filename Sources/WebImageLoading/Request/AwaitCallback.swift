/// Awaits work that reports through a callback: `start` begins it and returns its handle; the
/// first value passed to `deliver` is returned (later ones are ignored). Cancelling the calling
/// task cancels the handle, even one returned after the cancellation.
///
/// The value is published through ``ExactlyOnce``'s lock as well as the continuation: when the
/// callback runs before the task suspends, the Swift runtime resumes the task without an event
/// ThreadSanitizer can see, and the lock supplies that ordering (docs/RELIABILITY.md).
package func awaitCallback<Value: Sendable>(
    _ start: (_ deliver: @escaping @Sendable (Value) -> Void) -> (any WebImageOperation)?
) async -> Value {
    let link = CancellationLink()
    let value = await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
            let once = ExactlyOnce<CheckedContinuation<Value, Never>, Never>(continuation)
            let stage = start { value in
                guard let continuation = once.end() else { return }
                link.finish()
                continuation.resume(returning: value)
            }
            link.attach(stage)
        }
    } onCancel: {
        link.cancelStage()
    }
    link.synchronize()
    return value
}
