import ArgumentParser
import Foundation

/// The URLs `get` and `prefetch` take, parsed one way with one error message.
enum URLArguments {
    /// `texts` as URLs; a usage error naming the first one that is not an absolute URL.
    static func parse(_ texts: [String]) throws -> [URL] {
        try texts.map { text in
            guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else {
                throw ValidationError("Bad URL '\(text)': expected an absolute http(s), s3:, file: or data: URL.")
            }
            return url
        }
    }
}
