import WebImageCodecs
import Foundation

/// How urgent a download is; a queued download runs at the highest priority of its callers.
enum DownloadPriority: Int, Comparable, Sendable {
    case low, normal, high

    init(_ options: WebImageOptions) {
        if options.contains(.highPriority) {
            self = .high
        } else if options.contains(.lowPriority) {
            self = .low
        } else {
            self = .normal
        }
    }

    static func < (lhs: DownloadPriority, rhs: DownloadPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Everything one network download needs, fixed by the first caller (SDWebImage: the first
/// request's options, modifiers and request win).
struct DownloadPlan: Sendable {
    var request: ImageDownloadRequest
    var timeout: TimeInterval
    /// The seconds allowed for getting a connection.
    var connectTimeout: TimeInterval
    var maximumResponseSize: Int
    var maximumRedirects: Int
    /// Bytes of a refused response's body kept in its error (0: none, and the body is not read).
    var errorBodyLimit = 0
    /// The prefixes every hop's URL must be under; nil admits every URL.
    var sourceAllowList: SourceAllowList?
    var acceptableStatusCodes: Set<Int>?
    var acceptableContentTypes: Set<String>?
    var credential: DownloadCredential?
    var handleCookies: Bool
    var allowInvalidCertificates: Bool
    var responseModifier: DownloadResponseModifier?
    var decryptor: DownloadDecryptor?
    var progressiveLoad: Bool
    var minimumProgressInterval: Double
    var coder: any ImageCoding
    /// The first caller's decode options, used for partial images.
    var partialDecodeOptions: DecodeOptions
    /// When a failure is tried again (nil: never), and the clock its waits run on.
    var retryStrategy: RetryStrategy?
    var clock: any Clock<Duration>

    /// The strategy that applies to this request: only GET is retried.
    var effectiveRetryStrategy: RetryStrategy? {
        guard let retryStrategy, retryStrategy.maxRetries > 0, request.method.uppercased() == "GET" else { return nil }
        return retryStrategy
    }
}

/// One caller's share of a download: its decode options, priority and callbacks. The completion
/// sits in an ``ExactlyOnce``, so however the download routes its results the caller gets one.
struct DownloadHandler: Sendable {
    let id: UInt64
    let decodeOptions: DecodeOptions
    let priority: DownloadPriority
    let progress: ImageLoadProgress?
    let completion: ExactlyOnce<ImageLoadCompletion, Never>

    init(id: UInt64, decodeOptions: DecodeOptions, priority: DownloadPriority, progress: ImageLoadProgress?,
         completion: @escaping ImageLoadCompletion) {
        self.id = id
        self.decodeOptions = decodeOptions
        self.priority = priority
        self.progress = progress
        self.completion = ExactlyOnce(completion)
    }
}

/// What the HTTP exchange produced.
struct FetchOutcome: Sendable {
    var data: Data
    var response: ImageResponseInfo
    /// The server answered 304 to the validators.
    var notModified: Bool
}

/// Receives the events of one HTTP exchange as they happen.
protocol FetchObserver: Sendable {
    /// The final response head arrived (after redirects and the response modifier), before validation.
    func fetchDidReceiveResponse(_ response: ImageResponseInfo, redirects: Int)
    /// The response passed validation; the body of `expected` bytes (0 if unknown) follows.
    func fetchDidAcceptResponse(expected: Int64)
    /// Body bytes arrived, `received` in all; `snapshot` gives every byte so far without copying
    /// (a view that later chunks leave untouched), for observers that decode partial images.
    func fetchDidReceive(received: Int, expected: Int64, snapshot: () -> Data)
    /// The body continues `bytes` kept from an earlier attempt (a ranged request was answered).
    func fetchDidResume(bytes: Int)
}
