import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WebImage

/// One encoded result, ready to send, with the headers every answer for it shares made once, so
/// that a cache hit only copies them (`Cache-Control` is added per answer: it counts down with
/// the source's freshness).
struct ServedImage: Sendable {
    /// The encoded bytes, in the buffer every response for them shares.
    let body: ByteBuffer
    let format: ImageFormat
    /// A strong validator: the source's identity and the result's recipe (``ResultETag``).
    let etag: String
    /// The `Content-Disposition` file name stem.
    let filenameStem: String
    let returnAttachment: Bool
    /// The options' expiry, which caps the result's max-age.
    let expires: Int64?
    /// Whether the format was picked from the request's `Accept`.
    let negotiated: Bool
    /// The source the result was made from, and the identity of its bytes then
    /// (``SourceRecord/identity``); nil for neither.
    let source: URL?
    let sourceIdentity: String?
    /// `ETag`, `X-Content-Type-Options`, `Vary` and the source's `Last-Modified`: the headers of a 304.
    let validatorHeaders: HTTPFields
    /// The validator headers plus `Content-Type`, `Content-Length` and `Content-Disposition` (and
    /// for an SVG a `Content-Security-Policy` that runs nothing): the headers of a 200.
    let headers: HTTPFields

    init(body: ByteBuffer, format: ImageFormat, etag: String, filenameStem: String, returnAttachment: Bool,
         expires: Int64?, negotiated: Bool, varyAccept: Bool = false, source: URL? = nil,
         sourceIdentity: String? = nil, lastModified: String? = nil) {
        self.body = body
        self.format = format
        self.etag = etag
        self.filenameStem = filenameStem
        self.returnAttachment = returnAttachment
        self.expires = expires
        self.negotiated = negotiated
        self.source = source
        self.sourceIdentity = sourceIdentity
        var validators = HTTPFields()
        validators[.eTag] = etag
        validators[.xContentTypeOptions] = "nosniff"
        if varyAccept { validators[.vary] = "Accept" }
        if let lastModified { validators[.lastModified] = lastModified }
        validatorHeaders = validators
        var all = validators
        all[.contentType] = format.mimeType
        // An SVG (a raw answer) is shown as a picture, never run as a page of this server's origin.
        if format == .svg { all[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'; sandbox" }
        all[.contentLength] = String(body.readableBytes)
        all[.contentDisposition] = ResultResponse.disposition(stem: filenameStem, format: format,
                                                              attachment: returnAttachment)
        headers = all
    }
}
