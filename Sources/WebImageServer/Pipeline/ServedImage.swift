import HTTPTypes
import Hummingbird
import NIOCore
import WebImage

/// One encoded result, ready to send, with the headers every answer for it shares made once, so
/// that a cache hit only copies them.
struct ServedImage: Sendable {
    /// The encoded bytes, in the buffer every response for them shares.
    let body: ByteBuffer
    let format: ImageFormat
    /// A strong validator of these bytes.
    let etag: String
    /// The `Content-Disposition` file name stem.
    let filenameStem: String
    let returnAttachment: Bool
    /// The options' expiry, which caps the result's max-age.
    let expires: Int64?
    /// Whether the format was picked from the request's `Accept`.
    let negotiated: Bool
    /// `ETag`, `X-Content-Type-Options`, `Vary` and, without an expiry, `Cache-Control`: the
    /// headers of a 304.
    let validatorHeaders: HTTPFields
    /// The validator headers plus `Content-Type`, `Content-Length` and `Content-Disposition`: the
    /// headers of a 200.
    let headers: HTTPFields

    init(body: ByteBuffer, format: ImageFormat, etag: String, filenameStem: String, returnAttachment: Bool,
         expires: Int64?, negotiated: Bool, ttl: Int = 31_536_000, varyAccept: Bool = false) {
        self.body = body
        self.format = format
        self.etag = etag
        self.filenameStem = filenameStem
        self.returnAttachment = returnAttachment
        self.expires = expires
        self.negotiated = negotiated
        var validators = HTTPFields()
        validators[.eTag] = etag
        validators[.xContentTypeOptions] = "nosniff"
        if varyAccept { validators[.vary] = "Accept" }
        // With an expiry the max-age depends on the time of the request.
        if expires == nil || expires! <= 0 { validators[.cacheControl] = ttl > 0 ? "public, max-age=\(ttl)" : "no-cache" }
        validatorHeaders = validators
        var all = validators
        all[.contentType] = format.mimeType
        all[.contentLength] = String(body.readableBytes)
        all[.contentDisposition] = ResultResponse.disposition(stem: filenameStem, format: format,
                                                              attachment: returnAttachment)
        headers = all
    }
}
