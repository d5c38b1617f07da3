/// The ``WebImageError``s of the JPEG XL coder. libjxl reports only that a call failed, never why,
/// so the message says what was being done and which part of the file was reached.
enum JXLFailure {
    /// libjxl could not go on while `action`: the codestream or a box is damaged or cut short
    /// (with all the input given, libjxl reports a cut inside a frame as an error), or the data
    /// is not JPEG XL at all.
    static func corrupt(while action: String) -> WebImageError {
        WebImageError.badData("The JPEG XL data is corrupt, truncated or unsupported; libjxl failed while \(action).")
    }

    /// The data ended while libjxl still needed more to finish `action`.
    static func truncated(while action: String) -> WebImageError {
        WebImageError.badData("The JPEG XL data ended early while \(action); the file is truncated.")
    }

    /// libjxl could not allocate what `action` needed.
    static func outOfMemory(_ action: String) -> WebImageError {
        WebImageError(.imageTooLarge, "libjxl could not allocate memory for \(action) (out of memory).")
    }

    /// An encoder call failed while `action`.
    static func encoding(_ action: String, size: PixelSize) -> WebImageError {
        WebImageError(.encodingFailed, "libjxl failed to encode the \(size) image while \(action).")
    }
}
