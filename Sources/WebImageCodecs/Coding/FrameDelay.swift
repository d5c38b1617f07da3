/// How long animation frames are shown, one rule for GIF, APNG, WebP, JPEG XL and AVIF.
enum FrameDelay {
    /// Delays shorter than this are treated as "as fast as possible" by browsers and SDWebImage.
    static let minimumHonoredSeconds = 0.011
    /// What such a delay becomes.
    static let substituteSeconds = 0.1

    /// The display time for a frame whose file asks for `seconds`: under 0.011 s becomes 0.1 s
    /// (the browser convention SDWebImage follows), so zero-delay animations do not spin.
    static func displaySeconds(_ seconds: Double) -> Double {
        seconds < minimumHonoredSeconds ? substituteSeconds : seconds
    }
}
