import WebImageCodecs
import WebImageLoading
import Foundation

extension ImageTarget {
    /// Loads `url` into this target (SDWebImage's `sd_setImageWithURL:placeholderImage:options:context:…`).
    ///
    /// - The operation key is `context.setImageOperationKey` or ``defaultImageOperationKey``; a
    ///   running load with the same key is cancelled first unless `avoidAutoCancelImage`.
    /// - The URL is recorded before anything else (``imageURL(forKey:)``).
    /// - The placeholder (nil clears the old image) is shown before this returns, unless
    ///   `delayPlaceholder` (then it is shown only when the load ends with no image). Without a
    ///   placeholder image, `context.placeholderHash` (a BlurHash or ThumbHash) is decoded and
    ///   shown in its place.
    /// - A memory hit is shown before this returns, without the placeholder first.
    /// - Later results arrive on `context.callbackQueue` or ``imageCallbackQueue``; partial images
    ///   are shown too. With `avoidAutoSetImage` nothing but the placeholder is set, and
    ///   `completed` gets partial images as well as the final one.
    /// - A result of a load that is no longer this target's latest for its key never reaches the
    ///   target, even when it races with a new call; `completed` still gets its final result.
    /// - A nil URL completes with `WebImageError/Code/invalidURL` and keeps the placeholder.
    /// - Returns: The load, also available as ``imageLoadOperation(forKey:)`` while it runs.
    @discardableResult
    public func setImage(with url: URL?, placeholder: Image? = nil, options: WebImageOptions = [],
                         context: WebImageContext = .none, manager: ImageManager = .shared,
                         progress: ImageLoadProgress? = nil,
                         completed: (@Sendable (ImageManagerResult) -> Void)? = nil) -> ImageManagerOperation {
        let key = context.setImageOperationKey ?? defaultImageOperationKey
        let state = imageLoadState
        state.landing.lock()
        let (generation, previous) = state.begin(key: key, url: url)
        state.landing.unlock()
        if !options.contains(.avoidAutoCancelImage) { previous?.cancel() }

        let load = ImageTargetLoad(target: self, key: key, generation: generation,
                                   placeholder: LoadPlaceholder(given: placeholder, hash: context.placeholderHash),
                                   options: options, queue: context.callbackQueue ?? imageCallbackQueue,
                                   completed: completed)
        var managerContext = context
        managerContext.setImageOperationKey = key
        managerContext.callbackQueue = .immediate
        let trackProgress: ImageLoadProgress = { received, expected, url in
            state.updateProgress(key: key, generation: generation, received: received, expected: expected)
            progress?(received, expected, url)
        }
        let operation = manager.start(url, options: options, context: managerContext, progress: trackProgress,
                                      receiver: .events { load.receive($0) })
        state.setOperation(operation, key: key, generation: generation)
        load.closeWindow()
        return operation
    }
}
