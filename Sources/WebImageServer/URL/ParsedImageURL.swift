/// What an image URL asks for, once parsed and checked: the options (presets and the extension
/// applied), the source URL, and a key naming the result for caches.
public struct ParsedImageURL: Sendable, Equatable {
    /// The processing options; the URL's extension, if any, is in ``ProcessingOptions/format``.
    public var options: ProcessingOptions
    /// The source URL, decoded (percent-escapes or base64 undone).
    public var source: String
    /// A stable string identifying the result: the effective options in one fixed order and
    /// spelling, then `|` and the source. Equal for URLs that differ only in option order, aliases,
    /// presets or signature.
    public var canonicalKey: String

    /// A parsed URL for `options` and `source`, its ``canonicalKey`` derived from them.
    public init(options: ProcessingOptions, source: String) {
        self.options = options
        self.source = source
        canonicalKey = options.canonicalPath + "|" + source
    }
}
