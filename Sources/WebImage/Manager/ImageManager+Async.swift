import WebImageCodecs
import WebImageLoading
import Foundation

/// What an ``ImageManager/imageEvents(for:options:context:)`` sequence yields.
public enum ImageManagerEvent: Sendable {
    /// Bytes received so far and expected (`-1` before the response, `0` when unknown).
    case progress(received: Int64, expected: Int64)
    /// A progressive partial image (`progressiveLoad`).
    case partial(Image)
    /// A finished image: once, or twice for a `refreshCached` load whose server copy changed
    /// (first the cached image, then the new one).
    case image(ImageManagerResult)
}

extension ImageManager {
    /// Loads the image at `url`; cancelling the calling task cancels the load.
    ///
    /// Returns the first finished result: with `refreshCached` and a cached copy, that is the
    /// cached image while the revalidation goes on in the background and updates the caches (use
    /// ``imageEvents(for:options:context:)`` to see its outcome too).
    /// - Throws: The load's `WebImageError`; `WebImageError/Code/notCached` when the image is not
    ///   cached and may not be loaded (`fromCacheOnly`, the delegate declined, or no loader handles the URL);
    ///   `WebImageError/Code/cancelled` when the task was cancelled.
    public func image(for url: URL?, options: WebImageOptions = [], context: WebImageContext = .none,
                      progress: ImageLoadProgress? = nil) async throws(WebImageError) -> ImageManagerResult {
        // Settled without the pipeline (a memory hit, a bad URL): no suspension, no continuation.
        let load: PlannedLoad
        switch plan(url, options: options, context: context) {
        case .memoryHit(let image, let url, _): return ImageManagerResult(image: image, cacheType: .memory, url: url)
        case .failure(let error, _, _): throw error
        case .pipeline(let planned): load = planned
        }
        let outcome: Result<ImageManagerResult, WebImageError> = await awaitCallback { deliver in
            run(load, progress: progress, receiver: .completion({ result in
                if result.isFinished { deliver(Self.outcome(of: result)) }
            }))
        }
        return try outcome.get()
    }

    /// Loads the image at `url` as a sequence of progress values, partial images and finished
    /// images; it ends after the last result and throws the load's error. Ending the iteration
    /// early (or cancelling its task) cancels the load.
    public func imageEvents(for url: URL?, options: WebImageOptions = [],
                            context: WebImageContext = .none) -> AsyncThrowingStream<ImageManagerEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ImageManagerEvent.self)
        let progress: ImageLoadProgress = { received, expected, _ in
            continuation.yield(.progress(received: received, expected: expected))
        }
        let operation = start(url, options: options, context: context, progress: progress,
                              receiver: .events({ event in
            switch event {
            case .endedSilently:
                continuation.finish()
            case .result(let result, let isLast):
                guard result.isFinished else {
                    if let image = result.image { continuation.yield(.partial(image)) }
                    return
                }
                switch Self.outcome(of: result) {
                case .success(let result):
                    continuation.yield(.image(result))
                    if isLast { continuation.finish() }
                case .failure(let error):
                    continuation.finish(throwing: error)
                }
            }
        }))
        continuation.onTermination = { _ in operation.cancel() }
        return stream
    }

    /// A finished result as the async API reports it: no image and no error is `WebImageError/Code/notCached`.
    static func outcome(of result: ImageManagerResult) -> Result<ImageManagerResult, WebImageError> {
        if let error = result.error { return .failure(error) }
        guard result.image != nil else {
            return .failure(WebImageError(
                .notCached, "The image is not cached and this request may not load it (fromCacheOnly, the "
                    + "manager's delegate declined, or no loader handles \"\(result.url?.scheme ?? "")\" URLs).",
                url: result.url))
        }
        return .success(result)
    }
}
