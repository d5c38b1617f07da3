import Foundation

/// Parses and checks imgproxy URLs: `/SIGNATURE/OPTION/OPTION/…/plain/SOURCE[@ext]` or
/// `/SIGNATURE/OPTION/…/BASE64SOURCE[.ext]`, verifying the signature when a signer is configured,
/// applying the `default` preset first and the extension last.
///
/// To build a signed URL, sign the path from its `/` after the signature:
/// `signer.signedPath("/rs:fit:300:300/plain/https://example.com/a.jpg")`. Without a signer any
/// signature segment is accepted (e.g. `/insecure/…`) except one containing `:`.
public struct ImageURLParser: Sendable {
    /// Checks signatures; nil turns signing off (and with it the security options).
    public let signer: URLSigner?
    /// The presets, name → options path, as configured.
    public let presets: [String: String]
    /// The current unix time in seconds, for `expires`.
    public let now: @Sendable () -> Int64
    private let parsedPresets: [String: [URLOption]]

    /// A parser with `signer` (nil: unsigned URLs), `presets` (`name` → `rs:fit:300:300/q:70`;
    /// `default` applies to every URL) and a clock for `expires`. Throws when a preset does not
    /// parse or names an unknown option, a bad argument or an unknown preset.
    public init(signer: URLSigner? = nil, presets: [String: String] = [:],
                now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) })
        throws(URLConfigurationError) {
        self.signer = signer
        self.presets = presets
        self.now = now
        parsedPresets = try Presets.parse(presets)
        let checker = OptionApplier(presets: parsedPresets, allowsSecurityOptions: signer != nil, now: nil)
        for (name, options) in parsedPresets.sorted(by: { $0.key < $1.key }) {
            var scratch = ProcessingOptions()
            do throws(ImageURLError) {
                try checker.apply(options, to: &scratch, presetChain: [name])
            } catch {
                throw URLConfigurationError("Preset \"\(name)\": \(error.message)")
            }
        }
    }

    /// The options and source of `requestTarget`, the raw request target (path and optional query,
    /// not percent-decoded). Throws an ``ImageURLError`` carrying the HTTP status to answer with.
    public func parse(_ requestTarget: String) throws(ImageURLError) -> ParsedImageURL {
        try parse(requestTarget, settingAside: []).parsed
    }

    /// ``parse(_:)`` for an endpoint with options of its own: options named in `names` are taken
    /// out of the URL (still signed with it) and returned in order, unapplied.
    func parse(_ requestTarget: String, settingAside names: Set<String>)
        throws(ImageURLError) -> (parsed: ParsedImageURL, setAside: [URLOption]) {
        let request = try RequestPath(requestTarget)
        if let signer {
            guard signer.isValid(signature: request.signature, for: request.path) else { throw .invalidSignature }
        } else if request.signature.contains(":") {
            throw .missingSignature(String(request.signature))
        }

        let segments = request.path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        if let first = segments.first, ProcessingOptions.ResizingType(rawValue: String(first)) != nil {
            throw .invalidURL("\"/\(first)/…\" is imgproxy's old basic URL format; use rs:\(first):W:H options.")
        }

        var options = ProcessingOptions()
        let applier = OptionApplier(presets: parsedPresets, allowsSecurityOptions: signer != nil, now: now())
        if let defaults = parsedPresets[Presets.defaultName] {
            try applier.apply(defaults, to: &options, presetChain: [Presets.defaultName])
        }
        var index = segments.startIndex
        var urlOptions: [URLOption] = []
        var setAside: [URLOption] = []
        while index < segments.endIndex, let option = URLOption(segment: segments[index]) {
            if names.contains(option.name) { setAside.append(option) } else { urlOptions.append(option) }
            index += 1
        }
        try applier.apply(urlOptions, to: &options)

        let (source, fileExtension) = try SourceURL.decode(segments[index...])
        // A raw answer is the source's own bytes: the extension names no format for it (as in imgproxy).
        if let fileExtension, !options.raw {
            try URLOption(name: "extension", arguments: [fileExtension]).applyFormat(fileExtension, to: &options)
        }
        return (ParsedImageURL(options: options, source: source), setAside)
    }
}
