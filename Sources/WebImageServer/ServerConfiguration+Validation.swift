extension ServerConfiguration {
    /// Throws a ``URLConfigurationError`` naming the first setting out of range, so that no limit
    /// the server plans with can overflow: sizes and counts positive and bounded, timeouts finite.
    public func validate() throws(URLConfigurationError) {
        func check(_ ok: Bool, _ message: String) throws(URLConfigurationError) {
            if !ok { throw URLConfigurationError(message) }
        }
        try check((0...65535).contains(port), "port takes 0–65535, got \(port).")
        try check((1...32).contains(signatureSize), "signatureSize takes 1–32, got \(signatureSize).")
        try check(maxSourceBytes > 0, "maxSourceBytes must be positive, got \(maxSourceBytes).")
        try check((1...1_000_000_000_000).contains(maxSourceResolution),
                  "maxSourceResolution takes 1–10¹² pixels, got \(maxSourceResolution).")
        try check((0...65535).contains(maxResultDimension), "maxResultDimension takes 0–65535, got \(maxResultDimension).")
        try check(maxAnimationFrames >= 1, "maxAnimationFrames must be at least 1, got \(maxAnimationFrames).")
        try check(workers >= 1 && maxQueue >= 0, "workers must be positive and maxQueue not negative.")
        try check(maxURLLength > 0, "maxURLLength must be positive, got \(maxURLLength).")
        try check((1...100).contains(defaultQuality), "defaultQuality takes 1–100, got \(defaultQuality).")
        try checkBestFormat()
        try checkWatermark()
        try check(ttl >= 0 && sharedCacheTTL >= 0, "ttl and sharedCacheTTL must not be negative.")
        let tenYears = 10 * 365 * 86_400
        for (name, seconds) in [("sourceTTL", sourceTTL), ("freshnessFloor", freshnessFloor),
                                ("freshnessCeiling", freshnessCeiling), ("sharedSourceCheckInterval", sharedSourceCheckInterval)] {
            try check((0...tenYears).contains(seconds), "\(name) takes 0–\(tenYears) seconds, got \(seconds).")
        }
        try check(freshnessFloor <= freshnessCeiling,
                  "freshnessFloor (\(freshnessFloor)) must not be above freshnessCeiling (\(freshnessCeiling)).")
        try check(resultMemoryBytes >= 0 && resultDiskBytes >= 0, "Cache sizes must not be negative.")
        for (name, seconds) in [("sourceTimeout", sourceTimeout), ("requestTimeout", requestTimeout),
                                ("shutdownTimeout", shutdownTimeout), ("sharedCacheLeaseWait", sharedCacheLeaseWait)] {
            try check(seconds.isFinite && seconds >= 0 && seconds <= 86_400, "\(name) takes 0–86400 seconds, got \(seconds).")
        }
    }
}
