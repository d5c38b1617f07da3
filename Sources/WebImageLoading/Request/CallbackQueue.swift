import WebImageCodecs
import Dispatch
import Foundation

/// Where completion handlers run, SDWebImage's `SDCallbackQueue`.
///
/// The default, ``shared``, is a serial queue owned by the library — not the main queue, because on
/// a Linux server the main thread is usually blocked and its queue never drained. UI toolkits that
/// drain the main queue opt in with ``main``.
public struct CallbackQueue: Sendable {
    /// How a block is handed to the queue.
    public enum Policy: Sendable {
        /// Run inline when already on the target queue, otherwise dispatch asynchronously.
        case safeExecute
        /// Always dispatch asynchronously.
        case dispatch
        /// Always run inline on the calling thread.
        case invoke
    }

    private let queue: DispatchQueue?
    private let marker: QueueMarker?
    /// How blocks are handed to the queue.
    public let policy: Policy

    /// A callback queue over `queue`.
    public init(_ queue: DispatchQueue, policy: Policy = .safeExecute) {
        self.queue = queue
        self.policy = policy
        self.marker = QueueMarker.mark(queue)
    }

    private init(invoking: Void) {
        queue = nil
        marker = nil
        policy = .invoke
    }

    /// The library's serial callback queue (the default everywhere).
    public static let shared = CallbackQueue(DispatchQueue(label: "webimage.callbacks", qos: .userInitiated))
    /// The main queue: inline when already on the main thread, otherwise dispatched to it.
    public static let main = CallbackQueue(DispatchQueue.main, policy: .safeExecute)
    /// Runs every block inline on the calling thread.
    public static let immediate = CallbackQueue(invoking: ())

    /// Runs `block` according to ``policy``.
    public func execute(_ block: @escaping @Sendable () -> Void) {
        guard let queue, policy != .invoke else { return block() }
        if policy == .safeExecute, isCurrent { return block() }
        queue.async(execute: block)
    }

    /// True when ``execute(_:)`` would run a block inline on the calling thread right now.
    public var runsInline: Bool {
        guard queue != nil, policy != .invoke else { return true }
        return policy == .safeExecute && isCurrent
    }

    /// True when the calling code is running on this queue.
    public var isCurrent: Bool {
        guard let queue else { return true }
        if queue === DispatchQueue.main { return Thread.isMainThread }
        guard let marker else { return false }
        return DispatchQueue.getSpecific(key: QueueMarker.key) === marker
    }
}

/// An identity tag set on a dispatch queue so code can tell it is running there.
private final class QueueMarker: Sendable {
    static let key = DispatchSpecificKey<QueueMarker>()

    static func mark(_ queue: DispatchQueue) -> QueueMarker? {
        if queue === DispatchQueue.main { return nil }
        if let existing = queue.getSpecific(key: key) { return existing }
        let marker = QueueMarker()
        queue.setSpecific(key: key, value: marker)
        return marker
    }
}
