import Crypto
import WebImage

/// Every server setting that changes a result's bytes — the default quality and each format's,
/// the copyright and colour-profile defaults, the animation frames kept, the result-dimension
/// limit, the format negotiation flags, the `format:best` search's settings and revision, the
/// processing's own revision and the encoder libraries' versions — digested into a short tag that
/// ends every result key (memory, disk and the shared tier), so two configurations sharing a cache
/// directory or a Redis never serve each other's results.
enum ResultRecipe {
    /// Raised whenever the processing makes other bytes for the same URL.
    static let processingRevision = 3

    /// The tag for `configuration`: 16 hex digits of a SHA-256 over its settings.
    static func tag(for configuration: ServerConfiguration) -> String {
        let settings = [
            "revision \(processingRevision)",
            "quality \(configuration.defaultQuality) webp 79 avif 63",
            "keep-copyright \(configuration.keepCopyright) strip-color-profile \(configuration.stripColorProfile)",
            "frames \(configuration.maxAnimationFrames)",
            "dimension \(configuration.maxResultDimension)",
            "auto-webp \(configuration.autoWebP) auto-avif \(configuration.autoAVIF)",
            "best ssim \(configuration.autoQualityTarget) quality \(configuration.autoQualityMin)-\(configuration.autoQualityMax) encodes \(configuration.bestFormatMaxEncodes) pixels \(configuration.bestFormatMaxResolution) revision \(AutoQualitySearch.revision)",
            EncoderVersions.summary,
        ].joined(separator: "\n")
        return SHA256.hash(data: Array(settings.utf8)).prefix(8).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
        }.joined()
    }
}
