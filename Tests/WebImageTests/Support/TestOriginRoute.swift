import Foundation
import Synchronization

/// What the test origin answers on one path: status, headers, body and how the body is sent.
struct TestOriginRoute: Sendable {
    /// How the body goes out on the wire.
    enum BodyMode: Sendable {
        /// All at once, with Content-Length.
        case whole
        /// Chunked transfer encoding (no Content-Length), in pieces of this many bytes.
        case chunked(Int)
        /// With Content-Length, `chunk` bytes at a time, waiting `interval` between pieces.
        case trickle(chunk: Int, interval: Duration)
        /// With the full Content-Length, send this many bytes, then nothing until the client leaves.
        case stallAfter(Int)
        /// With the full Content-Length, send this many bytes, then close the connection.
        case closeAfter(Int)
        /// With Content-Length `bytes`: the body, then filler up to `bytes`, made `chunk` bytes at a
        /// time as the client reads (so a huge body costs no memory); stops when the client leaves.
        case generated(bytes: Int, chunk: Int)
        /// Like ``generated(bytes:chunk:)`` but with chunked transfer encoding (no Content-Length).
        case generatedChunked(bytes: Int, chunk: Int)
        /// With Content-Length, send this many bytes, then the rest once `gate` opens (or never,
        /// if the client leaves first): a body paused at a point the test chooses.
        case gated(Int, TestGate)
        /// With Content-Length, send the body up to each step's byte count, then wait for that
        /// step's gate (the test opens it, typically once the client has acknowledged those bytes),
        /// then the rest.
        case stepped([BodyStep])
    }

    var status: Int = 200
    var contentType: String? = "application/octet-stream"
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    /// Wait this long before sending the response head.
    var delay: Duration = .zero
    var mode: BodyMode = .whole
    /// Sent as ETag; a request whose If-None-Match equals it gets 304.
    var etag: String?
    /// Sent as Last-Modified; a request whose If-Modified-Since equals it gets 304.
    var lastModified: String?
    /// When set, requests without these Basic credentials get 401 with a Basic challenge.
    var basicAuth: (user: String, password: String)?
    /// Close the connection as soon as the request arrives, with no response at all.
    var closeWithoutResponse = false
    /// Answers `Range: bytes=K-` (sends `Accept-Ranges: bytes`): a 206 with the rest of the body
    /// when `If-Range` is absent or matches ``etag`` or ``lastModified``, a 416 past the end.
    var acceptsRanges = false
    /// Sent as Content-Length instead of the real size: a lying header (ignored for chunked modes).
    var contentLength: Int?

    init(status: Int = 200, contentType: String? = "application/octet-stream",
         headers: [(name: String, value: String)] = [], body: [UInt8] = [], delay: Duration = .zero,
         mode: BodyMode = .whole) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
        self.delay = delay
        self.mode = mode
    }

    /// A body of `bytes` with `contentType`.
    static func data(_ bytes: [UInt8], contentType: String = "application/octet-stream",
                     delay: Duration = .zero, mode: BodyMode = .whole) -> TestOriginRoute {
        TestOriginRoute(contentType: contentType, body: bytes, delay: delay, mode: mode)
    }

    /// A redirect to `location` (absolute or relative).
    static func redirect(to location: String, status: Int = 302) -> TestOriginRoute {
        TestOriginRoute(status: status, contentType: nil, headers: [("Location", location)])
    }

    /// A connection that closes with no response.
    static let hangUp: TestOriginRoute = {
        var route = TestOriginRoute()
        route.closeWithoutResponse = true
        return route
    }()

    /// A bare status with a short text body.
    static func status(_ code: Int) -> TestOriginRoute {
        TestOriginRoute(status: code, contentType: "text/plain", body: Array("status \(code)".utf8))
    }
}

/// One request the origin received, as the test sees it.
struct TestOriginRequest: Sendable {
    var path: String
    var method: String
    var headers: [(name: String, value: String)]

    /// The first value of header `name` (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Totals the origin keeps for assertions.
struct TestOriginStats: Sendable {
    var requestsPerPath: [String: Int] = [:]
    var requests: [TestOriginRequest] = []
    var inFlight = 0
    var maxInFlight = 0
    var connectionsAccepted = 0
    /// Connections the client closed (EOF or reset) rather than the origin.
    var connectionsClosedByClient = 0
    /// Responses the client abandoned before the origin finished sending them.
    var abortedResponses = 0
    /// Responses the origin sent to the end.
    var completedResponses = 0
    /// When each connection was accepted and closed (by either side), in accept order.
    var connectionTimes: [ConnectionTimes] = []
}

/// One connection's lifetime on the origin's monotonic clock, taken on its event loop.
struct ConnectionTimes: Sendable {
    let accepted: ContinuousClock.Instant
    var closed: ContinuousClock.Instant?

    /// How long the connection was open, once it has closed.
    var lifetime: Duration? { closed.map { $0 - accepted } }
}

/// One pause of a ``TestOriginRoute/BodyMode/stepped(_:)`` body: send through `through` bytes,
/// then wait for `gate`.
struct BodyStep: Sendable {
    let through: Int
    let gate: TestGate
}
