/// The server's bounds on one request's work, after the URL's own limits (`msr`) have tightened
/// them: what a ``JobPlan`` is checked against before a pixel is decoded.
struct JobLimits: Sendable, Equatable {
    /// The most pixels a source may have, all its frames together (`--max-src-resolution`, or a
    /// smaller `msr`); an animation's frames produced count against it too.
    var maxSourcePixels: Int
    /// The longest side a result may have (`--max-result-dimension`); 0 is none.
    var maxResultDimension: Int
    /// Frames of an animation processed; 1 is the first frame only.
    var maxFrames: Int
    /// The largest result (in pixels) that `format:best` searches formats and qualities for
    /// (`--best-format-max-resolution`); 0 searches none.
    var maxQualitySearchPixels: Int

    /// The most pixels one bitmap made along the way may have: a source's worth, or a result as
    /// large as the dimension limit allows, whichever is more.
    var maxBitmapPixels: Int {
        let (square, overflow) = maxResultDimension.multipliedReportingOverflow(by: maxResultDimension)
        return overflow ? Int.max : max(maxSourcePixels, square)
    }

    /// The server's limits, tightened by a URL's `msr` (megapixels; never loosened).
    init(maxSourcePixels: Int, maxResultDimension: Int, maxFrames: Int, urlMegapixels: Double? = nil,
         maxQualitySearchPixels: Int = 0) {
        var pixels = maxSourcePixels
        if let urlMegapixels, urlMegapixels > 0, urlMegapixels * 1_000_000 < Double(pixels) {
            pixels = Int(urlMegapixels * 1_000_000)
        }
        self.maxSourcePixels = pixels
        self.maxResultDimension = maxResultDimension
        self.maxFrames = maxFrames
        self.maxQualitySearchPixels = maxQualitySearchPixels
    }
}
