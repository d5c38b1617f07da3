extension ServerConfiguration {
    /// Throws a ``URLConfigurationError`` naming the first `format:best` setting out of range.
    func checkBestFormat() throws(URLConfigurationError) {
        func check(_ ok: Bool, _ message: String) throws(URLConfigurationError) {
            if !ok { throw URLConfigurationError(message) }
        }
        try check(autoQualityTarget.isFinite && autoQualityTarget > 0 && autoQualityTarget <= 1,
                  "autoQualityTarget takes an SSIM above 0 and at most 1, got \(autoQualityTarget).")
        try check((1...100).contains(autoQualityMin) && (1...100).contains(autoQualityMax) && autoQualityMin <= autoQualityMax,
                  "autoQualityMin and autoQualityMax take 1–100, the minimum not above the maximum; got \(autoQualityMin) and \(autoQualityMax).")
        try check((2...100).contains(bestFormatMaxEncodes), "bestFormatMaxEncodes takes 2–100, got \(bestFormatMaxEncodes).")
        try check((0...1_000_000_000_000).contains(bestFormatMaxResolution),
                  "bestFormatMaxResolution takes 0–10¹² pixels, got \(bestFormatMaxResolution).")
    }
}
