import WebImageCodecs
import Foundation

/// When each stage of one download happened and how much it moved. Times are wall-clock dates;
/// a stage that never happened stays nil. In a finished download they come in order:
/// `queuedAt` ≤ `startedAt` ≤ `responseAt` ≤ `firstByteAt` ≤ `endedAt`.
///
/// There is no separate connect time, and ``ImageDownloader`` leaves ``connectionReused`` nil:
/// AsyncHTTPClient's async API reports neither when a connection was set up nor whether it came
/// from the pool, so connecting is part of ``timeToResponse`` rather than a guessed value.
public struct DownloadMetrics: Sendable {
    /// When the first caller asked for the URL.
    public var queuedAt: Date
    /// When the request left the queue and was handed to the HTTP client.
    public var startedAt: Date?
    /// When the final response head arrived (after redirects): connection set up and server answered.
    public var responseAt: Date?
    /// When the first body byte arrived.
    public var firstByteAt: Date?
    /// When the download ended (body complete, failed or cancelled).
    public var endedAt: Date?
    /// Body bytes of the final response, resumed bytes included.
    public var bytesReceived: Int64 = 0
    /// Body bytes kept from an earlier attempt that was cut short, not sent again: the download
    /// asked for the rest with `Range` / `If-Range` and the server answered 206.
    public var resumedBytes: Int64 = 0
    /// The final HTTP status, when a response arrived.
    public var statusCode: Int?
    /// Redirects followed before the final response.
    public var redirectCount = 0
    /// Attempts after the first (``RetryStrategy``); the stage times above are the last attempt's.
    public var retryCount = 0
    /// Callers that shared this download (1 when nobody joined).
    public var callerCount = 1
    /// Whether the connection came from the pool. AsyncHTTPClient does not report it, so
    /// ``ImageDownloader`` leaves it nil; a custom loader that can tell may set it.
    public var connectionReused: Bool?

    /// Metrics for a download queued at `queuedAt`; the later stages are filled in as they happen.
    public init(queuedAt: Date = Date()) {
        self.queuedAt = queuedAt
    }

    /// Seconds spent waiting in the downloader's queue.
    public var queueDuration: TimeInterval? { startedAt.map { $0.timeIntervalSince(queuedAt) } }
    /// Seconds from start to the response head (connect, request, server think time).
    public var timeToResponse: TimeInterval? {
        guard let startedAt, let responseAt else { return nil }
        return responseAt.timeIntervalSince(startedAt)
    }
    /// Seconds from start to the end.
    public var totalDuration: TimeInterval? {
        guard let startedAt, let endedAt else { return nil }
        return endedAt.timeIntervalSince(startedAt)
    }
}
