import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WebImage

/// The HTTP answer for a result: its bytes (none for HEAD or a matching `If-None-Match`), the
/// content type, a strong ETag, how long it may be cached, and how a browser should treat it.
enum ResultResponse {
    /// The status, headers and body (nil: none) answering a `method` request for `served`, with
    /// `cacheControl` (see ``FreshnessPolicy/cacheControl(freshUntil:expires:now:)``).
    static func parts(_ served: ServedImage, method: HTTPRequest.Method, ifNoneMatch: String?,
                      cacheControl: String) -> (HTTPResponse.Status, HTTPFields, ByteBuffer?) {
        let notModified = matches(ifNoneMatch, served.etag)
        var headers = notModified ? served.validatorHeaders : served.headers
        headers[.cacheControl] = cacheControl
        if notModified { return (.notModified, headers, nil) }
        return (.ok, headers, method == .head ? nil : served.body)
    }

    /// Whether an `If-None-Match` list names `etag` (or is `*`).
    static func matches(_ ifNoneMatch: String?, _ etag: String) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    /// `inline` or `attachment`, with the file name's quotes, backslashes and control characters
    /// escaped so that a name from the URL cannot add a header or break out of the quotes.
    static func disposition(stem: String, format: ImageFormat, attachment: Bool) -> String {
        var name = ""
        for scalar in stem.unicodeScalars {
            switch scalar {
            case "\"": name += "%22"
            case "\\": name += "%5C"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: name += "_"
            default: name.unicodeScalars.append(scalar)
            }
        }
        return "\(attachment ? "attachment" : "inline"); filename=\"\(name).\(format.fileExtension)\""
    }
}
