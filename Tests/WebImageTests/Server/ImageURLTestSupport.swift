@testable import WebImageServer

/// The fixed "now" of URL parser tests (2023-11-14).
let urlTestNow: Int64 = 1_700_000_000

/// A parser with a fixed clock.
func makeURLParser(signer: URLSigner? = nil, presets: [String: String] = [:]) throws -> ImageURLParser {
    try ImageURLParser(signer: signer, presets: presets, now: { urlTestNow })
}

/// The options of `/insecure/OPTIONS/plain/http://example.com/a.jpg` on an unsigned parser.
func urlOptions(_ options: String, presets: [String: String] = [:]) throws -> ProcessingOptions {
    try makeURLParser(presets: presets).parse("/insecure/\(options)/plain/http://example.com/a.jpg").options
}

/// The error `target` is refused with, or nil when it parses.
func urlFailure(_ target: String, _ parser: ImageURLParser) -> ImageURLError? {
    do {
        _ = try parser.parse(target)
        return nil
    } catch {
        return error
    }
}

/// The error `/insecure/OPTIONS/plain/http://example.com/a.jpg` is refused with on an unsigned parser.
func optionFailure(_ options: String, presets: [String: String] = [:]) throws -> ImageURLError? {
    urlFailure("/insecure/\(options)/plain/http://example.com/a.jpg", try makeURLParser(presets: presets))
}
