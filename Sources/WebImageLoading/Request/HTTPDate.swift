import WebImageCodecs
import Foundation
import Synchronization

/// The date forms HTTP allows (RFC 9110 §5.6.7), all in GMT, and the four-digit-year form of the
/// RFC 850 date that cookies' `Expires` uses in practice. The formatters are built once: a date
/// is read for every stored response that carries `Date` or `Expires`.
enum HTTPDate {
    private static let formatters = Mutex([
        "EEE, dd MMM yyyy HH:mm:ss zzz",  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
        "EEEE, dd-MMM-yy HH:mm:ss zzz",   // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
        "EEE MMM d HH:mm:ss yyyy",        // asctime: Sun Nov  6 08:49:37 1994
        "EEE, dd-MMM-yyyy HH:mm:ss zzz",  // cookie Expires: Sun, 06-Nov-1994 08:49:37 GMT
    ].map { format in
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    })

    /// The date `value` names, or nil.
    static func parse(_ value: String) -> Date? {
        let collapsed = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return formatters.withLock { formatters in
            for formatter in formatters {
                if let date = formatter.date(from: collapsed) { return date }
            }
            return nil
        }
    }
}
