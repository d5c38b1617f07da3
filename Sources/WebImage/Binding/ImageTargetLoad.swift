import WebImageCodecs
import WebImageLoading
import Foundation
import Synchronization

/// One ``ImageTarget/setImage(with:placeholder:options:context:manager:progress:completed:)`` call:
/// receives the manager's events and decides what reaches the target and the caller.
///
/// The manager delivers inline (`CallbackQueue/immediate`); while the call is still running
/// (its *synchronous window*) events are kept and handled on the calling thread before the call
/// returns — that is how a memory hit is shown at once. Later events hop to the target's queue.
final class ImageTargetLoad: Sendable {
    let key: String
    let generation: UInt64
    let placeholder: LoadPlaceholder
    let options: WebImageOptions
    let queue: CallbackQueue
    let state: ImageTargetLoadState
    let completed: (@Sendable (ImageManagerResult) -> Void)?
    private weak let target: (any ImageTarget)?

    private struct Window {
        var isOpen = true
        var kept: [ImageManagerOperation.Event] = []
    }

    private let window = Mutex(Window())

    init(target: any ImageTarget, key: String, generation: UInt64, placeholder: LoadPlaceholder, options: WebImageOptions,
         queue: CallbackQueue, completed: (@Sendable (ImageManagerResult) -> Void)?) {
        self.target = target
        self.key = key
        self.generation = generation
        self.placeholder = placeholder
        self.options = options
        self.queue = queue
        self.state = target.imageLoadState
        self.completed = completed
    }

    /// An event from the manager, on any thread.
    func receive(_ event: ImageManagerOperation.Event) {
        let kept = window.withLock { window -> Bool in
            guard window.isOpen else { return false }
            window.kept.append(event)
            return true
        }
        guard !kept else { return }
        queue.execute { self.handle(event) }
    }

    /// The call is about to return: shows the placeholder unless a kept event brings an image to
    /// show instead (or `delayPlaceholder` holds it back), then handles the kept events, all under
    /// the landing lock so no later event can land in between.
    func closeWindow() {
        state.landing.lock()
        defer { state.landing.unlock() }
        let kept = window.withLock { window in
            window.isOpen = false
            return window.kept
        }
        let showsImageNow = kept.contains { event in
            guard case .result(let result, _) = event else { return false }
            return result.image != nil && !options.contains(.avoidAutoSetImage)
        }
        if !options.contains(.delayPlaceholder), !showsImageNow, state.isCurrent(key, generation) {
            target?.setImage(placeholder.image, cacheType: .none)
        }
        for event in kept { handle(event) }
    }

    private func handle(_ event: ImageManagerOperation.Event) {
        switch event {
        case .endedSilently:
            // A refreshCached revalidation found the cached image current: nothing changes.
            state.loadEnded(key: key, generation: generation, succeeded: true)
        case .result(let result, let isLast):
            land(result, isLast: isLast)
        }
    }

    /// SDWebImage's rules: a partial image reaches the caller only with `avoidAutoSetImage`; with
    /// no image the target keeps what it shows, unless `delayPlaceholder` puts the placeholder
    /// there; a result of a load that is no longer the target's latest never reaches the target.
    private func land(_ result: ImageManagerResult, isLast: Bool) {
        let avoidsSet = options.contains(.avoidAutoSetImage)
        state.landing.lock()
        let isCurrent = state.isCurrent(key, generation)
        if isCurrent {
            if isLast { state.loadEnded(key: key, generation: generation, succeeded: result.image != nil) }
            let image = result.image
            let leavesTarget = image != nil ? avoidsSet : !options.contains(.delayPlaceholder)
            if !leavesTarget, let target {
                target.setImage(image ?? placeholder.image, cacheType: image == nil ? .none : result.cacheType)
            }
        }
        state.landing.unlock()
        let callsCompletion = result.isFinished || (avoidsSet && isCurrent)
        if callsCompletion { completed?(result) }
    }
}
