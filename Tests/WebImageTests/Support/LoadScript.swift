import Foundation
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// What one ``ScriptedLoader`` load of a URL does, in the order a network load does it:
/// progress `(0, -1)` as it starts, the response (progress `(0, total)`), the body up to each of
/// ``chunks`` (progress, and a partial image after each with `progressiveLoad`), then the rest of
/// the body decoded through the loaders' decode path — or, with ``failure``, that error instead
/// of the rest (a truncated body, a reset, a status the downloader refuses).
/// A load can stop at a ``HoldPoint`` until the test releases it.
struct LoadScript: Sendable {
    /// Where a load stops until ``ScriptedLoader/release(_:)``.
    enum HoldPoint: Sendable, Hashable, CustomStringConvertible {
        /// Started, before the response or any byte.
        case started
        /// Every chunk delivered, before the rest of the body and the final result.
        case beforeCompletion

        var description: String { self == .started ? "started" : "beforeCompletion" }
    }

    /// The response body (what arrived, for a failure after some chunks).
    var body: [UInt8] = []
    /// Ends the load after the chunks instead of the rest of the body.
    var failure: WebImageError?
    var statusCode = 200
    var contentType: String?
    /// Sent as ETag / Last-Modified. A request whose context carries an equal validator is answered
    /// with ``WebImageError/Code/cacheNotModified`` (a 304), as an origin does.
    var validators = HTTPValidators()
    /// More response headers (Cache-Control, Expires, Date, Age…), sent with 304s too.
    var headers: [HTTPHeaderField] = []
    /// Byte counts at which the body pauses before the rest arrives (ascending, below the total).
    var chunks: [Int] = []
    var holds: Set<HoldPoint> = []

    /// A 200 response with `bytes` as its body.
    static func body(_ bytes: [UInt8], contentType: String? = nil) -> LoadScript {
        LoadScript(body: bytes, contentType: contentType)
    }

    /// A 200 response with an encoded picture of `width`×`height` (PNG).
    static func png(_ width: Int, _ height: Int) -> LoadScript {
        .body(ManagerFixtures.png(width, height), contentType: "image/png")
    }

    /// A failure with `code`, as the downloader reports it (the URL is filled in when the load runs).
    static func failure(_ code: WebImageError.Code, _ message: String = "Scripted failure.",
                        httpStatus: Int? = nil) -> LoadScript {
        var script = LoadScript(failure: WebImageError(code, message, httpStatus: httpStatus))
        if let httpStatus { script.statusCode = httpStatus }
        return script
    }

    /// An unacceptable HTTP status: ``WebImageError/Code/invalidDownloadStatusCode`` with it.
    static func status(_ code: Int) -> LoadScript {
        failure(.invalidDownloadStatusCode, "The server answered HTTP \(code).", httpStatus: code)
    }

    /// This script, stopping at `points` until released.
    func holding(_ points: HoldPoint...) -> LoadScript {
        var copy = self
        copy.holds.formUnion(points)
        return copy
    }

    /// This script with its body pausing after each of `byteCounts`.
    func inChunks(_ byteCounts: Int...) -> LoadScript {
        var copy = self
        copy.chunks = byteCounts
        return copy
    }

    /// This script with an ETag (and/or Last-Modified) validator.
    func validated(etag: String? = nil, lastModified: String? = nil) -> LoadScript {
        var copy = self
        copy.validators = HTTPValidators(etag: etag, lastModified: lastModified)
        return copy
    }

    /// This script with response header `name: value` added.
    func header(_ name: String, _ value: String) -> LoadScript {
        var copy = self
        copy.headers.append(HTTPHeaderField(name: name, value: value))
        return copy
    }

    /// True when a request carrying `validators` gets a 304 from this script.
    func answersNotModified(to request: HTTPValidators?) -> Bool {
        guard let request else { return false }
        let etag = validators.etag != nil && request.etag == validators.etag
        let date = validators.lastModified != nil && request.lastModified == validators.lastModified
        return etag || date
    }

    /// This script failing with `error` once its chunks have arrived (a body cut short).
    func failing(_ code: WebImageError.Code, _ message: String = "Scripted failure.") -> LoadScript {
        var copy = self
        copy.failure = WebImageError(code, message)
        return copy
    }

    /// The body's size: the total the progress calls report.
    var totalBytes: Int { body.count }

    /// The response head this script answers with.
    func response(for url: URL, statusCode: Int? = nil) -> ImageResponseInfo {
        var headers: [HTTPHeaderField] = []
        if let contentType { headers.append(HTTPHeaderField(name: "Content-Type", value: contentType)) }
        if let etag = validators.etag { headers.append(HTTPHeaderField(name: "ETag", value: etag)) }
        if let date = validators.lastModified { headers.append(HTTPHeaderField(name: "Last-Modified", value: date)) }
        headers += self.headers
        let status = statusCode ?? self.statusCode
        return ImageResponseInfo(url: url, statusCode: status, headers: headers,
                                 expectedContentLength: status == 304 ? nil : Int64(totalBytes))
    }
}
