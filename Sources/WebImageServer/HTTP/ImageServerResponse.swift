import HTTPTypes
import Hummingbird
import NIOCore

/// The image server's answer to one request, for an HTTP framework of one's own to send: see
/// ``ImageServer/response(to:)``.
public struct ImageServerResponse: Sendable {
    /// The HTTP status: 200, 304, or the status of a ``ServerError``.
    public var status: HTTPResponse.Status
    /// Every header of the answer (`Content-Type`, `Content-Length`, `ETag`, `Cache-Control`,
    /// `X-Request-ID`, …), but `Date` and `Server`, which the framework that sends it adds.
    public var headers: HTTPFields
    /// The body; nil when the answer has none (a HEAD request, a 304), whose headers still
    /// describe the body a GET gets.
    public var body: ByteBuffer?

    /// An answer of `status` with `headers` and `body`.
    public init(status: HTTPResponse.Status, headers: HTTPFields = HTTPFields(), body: ByteBuffer? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The same answer as the server's Hummingbird application sends it.
    var hummingbirdResponse: Response {
        Response(status: status, headers: headers, body: body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody())
    }
}
