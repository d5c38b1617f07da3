import Foundation
import WebImageCodecs

/// Builds URLs for an image server with imgproxy's URL API — imgproxy itself or `webimage serve`:
/// `/{signature}/{option}/{option}/…/plain/{source}[@{extension}]`, or the base64 source form.
///
/// A value holds the options (in order: a later one overrides an earlier one on the server), the
/// source and how it is written; ``path()`` gives the part that is signed, ``signedPath(with:)``
/// and ``url(base:signer:)`` the finished request. The builder methods return a changed copy and
/// throw ``WebImageError/Code/invalidURL`` for values the server would refuse (a negative size, a
/// quality above 100, an option argument holding `/` or `:`), so a bad URL never leaves the app.
///
/// ```swift
/// let url = try ImageServerURL(source: "https://example.com/cat.jpg")
///     .sized(forPoints: 120, 80, scale: 3)
///     .choosingFormat(accept: "image/avif,image/webp,*/*")
///     .url(base: URL(string: "https://img.example.com")!,
///          signer: ImageServerSigner(key: keyHex, salt: saltHex))
/// ```
public struct ImageServerURL: Sendable, Hashable {
    /// One processing option, `name:arg1:arg2…` in the path.
    public struct Option: Sendable, Hashable {
        /// The full or short name (`resize`, `rs`, `q`, …).
        public let name: String
        /// The arguments, in order; empty strings stand for "keep the current value".
        public let arguments: [String]

        /// An option; ``ImageServerURL/path()`` checks its characters.
        public init(_ name: String, _ arguments: [String]) {
            self.name = name
            self.arguments = arguments
        }
    }

    /// How the source URL is written in the path.
    public enum SourceEncoding: Sendable, Hashable {
        /// `plain/` and the URL, with `%`, `?`, `@`, `#` and anything a path cannot hold percent-encoded.
        case plain
        /// URL-safe base64 without padding, optionally split into segments of `chunkLength`
        /// characters (1...1024) so no path segment grows too long.
        case base64(chunkLength: Int?)
    }

    /// The resizing types of the `rs` option.
    public enum ResizingType: String, Sendable, Hashable, CaseIterable {
        /// Keeps the aspect ratio; the result fits inside the size.
        case fit
        /// Keeps the aspect ratio; the result covers the size and is cropped to it.
        case fill
        /// Like `fill`, but never enlarges.
        case fillDown = "fill-down"
        /// Ignores the aspect ratio: exactly the size.
        case force
        /// `fill` when the source and the size have the same orientation, else `fit`.
        case auto
    }

    /// The largest width or height the sizing builders write.
    public static let maximumDimension = 100_000

    /// The source image's URL (`https://…`, `s3://…`, `local:///…`), as the server should fetch it.
    public var source: String
    /// The processing options, in the order they are written.
    public var options: [Option]
    /// How ``source`` is written.
    public var sourceEncoding: SourceEncoding
    /// The output format as an extension (`webp`, `png`, …), written after the source; the
    /// server lets it override any `format` option.
    public var fileExtension: String?

    /// A URL for `source` with no options yet.
    public init(source: String, options: [Option] = [], sourceEncoding: SourceEncoding = .plain,
                fileExtension: String? = nil) {
        self.source = source
        self.options = options
        self.sourceEncoding = sourceEncoding
        self.fileExtension = fileExtension
    }

    /// This URL with `name:arguments…` appended, checked as ``path()`` would check it.
    public func option(_ name: String, _ arguments: String...) throws -> Self {
        try option(Option(name, arguments))
    }

    /// This URL with `option` appended, checked as ``path()`` would check it.
    public func option(_ option: Option) throws -> Self {
        try ImageServerPathWriter.check(option)
        var copy = self
        copy.options.append(option)
        return copy
    }

    /// This URL with `rs:TYPE:WIDTH:HEIGHT[:1]` (0 for a side means "from the other side").
    public func resize(_ type: ResizingType = .fit, width: Int, height: Int, enlarge: Bool = false) throws -> Self {
        try Self.checkDimension(width, "width")
        try Self.checkDimension(height, "height")
        var arguments = [type.rawValue, String(width), String(height)]
        if enlarge { arguments.append("1") }
        return try option(Option("rs", arguments))
    }

    /// This URL with `q:QUALITY` (1–100; 0 means the server's default).
    public func quality(_ quality: Int) throws -> Self {
        guard (0...100).contains(quality) else {
            throw WebImageError(.invalidURL, "A quality is 0–100; got \(quality).")
        }
        return try option("q", String(quality))
    }

    /// This URL with `dpr:SCALE`, which the server multiplies the size by (0.01–20).
    public func dpr(_ scale: Double) throws -> Self {
        guard scale.isFinite, scale >= 0.01, scale <= 20 else {
            throw WebImageError(.invalidURL, "A device pixel ratio is 0.01–20; got \(scale).")
        }
        return try option("dpr", Self.decimal(scale))
    }

    /// This URL with `f:FORMAT` (`webp`, `avif`, `jpeg`, …).
    public func format(_ format: String) throws -> Self {
        try option("f", format)
    }

    /// This URL with `pr:NAME:NAME…`: the server's presets, applied in order.
    public func preset(_ names: String...) throws -> Self {
        guard !names.isEmpty else { throw WebImageError(.invalidURL, "A preset option needs at least one name.") }
        return try option(Option("pr", names))
    }

    /// The path the signature covers: `/option/…/plain/source[@ext]` (or the base64 form), from
    /// the `/` after the signature segment. Throws when an option, the extension or the source
    /// cannot be written.
    public func path() throws -> String {
        try ImageServerPathWriter.path(for: self)
    }

    /// `/SIGNATURE` + ``path()``, signed by `signer`; with no signer the segment is `insecure`,
    /// which a server without keys accepts.
    public func signedPath(with signer: ImageServerSigner?) throws -> String {
        let path = try path()
        return "/" + (signer?.signature(for: path) ?? "insecure") + path
    }

    /// The whole URL: `base` (the server's address, with any path prefix) followed by
    /// ``signedPath(with:)``.
    public func url(base: URL, signer: ImageServerSigner?) throws -> URL {
        var prefix = base.absoluteString
        while prefix.hasSuffix("/") { prefix.removeLast() }
        let text = prefix + (try signedPath(with: signer))
        guard let url = URL(string: text) else {
            throw WebImageError(.invalidURL, "\(text) is not a valid URL; check the server base.")
        }
        return url
    }

    static func checkDimension(_ value: Int, _ name: String) throws {
        guard (0...maximumDimension).contains(value) else {
            throw WebImageError(.invalidURL, "A \(name) is 0–\(maximumDimension) pixels; got \(value).")
        }
    }

    /// `value` without a trailing `.0` and never in exponent form (callers keep it in 0.01…1e5).
    static func decimal(_ value: Double) -> String {
        var text = String(format: "%.4f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
