import Dispatch
import Synchronization

/// Decodes the frames a player will show next, in play order, on a serial queue of its own, so
/// decoding never runs on the thread that calls the player's handlers.
///
/// The player sets the window (the frames of its next steps, as many as its buffer budget holds);
/// decoded frames of the window wait in `ready` until the window moves past them. Decoding goes
/// through ``AnimatedFrames/frame(at:)``, so frames land in the animation's shared buffer too and
/// another player of the same image finds them there. Decoding stops at the first frame that fails.
final class FrameDecodeAhead: Sendable {
    private typealias Delivery = CheckedContinuation<Result<Bitmap, any Error>, Never>

    private struct State {
        var window: [Int] = []
        var ready: [Int: Bitmap] = [:]
        var failures: [Int: any Error] = [:]
        var waiters: [UInt64: (index: Int, delivery: Delivery)] = [:]
        var cancelledWaits: Set<UInt64> = []
        var nextWaitID: UInt64 = 0
        var isDecoding = false

        /// The first frame of the window still to decode; nil when there is none, or when a frame
        /// before it failed (what comes after a damaged frame is never shown).
        var nextToDecode: Int? {
            for index in window where ready[index] == nil {
                return failures[index] == nil ? index : nil
            }
            return nil
        }

        /// Marks decoding as running and says whether the caller must start it.
        mutating func claimDecoding() -> Bool {
            guard !isDecoding, nextToDecode != nil else { return false }
            isDecoding = true
            return true
        }
    }

    private let source: PlaybackSource
    private let queue = DispatchQueue(label: "WebImage.AnimatedImagePlayer.decode", qos: .userInitiated)
    private let state = Mutex(State())

    init(source: PlaybackSource) { self.source = source }

    /// Decodes `frames` (in this order) and keeps them until a later window leaves them out.
    func setWindow(_ frames: [Int]) {
        let start = state.withLock { state -> Bool in
            state.window = frames
            let kept = Set(frames)
            state.ready = state.ready.filter { kept.contains($0.key) }
            return state.claimDecoding()
        }
        if start { queue.async { self.decodeWindow() } }
    }

    /// Frame `index` if it can be had without waiting: decoded ahead, the poster, or a frame the
    /// image holds. (A frame in the shared buffer is fetched by the queue, which may find it
    /// evicted and decode it; the caller's thread never decodes.)
    func readyFrame(at index: Int) -> Bitmap? {
        if let frame = state.withLock({ $0.ready[index] }) { return frame }
        guard index == 0 || source.animation == nil else { return nil }
        return try? source.frame(at: index)
    }

    /// Frame `index`, waiting for its decode (moved to the front of the window if it was not in
    /// it). A failure is the frame's decode error, or `CancellationError` when the task is cancelled.
    func frame(at index: Int) async -> Result<Bitmap, any Error> {
        if let frame = readyFrame(at: index) { return .success(frame) }
        let id = state.withLock { state -> UInt64 in
            state.nextWaitID += 1
            return state.nextWaitID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (delivery: Delivery) in
                let (immediate, start) = state.withLock { state -> (Result<Bitmap, any Error>?, Bool) in
                    if state.cancelledWaits.remove(id) != nil { return (.failure(CancellationError()), false) }
                    if let frame = state.ready[index] { return (.success(frame), false) }
                    if let error = state.failures[index] { return (.failure(error), false) }
                    state.waiters[id] = (index, delivery)
                    if !state.window.contains(index) { state.window.insert(index, at: 0) }
                    return (nil, state.claimDecoding())
                }
                if let immediate { delivery.resume(returning: immediate) }
                if start { queue.async { self.decodeWindow() } }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Delivery? in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.cancelledWaits.insert(id)
                    return nil
                }
                return waiter.delivery
            }
            waiter?.resume(returning: .failure(CancellationError()))
        }
    }

    /// Runs on `queue`: decodes the window's frames one after another until none is left.
    private func decodeWindow() {
        while let index = state.withLock({ state -> Int? in
            guard let index = state.nextToDecode else {
                state.isDecoding = false
                return nil
            }
            return index
        }) {
            let result = Result { try source.frame(at: index) }
            let waiting = state.withLock { state -> [Delivery] in
                switch result {
                case .success(let frame): if state.window.contains(index) { state.ready[index] = frame }
                case .failure(let error): state.failures[index] = error
                }
                let due = state.waiters.filter { $0.value.index == index }
                for id in due.keys { state.waiters[id] = nil }
                return due.values.map(\.delivery)
            }
            for delivery in waiting { delivery.resume(returning: result) }
        }
    }
}
