import WebImageCodecs
import Foundation

/// One caller's handle on a (possibly shared) download: cancel it, or read the request, the
/// response and the timings of the download behind it.
public final class ImageDownloadToken: ImageLoadCancellable {
    /// The URL this caller asked for.
    public let url: URL
    private let operation: DownloadOperation
    private let handlerID: UInt64
    private let queue: DownloadQueue

    init(url: URL, operation: DownloadOperation, handlerID: UInt64, queue: DownloadQueue) {
        self.url = url
        self.operation = operation
        self.handlerID = handlerID
        self.queue = queue
    }

    /// The request as sent first (after the request modifier; the first caller's).
    public var request: ImageDownloadRequest { operation.plan.request }

    /// The final response head, once it arrived (after the response modifier).
    public var response: ImageResponseInfo? { operation.response }

    /// Timings and sizes of the download so far.
    public var metrics: DownloadMetrics { operation.metrics }

    /// Ends this caller with ``WebImageError/Code/cancelled``; the HTTP request is cancelled only
    /// when no other caller shares it. Idempotent.
    public func cancel() {
        if operation.cancel(handler: handlerID) { queue.cancelled(operation) }
    }
}
